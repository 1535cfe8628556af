"""grades.csv lists every student of the class: one in the gradebook who handed nothing in, and
one who handed in but is not graded yet, are rows with 0 and the reason (issue 24, point 7)."""

import csv
import os
import sys

import pytest

from grading import classroom


def test_every_gradebook_student_is_a_row_with_the_reason(tmp_path, monkeypatch):
    from nbgrader.api import Gradebook

    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    monkeypatch.setenv("DB_URL", url)
    # a new gradebook is made by nbgrader's call of the alembic command, beside this Python
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    monkeypatch.setattr(classroom, "SUBMITTED", str(tmp_path / "submitted"))
    (tmp_path / "submitted" / "handed-in" / "attention").mkdir(parents=True)
    with Gradebook(url) as gb:
        gb.add_assignment("attention")
        gb.add_student("registered-only")
    rows = classroom.grade_table("attention")
    assert [(student, scores, total) for student, scores, total, *_ in rows] == [
        ("handed-in", {}, 0.0),
        ("registered-only", {}, 0.0),
    ]
    table = tmp_path / "grades.csv"
    classroom.grades(str(table), "attention")
    with open(table, newline="") as f:
        said = {row["student"]: row["problems"] for row in csv.DictReader(f)}
    assert said["handed-in"].startswith("handed in but not graded yet")
    assert said["registered-only"].startswith("no submission")
    assert classroom.cell_scores() == {}  # scores of graded students only


def test_a_problem_that_starts_like_a_formula_is_written_as_text(tmp_path, monkeypatch):
    """A learner's file name quoted in the problems column cannot run in a spreadsheet."""
    sentence = '=HYPERLINK("evil.example","hint") was a link or special file, not a file'
    monkeypatch.setattr(classroom, "grade_table", lambda a: [("ana", {"c": 1.0}, 1.0, 1.0, [])])
    monkeypatch.setattr(classroom.deadlines, "lateness", lambda a: {})
    monkeypatch.setattr(classroom, "problems_of", lambda student, a: [sentence])
    classroom.grades(str(tmp_path / "grades.csv"), "attention")
    with open(tmp_path / "grades.csv", newline="", encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    assert row["problems"] == "'" + sentence and float(row["total"]) == pytest.approx(1.0)
