"""Issue 24, point 2: a roster read strictly, and grades in the layouts Canvas and Moodle import.

The layouts are checked against what each LMS documents: Canvas's Gradebook import wants the
columns Student, ID, SIS User ID, SIS Login ID and Section before the grade items, and takes a
"Points Possible" row under the header; Moodle's CSV grade import maps users by "Email address"
or "ID number", with the name columns "First name" and "Last name" (its own test fixtures use
this header). The roster's rules are the ones its docstring states.
"""

import csv
import io
import os
import unicodedata

import pytest

from grading import tables
from grading.lms import layouts, roster
from grading.lms.layouts import Column, Person

CANVAS_IDENTITY = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_IDENTITY = ["First name", "Last name", "ID number", "Email address"]
PEOPLE = [
    Person("ana", "Ana", "Lima", "ana@example.org", "4021"),
    Person("bo-2", "Bo", "", "", ""),  # half known: no last name, no email, no LMS id
    Person("cy"),  # in submitted/ only: the roster never named them
]
COLUMNS = [
    Column("softmax", 2.0, {"ana": 2.0, "bo-2": 0.5, "cy": None}),
    Column("attention", 3.0, {"ana": 1.0 / 3.0, "bo-2": 0.0, "cy": None}),
]


def as_csv(rows):
    """The rows written and read back as the LMS reads the file."""
    out = io.StringIO()
    tables.writer(out).writerows(rows)
    return list(csv.reader(io.StringIO(out.getvalue())))


def test_canvas_rows_follow_its_gradebook_import():
    rows = as_csv(layouts.canvas(PEOPLE, COLUMNS))
    assert rows[0] == CANVAS_IDENTITY + ["softmax", "attention"]
    assert rows[1][0] == "Points Possible" and rows[1][1:5] == ["", "", "", ""]
    assert [float(x) for x in rows[1][5:]] == pytest.approx([2.0, 3.0])
    by_login = {row[3]: row for row in rows[2:]}
    assert sorted(by_login) == ["ana", "bo-2", "cy"]
    assert by_login["ana"][:2] == ["Lima, Ana", "4021"]
    assert [float(x) for x in by_login["ana"][5:]] == pytest.approx([2.0, 1.0 / 3.0], abs=1e-6)
    assert by_login["bo-2"][0] == "Bo" and by_login["cy"][0] == "cy"  # a name, or the id
    assert by_login["cy"][5:] == ["", ""]  # nothing graded: blank, not a zero


def test_moodle_rows_follow_its_csv_grade_import():
    rows = as_csv(layouts.moodle(PEOPLE, COLUMNS))
    assert rows[0] == MOODLE_IDENTITY + ["softmax", "attention"]
    by_id = {row[2]: row for row in rows[1:]}
    assert by_id["ana"][:4] == ["Ana", "Lima", "ana", "ana@example.org"]
    assert float(by_id["bo-2"][4]) == pytest.approx(0.5) and by_id["cy"][4:] == ["", ""]


def test_no_text_cell_of_an_export_starts_like_a_formula():
    """Names that reached the gradebook some other way (a folder's name, nbgrader's own tools)
    are written as text; the scores, a negative late penalty included, stay numbers."""
    people = [Person("=cmd", "+1", "-x", "@me", "\uff1dy")]
    columns = [Column("=title", 1.0, {"=cmd": -0.5})]
    for layout in (layouts.canvas, layouts.moodle, layouts.plain):
        for row in as_csv(layout(people, columns)):
            for cell in row:
                starts = unicodedata.normalize("NFKC", cell)[:1]
                assert starts not in "=+@" or starts == "", (layout.__name__, cell)
                assert not starts == "-" or float(cell) == pytest.approx(-0.5), cell


@pytest.mark.parametrize("cell", [" =1+1", "\u200b=1+1", "\x00=1+1", "\n=1+1", "\ufeff@SUM(A1)"])
def test_a_formula_behind_spaces_or_invisible_characters_is_written_as_text(cell):
    assert tables.safe_cell(cell) == "'" + cell


def test_no_penalty_is_written_0_not_minus_0():
    assert [layouts.number(v) for v in (-0.0, -1e-9, -0.5, 0.0)] == ["0", "0", "-0.5", "0"]


