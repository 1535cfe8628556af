"""Deadlines: each part's due date, students' own (extensions), and the late policy, through
nbgrader's own late-penalty machinery.

The instructor writes deadlines.csv in the class folder, a row per part and a row per extension:

    part,student,due,late_policy
    attention,,2026-12-10T23:59+09:00,per-day 10
    attention,ana,2026-12-12T23:59+09:00,

A part's row (no student) gives its due date and its policy; a student's row gives that student
their own due date for the part. Every time carries its zone (+09:00, Z): a deadline is an
instant. The policies, applied by nbgrader to each notebook's score:

    none          lateness is shown, nothing is taken (the default)
    per-day P     P % of the score for each day, or part of a day, late (at most all of it)
    zero          a late notebook scores 0
    zero-after H  H hours of grace, then 0

When it grades, nbgrader knows a submission's time from its timestamp.txt, which intake writes
from a time the course trusts, or removes (hand_ins.py): never one the learner wrote. A
submission with none is on time, and the tables say its time is unknown. Every grading lane
runs the same two steps, after the judge's scores are saved: ApplyDeadlines writes the part's
due date and the student's extension into the gradebook, where the formgrader shows them too,
and nbgrader's AssignLatePenalties asks LatePolicy for each notebook's penalty (both in
preprocess.py). This module is the standard library's and nbgrader's gradebook only.
"""

import csv
import dataclasses
import datetime
import functools
import io
import math
import os
import re

from grading.parts import PARTS
from grading.paths import DEADLINES, STUDENT_ID, db_url

POLICY = re.compile(r"none|zero|per-day (\d+(?:\.\d+)?)|zero-after (\d+(?:\.\d+)?)")
DAY = 86400.0


class DeadlineError(ValueError):
    """A deadlines file that cannot be used, with the line to fix."""


@dataclasses.dataclass(frozen=True)
class Policy:
    """A late policy: what share of a notebook's score lateness takes."""

    text: str = "none"

    def penalty(self, score, seconds_late):
        """The points taken from a notebook scoring `score`, handed in seconds_late late."""
        match = POLICY.fullmatch(self.text)
        if seconds_late <= 0 or self.text == "none":
            return 0.0
        if match.group(1):  # per-day P
            return score * min(1.0, float(match.group(1)) / 100 * math.ceil(seconds_late / DAY))
        grace = float(match.group(2) or 0) * 3600  # zero, or zero after H hours
        return score if seconds_late > grace else 0.0


@dataclasses.dataclass(frozen=True)
class PartDeadline:
    """One part's due date (UTC, naive as nbgrader keeps it), policy and students' own dates."""

    due: datetime.datetime
    policy: Policy
    extended: dict  # {student: their own due date, UTC}

    def due_for(self, student):
        """When the student's work is due: their own date, else the part's."""
        return self.extended.get(student, self.due)


def instant(text, line):
    """An ISO 8601 time with its zone, as naive UTC (nbgrader's form); DeadlineError otherwise."""
    try:
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
        utc = moment.astimezone(datetime.UTC) if moment.tzinfo else None
    except (ValueError, OverflowError):
        raise DeadlineError(
            f"line {line}: {text!r} is not a time like 2026-12-10T23:59+09:00"
        ) from None
    if utc is None:
        raise DeadlineError(f"line {line}: {text!r} has no time zone (add +09:00, Z ...)")
    return utc.replace(tzinfo=None)


def parse(text, known=PARTS):
    """{part: PartDeadline} from the text of deadlines.csv; DeadlineError naming what to fix."""
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    parts, extended = {}, {}
    for line, row in enumerate(rows, start=2):
        part, student = (row.get("part") or "").strip(), (row.get("student") or "").strip()
        if not part or not (row.get("due") or "").strip():
            raise DeadlineError(f"line {line}: every row needs a part and a due time")
        if part not in known:
            raise DeadlineError(f"line {line}: no part {part!r} (the parts: {', '.join(known)})")
        due = instant(row["due"].strip(), line)
        policy = (row.get("late_policy") or "").strip()
        if student:
            if policy:
                raise DeadlineError(f"line {line}: a policy belongs on the part's row")
            if not STUDENT_ID.fullmatch(student):
                raise DeadlineError(f"line {line}: {student!r} is not a student id")
            if student in extended.get(part, {}):
                raise DeadlineError(f"line {line}: {student} has two rows for {part}")
            extended.setdefault(part, {})[student] = due
        elif part in parts:
            raise DeadlineError(f"line {line}: {part} has two rows of its own")
        elif not POLICY.fullmatch(policy or "none"):
            raise DeadlineError(f"line {line}: {policy!r} is not none, zero, per-day P or "
                                "zero-after H")  # fmt: skip
        else:
            parts[part] = PartDeadline(due, Policy(policy or "none"), {})
    for part, students in extended.items():
        if part not in parts:
            raise DeadlineError(f"{part} has students' dates but no row of its own")
        parts[part] = dataclasses.replace(parts[part], extended=students)
    return parts


def load(path=DEADLINES):
    """The class's deadlines ({} when it has no deadlines.csv); DeadlineError if it is wrong.
    Parsed once per version of the file: grading asks for each notebook."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return {}
    except OSError as err:
        raise DeadlineError(f"cannot read it ({err}): the course user reads it") from None
    return parsed(path, info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=4)
def parsed(path, mtime_ns, size):
    """parse() of the file at path as it is at that modification time and size."""
    try:
        with open(path, encoding="utf-8") as f:
            return parse(f.read())
    except (OSError, UnicodeDecodeError) as err:
        raise DeadlineError(f"cannot read it ({err}): the course user reads it, as UTF-8") from None


def describe(part, deadline):
    """One line: the part's due time, its policy, and how many students have their own."""
    return (f"{part} due {deadline.due:%Y-%m-%d %H:%M} UTC, late policy {deadline.policy.text}, "
            f"{len(deadline.extended)} student(s) with their own due time")  # fmt: skip


def after_penalty(score, penalty):
    """A total once lateness took its points, never below 0 (as nbgrader's export counts it)."""
    return max(0.0, score - (penalty or 0.0))


@dataclasses.dataclass(frozen=True)
class Lateness:
    """One submission's time against its due date, as the gradebook holds them (UTC)."""

    handed_in: datetime.datetime | None  # None: nbgrader had no timestamp.txt for it
    due: datetime.datetime | None  # the student's own (extension included); None: no deadline
    seconds_late: float
    penalty: float  # the points nbgrader took, over all its notebooks

    def sentence(self):
        """What the tables say of it: lateness and its cost, an unknown time, or None."""
        if self.due is None:
            return None
        if self.handed_in is None:
            return "hand-in time unknown: counted as on time"
        if self.seconds_late <= 0:
            return None
        return f"handed in {self.seconds_late / 3600:.1f} h late: {self.penalty:g} points taken"


def lateness(assignment):
    """{student: Lateness} of every submission of a part in the gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url()) as gb:
        try:
            submissions = gb.assignment_submissions(assignment)
        except MissingEntry:
            return {}
        return {s.student_id: Lateness(s.timestamp, s.duedate, s.total_seconds_late,
                                       s.late_submission_penalty or 0.0)
                for s in submissions}  # fmt: skip
