"""When a submission was handed in: never a time the learner wrote.

nbgrader takes a submission's time from the timestamp.txt in its folder of submitted/, and the
learner can put one there among their own files. Before nbgrader reads it (intake, nbgrader's
pre-convert hook), the course writes that file itself from a time it trusts, or removes it:

1. the instructor's hand-in-times.csv in the class folder (part,student,handed_in; a time with
   its zone), for work placed in submitted/ by hand;
2. else records/collected-<part>.json, which `make collect` writes from each zip's own time;
3. else the time is unknown: no timestamp.txt, and the tables say so.

A timestamp.txt that says anything else is moved aside (nothing is lost) and named as a problem.
"""

import csv
import datetime
import io
import json
import os

from grading.machine.files import move_aside, read_text_or
from grading.nbgrader.deadlines import DeadlineError, instant
from grading.parts import PARTS
from grading.paths import HAND_IN_TIMES, STUDENT_ID, collected_times

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
    """{student: naive UTC} that make collect recorded for a part ({} before any)."""
    try:
        with open(collected_times(part), encoding="utf-8") as f:
            return {s: datetime.datetime.fromisoformat(t) for s, t in json.load(f).items()}
    except FileNotFoundError:
        return {}


def record_collected(part, times):
    """Add {student: naive UTC} to what make collect recorded for a part."""
    merged = collected(part) | times
    os.makedirs(os.path.dirname(collected_times(part)), exist_ok=True)
    with open(collected_times(part), "w", encoding="utf-8") as f:
        json.dump({s: t.isoformat() for s, t in sorted(merged.items())}, f, indent=1)


def trusted_time(student, part):
    """(naive UTC, where it comes from) of a submission, or (None, None) when nobody knows."""
    mine = given().get((part, student))
    if mine:
        return mine, "hand-in-times.csv"
    zipped = collected(part).get(student)
    return (zipped, "its zip") if zipped else (None, None)


def settle(folder, student, part, aside):
    """Make folder's timestamp.txt the trusted time, or absent; a learner's own is moved to the
    folder aside. Returns the problems to note."""
    path = os.path.join(folder, TIMESTAMP)
    try:
        moment, source = trusted_time(student, part)
    except DeadlineError as err:  # the learner's time is still not taken: unknown, and why
        moment, source = None, f"unknown ({err})"
    problems = [f"hand-in time {source}"] if source and moment is None else []
    if os.path.lexists(path) and not holds(path, moment):
        move_aside(folder, TIMESTAMP, aside)
        told = (
            f"the time is {source}'s"
            if moment
            else "the hand-in time is unknown; an instructor can give it in hand-in-times.csv"
        )
        problems.append(f"its own {TIMESTAMP} was not used as the hand-in time (moved to "
                        f"{os.path.basename(aside)}/): {told}")  # fmt: skip
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
