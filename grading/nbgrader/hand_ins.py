"""When a submission was handed in: never a time the learner wrote.

nbgrader takes a submission's time from the timestamp.txt in its folder of submitted/, and the
learner can put one there among their own files. Before nbgrader reads it (intake, nbgrader's
pre-convert hook), the course writes that file itself from a time it trusts, or removes it:

1. the instructor's hand-in-times.csv in the class folder (part,student,handed_in; a time with
   its zone), for work placed in submitted/ by hand;
2. else records/collected-<part>.json, which `make collect` writes from each zip's own time,
   with the digests of what it unpacked: the time holds only while the folder holds just that
   (a later version placed over it by hand has no time of its own);
3. else the time is unknown: no timestamp.txt, and the tables say so.

A timestamp.txt that says anything else is moved aside (nothing is lost) and named as a problem.
"""

import csv
import datetime
import io
import json
import os
import stat

from grading.machine.files import file_digest, printable, read_text_or, tree_bytes, walk
from grading.nbgrader.deadlines import DeadlineError, instant
from grading.nbgrader.unpack import MAX_BYTES, MAX_DEPTH
from grading.parts import PARTS
from grading.paths import HAND_IN_TIMES, STUDENT_ID, SUBMITTED, collected_times

TIMESTAMP = "timestamp.txt"  # nbgrader's name, in each submission folder


def given(known=PARTS):
    """{(part, student): naive UTC} from the instructor's hand-in-times.csv ({} without one)."""
    try:
        with open(HAND_IN_TIMES, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return {}
    times = {}
    for line, row in enumerate(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))), 2):
        part, student = (row.get("part") or "").strip(), (row.get("student") or "").strip()
        if part not in known or not STUDENT_ID.fullmatch(student):
            raise DeadlineError(f"hand-in-times.csv line {line}: needs a part and a student id")
        if (part, student) in times:
            raise DeadlineError(f"hand-in-times.csv line {line}: {student} has two rows for {part}")
        times[part, student] = instant((row.get("handed_in") or "").strip(), line)
    return times


def collected(part):
    """{student: (naive UTC, the contents' digests)} make collect recorded for a part."""
    try:
        with open(collected_times(part), encoding="utf-8") as f:
            kept = json.load(f)
    except FileNotFoundError:
        return {}
    return {s: (datetime.datetime.fromisoformat(r["time"]), r["contents"]) for s, r in kept.items()}


def contents(folder):
    """The sorted sha256 digests of a submission's files as the learner made them (not
    timestamp.txt, not the course's checkpoints/), a link or special file as its name; None
    when it holds more than a zip may unpack to (unpack.MAX_BYTES), so it came from no zip."""
    if tree_bytes(folder, MAX_BYTES + 1) > MAX_BYTES:
        return None
    found = []
    for rel, info, _ in walk(folder, MAX_DEPTH, skip_errors=True):
        if rel == TIMESTAMP or rel.split(os.sep)[0] == "checkpoints":
            continue
        if stat.S_ISREG(info.st_mode):
            found.append(file_digest(os.path.join(folder, rel)).hex())
        elif not stat.S_ISDIR(info.st_mode):
            found.append("not a file: " + printable(rel))
    return sorted(set(found))  # a renamed or copied notebook (intake's repairs) changes nothing


def record_collected(part, times):
    """Add {student: naive UTC} to what make collect recorded for a part, each with what it
    unpacked into submitted/<student>/<part>/ (the time holds for that, not for a later copy)."""
    merged = {s: {"time": t.isoformat(), "contents": c} for s, (t, c) in collected(part).items()}
    for student, moment in times.items():
        found = contents(os.path.join(SUBMITTED, student, part))
        merged[student] = {"time": moment.isoformat(), "contents": found}
    os.makedirs(os.path.dirname(collected_times(part)), exist_ok=True)
    with open(collected_times(part) + ".new", "w", encoding="utf-8") as f:
        json.dump(dict(sorted(merged.items())), f, indent=1)
    os.replace(collected_times(part) + ".new", collected_times(part))


def trusted_time(student, part, folder):
    """(naive UTC, where it comes from) of a submission, or (None, why) when nobody knows it."""
    mine = given().get((part, student))
    if mine:
        return mine, "hand-in-times.csv"
    moment, unpacked = collected(part).get(student, (None, None))
    if moment is None:
        return None, None
    if unpacked is None or contents(folder) != unpacked:
        return None, "unknown: the folder is no longer what make collect unpacked from the zip"
    return moment, "its zip"


def settle(folder, student, part, aside):
    """Make folder's timestamp.txt the trusted time, or absent; a learner's own is moved to the
    folder aside. Returns the problems to note."""
    path = os.path.join(folder, TIMESTAMP)
    try:
        moment, source = trusted_time(student, part, folder)
    except Exception as err:  # a broken record or file: unknown, and never the learner's time
        moment, source = None, f"unknown ({err})"
    problems = [f"hand-in time {source}"] if source and moment is None else []
    if os.path.lexists(path) and not holds(path, moment):
        aside.move(folder, TIMESTAMP)
        told = (
            f"the time is {source}'s"
            if moment
            else "the hand-in time is unknown; an instructor can give it in hand-in-times.csv"
        )
        problems.append(f"its own {TIMESTAMP} was not used as the hand-in time (moved to "
                        f"{aside.name}/): {told}")  # fmt: skip
    if moment and not os.path.lexists(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(moment.isoformat(" "))  # as nbgrader writes it
    return problems


def holds(path, moment):
    """Whether the file at path is a small regular file naming exactly that time."""
    text = read_text_or(path, 64, "") if moment else ""
    try:
        return datetime.datetime.fromisoformat(text.strip()) == moment
    except ValueError:
        return False
