"""The class roster: who the students are (names, emails, LMS ids), read from a CSV and checked.

A roster is the instructor's file, one row per student, with a header naming its columns:

    id,first_name,last_name,email,lms_user_id
    ana,Ana,Lima,ana@example.org,4021

`id` is the student's folder in submitted/ (`student` is taken for it too); every other column is
optional. Headers are read loosely ("First Name", "E-mail" ...), values strictly: a value a
spreadsheet would run as a formula, a control character, a bad id or email, or a student listed
twice stops the import with the line to fix, and nothing is written.
"""

import csv
import io
import re
import unicodedata

from grading.machine import files
from grading.paths import STUDENT_ID
from grading.tables import starts_like_formula

FIELDS = ("first_name", "last_name", "email", "lms_user_id")  # nbgrader's Student columns
ALIASES = {"student": "id", "student_id": "id", "e_mail": "email", "first": "first_name",
           "last": "last_name", "firstname": "first_name", "lastname": "last_name"}  # fmt: skip
MAX_BYTES = 2**20  # a class of thousands fits many times over
MAX_VALUE = 128  # what the gradebook's columns hold
EMAIL = re.compile(r"[^@\s,;<>\"']+@[^@\s,;<>\"']+\.[^@\s,;<>\"']+")
HIDDEN = {"Cc", "Cf", "Zl", "Zp"}  # control, format (a right-to-left override ...), line breaks


class RosterError(ValueError):
    """A roster that cannot be imported, with the reason a person can act on."""


def column(header):
    """A header cell's column name: "First Name" -> first_name, "Student" -> id."""
    name = re.sub(r"[\s-]+", "_", header.strip().lower())
    return ALIASES.get(name, name)


def read_text(path):
    """The roster file's text: a regular file (no link followed, no FIFO), at most MAX_BYTES,
    UTF-8 (with or without the byte-order mark a spreadsheet writes)."""
    try:
        data = files.read_regular(path, MAX_BYTES)
    except files.NotPlainFile:
        raise RosterError(f"the roster {path} is not a regular file") from None
    except files.TooLarge:
        raise RosterError(f"the roster {path} is over {MAX_BYTES // 2**10} KiB") from None
    except OSError as err:
        raise RosterError(f"cannot open the roster {path}: {err.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise RosterError(
            f"the roster is not UTF-8 (byte {err.start}): save it as CSV UTF-8"
        ) from None


MARKUP = '<>&"'


def checked_value(name, value, line):
    """A value of a roster cell, stripped; RosterError if a spreadsheet or the gradebook would
    take it wrongly."""
    value = value.strip()
    if len(value) > MAX_VALUE:
        raise RosterError(f"line {line}: {name} is over {MAX_VALUE} characters")
    if any(unicodedata.category(c) in HIDDEN for c in value):
        raise RosterError(f"line {line}: {name} holds a control or invisible character")
    if starts_like_formula(value):
        raise RosterError(f"line {line}: {name} {value!r} starts like a spreadsheet formula")
    if any(c in MARKUP for c in value):  # nbgrader's formgrader writes names into its pages as is
        raise RosterError(f"line {line}: {name} {value!r} holds one of {MARKUP}, which a web page "
                          "would read as HTML")  # fmt: skip
    if name == "id" and not STUDENT_ID.fullmatch(value):
        raise RosterError(f"line {line}: {value!r} is not a student id (letters, digits, ._@+-)")
    if name == "email" and value and not EMAIL.fullmatch(value):
        raise RosterError(f"line {line}: {value!r} is not an email address")
    return value


def parse(text):
    """{id: {field: value}} from a roster's text; RosterError naming the first thing to fix."""
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff")))  # a spreadsheet's mark
    header = [column(h) for h in next(reader, [])]
    if "id" not in header:
        raise RosterError("the roster's header has no id column (the student's folder name)")
    unknown = [h for h in header if h != "id" and h not in FIELDS]
    if unknown:
        raise RosterError(f"unknown column(s) {', '.join(unknown)}: the columns are id, "
                          f"{', '.join(FIELDS)}")  # fmt: skip
    if len(set(header)) != len(header):
        raise RosterError("a column is named twice in the roster's header")
    people = {}
    for line, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue  # a blank line
        if len(row) != len(header):
            raise RosterError(f"line {line}: {len(row)} values for {len(header)} columns")
        cells = {h: checked_value(h, v, line) for h, v in zip(header, row)}
        student = cells.pop("id")
        if student in people:
            raise RosterError(f"line {line}: {student} is listed twice")
        people[student] = {f: cells.get(f, "") for f in FIELDS}
    if not people:
        raise RosterError("the roster lists no students")
    return people


def changes(people, known):
    """[(student, field, was, becomes)]: what importing people would change of what the
    gradebook already knows (known: {id: {field: value}}); a field it has empty is no change."""
    return [(student, f, known[student][f], fields[f])
            for student, fields in people.items() if student in known
            for f in FIELDS if fields[f] and known[student][f] not in ("", fields[f])]  # fmt: skip