def test_the_plain_table_sums_what_was_graded():
    rows = as_csv(layouts.plain(PEOPLE, COLUMNS))
    assert rows[0][:5] == ["student", "first_name", "last_name", "email", "lms_user_id"]
    assert rows[0][-6:] == ["total", "max", "handed_in", "due", "hours_late", "late_penalty"]
    by_id = {row[0]: dict(zip(rows[0], row)) for row in rows[1:]}
    assert float(by_id["ana"]["total"]) == pytest.approx(2.0 + 1.0 / 3.0, abs=1e-6)
    assert float(by_id["bo-2"]["total"]) == pytest.approx(0.5)
    assert by_id["cy"]["total"] == "" and float(by_id["cy"]["max"]) == pytest.approx(5.0)


def test_a_roster_reads_loose_headers_and_keeps_empty_fields_empty():
    text = "\ufeffStudent,First Name,Last Name,E-mail\nana,Ana,Lima,ana@example.org\n\nbo,Bo,,\n"
    people = roster.parse(text)
    assert people == {
        "ana": {"first_name": "Ana", "last_name": "Lima", "email": "ana@example.org",
                "lms_user_id": ""},
        "bo": {"first_name": "Bo", "last_name": "", "email": "", "lms_user_id": ""},
    }  # fmt: skip


@pytest.mark.parametrize(
    "text, says",
    [
        ("name,email\nana,a@b.org\n", "no id column"),
        ("id,email,phone\nana,a@b.org,1\n", "unknown column(s) phone"),
        ("id,email\nana,a@b.org\nana,c@d.org\n", "line 3: ana is listed twice"),
        ("id,email\nana,not-an-email\n", "line 2: 'not-an-email' is not an email address"),
        ("id,first_name\n../bob,Bob\n", "line 2: '../bob' is not a student id"),
        ('id,last_name\nana,=HYPERLINK("x")\n', "starts like a spreadsheet formula"),
        ("id,last_name\nana,Li\x07ma\n", "control or invisible character"),
        ("id,last_name\nana,\u202eamiL\n", "control or invisible character"),  # right-to-left
        ("id,first_name\nana,-2+3+cmd|' /C calc'!A0\n", "starts like a spreadsheet formula"),
        ("id,first_name\nana,\uff1d1+1\n", "starts like a spreadsheet formula"),  # full-width =
        ("id,last_name\nana,Lima,extra\n", "line 2: 3 values for 2 columns"),
        ("id,last_name\nana,<img src=x onerror=alert(1)>\n", "would read as HTML"),
        ('id,first_name\nana,"Ana ""Li"""\n', "would read as HTML"),
        ("id,email,EMAIL\nana,a@b.org,a@b.org\n", "named twice"),
        ("id\n\n", "lists no students"),
        ("id,last_name\nana," + "x" * 129 + "\n", "over 128 characters"),
    ],
)
def test_a_roster_with_a_fault_is_refused_with_the_line_to_fix(text, says):
    with pytest.raises(roster.RosterError) as caught:
        roster.parse(text)
    assert says in str(caught.value)


def test_a_roster_file_is_read_safely(tmp_path):
    """A link is not followed, a FIFO not opened for reading, a huge file not read whole, and a
    file that is not UTF-8 is named as such."""
    real = tmp_path / "roster.csv"
    real.write_text("id\nana\n", encoding="utf-8")
    assert roster.parse(roster.read_text(str(real))) == {"ana": dict.fromkeys(roster.FIELDS, "")}
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.csv"
    huge.write_bytes(b"id\n" + b"a\n" * roster.MAX_BYTES)
    latin = tmp_path / "latin.csv"
    latin.write_bytes("id,last_name\nana,Mu\u00f1oz\n".encode("latin-1"))
    for path, says in [(link, "cannot open"), (fifo, "not a regular file"),
                       (huge, "is over"), (latin, "not UTF-8")]:  # fmt: skip
        with pytest.raises(roster.RosterError) as caught:
            roster.read_text(str(path))
        assert says in str(caught.value), path


def test_changes_lists_only_fields_the_roster_would_overwrite():
    known = {"ana": {"first_name": "Ana", "last_name": "", "email": "old@example.org",
                     "lms_user_id": ""}}  # fmt: skip
    people = {
        "ana": {"first_name": "Ana", "last_name": "Lima", "email": "new@example.org",
                "lms_user_id": ""},
        "bo": {"first_name": "Bo", "last_name": "", "email": "", "lms_user_id": ""},
    }  # fmt: skip
    assert roster.changes(people, known) == [("ana", "email", "old@example.org", "new@example.org")]
