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
import sys
import zipfile

from nbgrader.plugins import FileNameCollectorPlugin

from grading import course_user
from grading.authoring.course import nbgrader
from grading.parts import ASSIGNMENT, PARTS, registered
from grading.paths import downloaded

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
    or the browser gave the file), as an ISO time in UTC; None if the zip is not there."""
    try:
        seconds = os.lstat(zip_path).st_mtime
    except OSError:
        return None
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).isoformat()


class HandInCollector(FileNameCollectorPlugin):
    """nbgrader's file-name collector, plus each hand-in's time (nbgrader writes it to the
    submission's timestamp.txt, which deadlines are measured from).

    The time is the zip's own, never one written inside it: a learner's zip holding a
    timestamp.txt would otherwise choose its own hand-in time, so that file is not collected.
    """

    def collect(self, submitted_file):
        """nbgrader's match of one unpacked file, with the time of the zip it came from."""
        info = super().collect(submitted_file)
        if not info:
            return info
        if os.path.basename(info["file_id"]) == NBGRADER_TIMESTAMP:
            self.log.warning("Not collected (the hand-in time is the zip's): %s", submitted_file)
            return None
        part = self.parent.coursedir.assignment_id
        when = hand_in_time(os.path.join(downloaded(part), info["student_id"] + ".zip"))
        return {**info, "timestamp": when} if when else info


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
