"""make collect: the in-browser edition's hand-in zips into submitted/, via nbgrader zip_collect.

python -m grading collect [--part xslm] [--force]

Each learner's zip is downloaded/<part>/archive/<student>.zip. A zip is learner input: the
course unpacks it itself (unpack.py, nbgrader's extractor plugin), as plain files, or refuses it
whole with the reason printed, moved to downloaded/<part>/refused/; the others are collected.
This module says whose each unpacked file is and when it was handed in.
"""

import datetime
import os
import stat
import sys
import unicodedata

from nbgrader.plugins import FileNameCollectorPlugin

from grading import course_user
from grading.authoring.course import nbgrader
from grading.nbgrader import deadlines, hand_ins, unpack
from grading.parts import ASSIGNMENT, PARTS, registered
from grading.paths import STUDENT_ID, downloaded

NBGRADER_TIMESTAMP = "timestamp.txt"  # where nbgrader keeps a submission's time


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


def collect(part=ASSIGNMENT, force=False, only=None):
    """nbgrader zip_collect with the course's extractor and collector; exits non-zero on failure.
    only: the students whose zips to unpack (into submitted/, over what they had there); every
    other student's submission is left as it is."""
    registered(part)
    archive = downloaded(part)
    if not os.path.isdir(archive) or not os.listdir(archive):
        raise SystemExit(f"no zips to collect: put them in downloaded/{part}/archive/<student>.zip")
    chosen = {} if only is None else {unpack.ONLY: " ".join(sorted(only))}
    done = nbgrader("zip_collect", part, *(["--force"] if force else []), env=chosen)
    print(done.stdout + done.stderr, end="")
    if done.returncode != 0:
        again = "" if force else " (collected before? make collect FORCE=1 extracts all again)"
        raise SystemExit(f"nbgrader zip_collect {part} failed (its log is above){again}")
    times = zip_times(part)  # what grading takes as hand-in times, for what was unpacked
    hand_ins.record_collected(part, {s: t for s, t in times.items() if only is None or s in only})
    for line in hand_in_times(part):
        print(line)


def zip_times(part):
    """{student: hand-in time} of each <student>.zip in downloaded/<part>/archive/."""
    archive = downloaded(part)
    zips = [n for n in sorted(os.listdir(archive)) if n.endswith(".zip")]
    times = {n[:-4]: hand_in_time(os.path.join(archive, n)) for n in zips}
    return {
        student: when for student, when in times.items() if when and STUDENT_ID.fullmatch(student)
    }


def hand_in_times(part):
    """Lines saying each zip's hand-in time, when deadlines.csv gives the part a due time, and a
    warning when the times look like a copy's rather than the hand-ins' (all within a minute)."""
    try:
        deadline = deadlines.load().get(part)
    except deadlines.DeadlineError as err:
        return [f"deadlines.csv: {err}"]
    times = zip_times(part)
    if deadline is None or not times:
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
