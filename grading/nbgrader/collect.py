"""make collect: the in-browser edition's hand-in zips into submitted/, via nbgrader zip_collect.

python -m grading collect [--part xslm] [--force]

Each learner's zip is downloaded/<part>/archive/<student>.zip. A zip is learner input: before
nbgrader unpacks anything, each one is opened and refused if it is not a zip, if an entry would
land outside its folder (an absolute path, a `..`), if it holds another archive (nbgrader unpacks
those too), or if it unpacks to more than MAX_UNPACKED bytes. One bad zip would otherwise stop the
whole class's collection. A refused zip is moved, never deleted, to downloaded/<part>/refused/,
and the reason is printed; the others are collected.
"""

import datetime
import os
import shutil
import stat
import sys
import unicodedata
import zipfile

from nbgrader.plugins import FileNameCollectorPlugin

from grading import course_user
from grading.authoring.course import nbgrader
from grading.nbgrader import deadlines
from grading.parts import ASSIGNMENT, PARTS, registered
from grading.paths import STUDENT_ID, downloaded

NBGRADER_TIMESTAMP = "timestamp.txt"  # where nbgrader keeps a submission's time
MAX_UNPACKED = 200 * 2**20  # a part's hand-in is well under 1 MiB
ARCHIVES = (".zip", ".gz")  # what nbgrader's extractor unpacks, nested ones included


def refusal(path):
    """Why this zip must not be unpacked, or None when it is safe."""
    if not zipfile.is_zipfile(path):
        return "it is not a zip file"
    with zipfile.ZipFile(path) as z:
        entries = z.infolist()
    for entry in entries:
        parts = entry.filename.replace("\\", "/").split("/")
        if entry.filename.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
            return f"its entry {entry.filename!r} would land outside its folder"
        if entry.filename.lower().endswith(ARCHIVES):
            return f"it holds another archive, {entry.filename!r}"
    if sum(e.file_size for e in entries) > MAX_UNPACKED:
        return f"it unpacks to more than {MAX_UNPACKED // 2**20} MiB"
    return None


def screen(part):
    """Move every unsafe zip of downloaded/<part>/archive/ to refused/; [(name, reason)]."""
    archive = downloaded(part)
    refused_dir = downloaded(part, "refused")
    refused = []
    for folder, _, names in os.walk(archive):
        for name in sorted(names):
            path = os.path.join(folder, name)
            reason = refusal(path) if name.lower().endswith(ARCHIVES) else None
            if reason:
                os.makedirs(refused_dir, exist_ok=True)
                shutil.move(path, os.path.join(refused_dir, os.path.relpath(path, archive)))
                refused.append((os.path.relpath(path, archive), reason))
    return refused


def hand_in_time(zip_path):
    """When a hand-in zip arrived: its modification time in downloaded/ (what the LMS's download
    or the browser gave the file), in UTC without a zone as nbgrader keeps times; None unless the
    zip is there as a regular file (not a link)."""
    try:
        info = os.lstat(zip_path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return datetime.datetime.fromtimestamp(info.st_mtime, datetime.UTC).replace(tzinfo=None)


def plain_name(name):
    """A path part as it would be compared: NFKC-normalised and case-folded."""
    return unicodedata.normalize("NFKC", name).casefold()


class HandInCollector(FileNameCollectorPlugin):
    """Which student an unpacked file belongs to, and when they handed it in.

    A file unpacked from downloaded/<part>/archive/<student>.zip lies in
    downloaded/<part>/extracted/<student>/: the student is the folder right under extracted/,
    and a zip of that very name must exist. A path inside a zip that itself says
    "extracted/<someone>/" stays that learner's own file and never reaches someone else's
    submission. The time (nbgrader writes it to the submission's timestamp.txt, which deadlines
    are measured from) is the zip's own; a timestamp.txt inside a zip, at any depth and in any
    spelling, is not collected, so no learner chooses their own time.
    """

    def collect(self, submitted_file):
        """{student_id, file_id, timestamp} of one unpacked file, or None to leave it."""
        part = self.parent.coursedir.assignment_id
        top = os.path.join(downloaded(part, "extracted"), "")
        if os.path.splitext(submitted_file)[1] not in self.valid_ext:
            return None
        inside = submitted_file.startswith(top)
        student, _, file_id = submitted_file[len(top) :].partition("/") if inside else ("", "", "")
        if not STUDENT_ID.fullmatch(student) or not file_id:
            self.log.warning("Not collected (not in a student's own folder): %s", submitted_file)
            return None
        when = hand_in_time(os.path.join(downloaded(part), student + ".zip"))
        if when is None:
            self.log.warning("Not collected (no %s.zip was handed in): %s", student, submitted_file)
            return None
        if any(plain_name(name) == NBGRADER_TIMESTAMP for name in file_id.split("/")):
            self.log.warning("Not collected (the hand-in time is the zip's): %s", submitted_file)
            return None
        return {"student_id": student, "file_id": file_id, "timestamp": when.isoformat()}


def collect(part=ASSIGNMENT, force=False):
    """Screen the zips, then nbgrader zip_collect; exits non-zero if nbgrader fails."""
    registered(part)
    archive = downloaded(part)
    if not os.path.isdir(archive) or not os.listdir(archive):
        raise SystemExit(f"no zips to collect: put them in downloaded/{part}/archive/<student>.zip")
    for name, reason in screen(part):
        print(f"{name} set aside in downloaded/{part}/refused/ (not unpacked): {reason}")
    done = nbgrader("zip_collect", part, *(["--force"] if force else []))
    print(done.stdout + done.stderr, end="")
    if done.returncode != 0:
        again = "" if force else " (collected before? make collect FORCE=1 extracts all again)"
        raise SystemExit(f"nbgrader zip_collect {part} failed (its log is above){again}")
    for line in hand_in_times(part):
        print(line)


def hand_in_times(part):
    """Lines saying each zip's hand-in time, when deadlines.csv gives the part a due time, and a
    warning when the times look like a copy's rather than the hand-ins' (all within a minute)."""
    try:
        deadline = deadlines.load().get(part)
    except deadlines.DeadlineError as err:
        return [f"deadlines.csv: {err}"]
    archive = downloaded(part)
    zips = sorted(
        n for n in os.listdir(archive) if n.endswith(".zip") and STUDENT_ID.fullmatch(n[:-4])
    )
    if deadline is None or not zips:
        return []
    times = {n[:-4]: hand_in_time(os.path.join(archive, n)) for n in zips}
    times = {student: when for student, when in times.items() if when}
    if not times:
        return []
    lines = [f"{student}: handed in {when:%Y-%m-%d %H:%M} UTC"
             + (" (late)" if when > deadline.due_for(student) else "")
             for student, when in times.items()]  # fmt: skip
    spread = max(times.values()) - min(times.values())
    if len(times) > 1 and spread < datetime.timedelta(minutes=1):
        lines.append("warning: every zip's time is within a minute of the others: they look "
                     "like when they were copied, not handed in (docs/instructors.md)")  # fmt: skip
    return lines


def arguments(parser, command):
    """`python -m grading collect [--part NAME] [--force]`."""
    parser.add_argument("--part", choices=list(PARTS), default=ASSIGNMENT,
                        help="the part whose zips to collect (default attention)")  # fmt: skip
    parser.add_argument("--force", action="store_true",
                        help="extract every zip again, over what was collected before")  # fmt: skip


def main(args):
    """Collect as the course user: learners' zips are never opened by root."""
    course_user.become([sys.executable, "-m", "grading", "collect", *args.argv])
    collect(args.part, args.force)
