"""The grade-import layouts of the LMSs: a class's grades as the rows of each one's CSV.

Each layout is a function (people, columns) -> rows, where people is [Person] in the table's order
and columns is [Column]: a title (the LMS's name for the grade item), its points possible, and
{student: score}, None for a student with nothing graded. Such a cell is left blank, so the LMS
shows the grade as missing instead of recording a zero.

- canvas: Canvas's Gradebook import. Student ("Last, First"), ID (Canvas's user id: the roster's
  lms_user_id), SIS User ID, SIS Login ID (the course's student id), Section, then one column per
  grade item, with the Points Possible row Canvas's own export has under the header. A title
  Canvas does not know makes a new assignment; "Title (123)" names Canvas assignment 123.
- moodle: Moodle's "Import grades from CSV". First name, Last name, ID number (the student id),
  Email address, then the grade items; map users by email address or ID number when importing.
- plain: the student id, the roster's fields, the grade items, the total and the points possible,
  then the hand-in time, the due time (the student's own), the hours late and the points taken.

A total is after any late penalty (deadlines.csv); with a column per graded cell, the cells are
before it, and a "late penalty" item (no points possible) carries each penalty as a negative score.
The rows hold names as they are; grading.tables.writer writes them formula-safe.
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class Person:
    """A student as the roster (in the gradebook) knows them; "" where it does not."""

    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    lms_user_id: str = ""


@dataclasses.dataclass(frozen=True)
class Column:
    """One grade item of the export: its title, its points possible, each student's score."""

    title: str
    points: float
    scores: dict  # {student: score, or None when nothing of theirs was graded}


def number(value):
    """A score as an LMS reads it: 7, 0.5, 2.333333; "" for None."""
    if value is None:
        return ""
    text = f"{value:.6f}".rstrip("0").rstrip(".")  # to a millionth, never in e-notation
    return "0" if text == "-0" else text  # no penalty is 0, not -0


def canvas(people, columns, late=None):
    """Rows of a Canvas gradebook import."""
    who = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    rows = [who + [c.title for c in columns]]
    rows.append(["Points Possible"] + [""] * (len(who) - 1) + [number(c.points) for c in columns])
    for p in people:
        name = ", ".join(n for n in (p.last_name, p.first_name) if n) or p.id
        rows.append([name, p.lms_user_id, "", p.id, ""]
                    + [number(c.scores.get(p.id)) for c in columns])  # fmt: skip
    return rows


def moodle(people, columns, late=None):
    """Rows of a Moodle grade import (CSV)."""
    rows = [["First name", "Last name", "ID number", "Email address"]
            + [c.title for c in columns]]  # fmt: skip
    for p in people:
        rows.append([p.first_name, p.last_name, p.id, p.email]
                    + [number(c.scores.get(p.id)) for c in columns])  # fmt: skip
    return rows


def plain(people, columns, late=None):
    """Rows of a plain table: who, each grade item, the total, the points possible, and when it
    was handed in against its due time (late: {student: deadlines.Lateness}), all in UTC."""
    late = late or {}
    fields = [f.name for f in dataclasses.fields(Person)]
    when = ["handed_in", "due", "hours_late", "late_penalty"]
    rows = [["student"] + fields[1:] + [c.title for c in columns] + ["total", "max"] + when]
    top = sum(c.points for c in columns)
    for p in people:
        scores = [c.scores.get(p.id) for c in columns]
        total = None if all(s is None for s in scores) else sum(s or 0.0 for s in scores)
        rows.append([getattr(p, f) for f in fields] + [number(s) for s in scores]
                    + [number(total), number(top)] + lateness_cells(late.get(p.id)))  # fmt: skip
    return rows


def lateness_cells(late):
    """handed_in, due, hours_late, late_penalty of one student; blanks where nothing is known."""
    if late is None:
        return ["", "", "", ""]
    moment = "{:%Y-%m-%dT%H:%MZ}".format
    return [moment(late.handed_in) if late.handed_in else "", moment(late.due) if late.due else "",
            number(late.seconds_late / 3600) if late.due and late.handed_in else "",
            number(late.penalty)]  # fmt: skip


LAYOUTS = {"canvas": canvas, "moodle": moodle, "plain": plain}

# What an export needs of the roster to be matched to the LMS's students: (field, what for)
NEEDS = {
    "canvas": ("lms_user_id", "Canvas matches a row by ID (or by SIS Login ID, the student id)"),
    "moodle": ("email", "Moodle maps a row to a user by email address (or by ID number)"),
    "plain": ("", ""),
}
