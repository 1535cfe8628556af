"""The class records move from the top of the class folder into records/ with nothing lost."""

import os
import sqlite3
import stat
import subprocess
import sys

import pytest

from grading import paths
from grading.nbgrader import records

ROOT = paths.ROOT


def old_course(folder):
    """A class folder as an older version left it: a real SQLite gradebook and two tables."""
    with sqlite3.connect(folder / "gradebook.db") as db:
        db.execute("CREATE TABLE grade (student TEXT, score REAL)")
        db.execute("INSERT INTO grade VALUES ('ana', 37.5)")
    (folder / "grades.csv").write_text("student,total\nana,37.5\n")
    (folder / "grades-xslm.csv").write_text("student,total\nana,12\n")
    return {n: (folder / n).read_bytes() for n in ("gradebook.db", "grades.csv", "grades-xslm.csv")}


def test_an_old_layout_moves_into_records_whole(tmp_path, capsys):
    before = old_course(tmp_path)
    moved = records.settle(str(tmp_path), str(tmp_path / "records"))
    assert sorted(moved) == sorted(before)
    assert {n: (tmp_path / "records" / n).read_bytes() for n in before} == before
    assert sorted(os.listdir(tmp_path)) == ["records"]  # no original, no staging folder left
    assert stat.S_IMODE(os.stat(tmp_path / "records").st_mode) == 0o700
    with sqlite3.connect(tmp_path / "records" / "gradebook.db") as db:
        assert db.execute("SELECT student, score FROM grade").fetchall() == [("ana", 37.5)]
    assert "moved into" in capsys.readouterr().err


def test_a_move_stopped_after_the_rename_is_finished_by_the_next(tmp_path):
    before = old_course(tmp_path)
    (tmp_path / "records").mkdir()
    for name in before:  # what a move stopped between its rename and its unlinks leaves
        os.link(tmp_path / name, tmp_path / "records" / name)
    assert sorted(records.settle(str(tmp_path), str(tmp_path / "records"))) == sorted(before)
    assert sorted(os.listdir(tmp_path)) == ["records"]
    assert {n: (tmp_path / "records" / n).read_bytes() for n in before} == before


def test_a_move_stopped_before_the_rename_leaves_the_originals_and_is_done_again(tmp_path):
    before = old_course(tmp_path)
    staging = tmp_path / ".records-stopped"
    staging.mkdir()
    os.link(tmp_path / "gradebook.db", staging / "gradebook.db")  # stopped while linking
    assert {n: (tmp_path / n).read_bytes() for n in before} == before
    records.settle(str(tmp_path), str(tmp_path / "records"))
    assert {n: (tmp_path / "records" / n).read_bytes() for n in before} == before
    assert not any((tmp_path / n).exists() for n in before)


def test_a_record_that_differs_from_records_own_is_kept_and_named(tmp_path, capsys):
    old_course(tmp_path)
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "grades.csv").write_text("student,total\nbo,3\n")
    records.settle(str(tmp_path), str(tmp_path / "records"))
    assert (tmp_path / "grades.csv").read_text() == "student,total\nana,37.5\n"
    assert (tmp_path / "records" / "grades.csv").read_text() == "student,total\nbo,3\n"
    assert "grades.csv is left where it is" in capsys.readouterr().err


def test_a_link_at_the_top_is_not_taken_for_a_record(tmp_path):
    outside = tmp_path / "outside.db"
    outside.write_bytes(b"not the course's")
    course = tmp_path / "class"
    course.mkdir()
    os.symlink(outside, course / "gradebook.db")
    assert records.settle(str(course), str(course / "records")) == []
    assert os.path.islink(course / "gradebook.db") and os.listdir(course / "records") == []


def test_processes_settling_at_once_all_end_with_every_record_in_records(tmp_path):
    before = old_course(tmp_path)
    code = (
        "import sys; from grading.nbgrader import records; records.settle(sys.argv[1], sys.argv[2])"
    )
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path), str(tmp_path / "records")],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        for _ in range(6)
    ]
    for run in runs:
        _, err = run.communicate(timeout=60)
        assert run.returncode == 0, err.decode()
    assert sorted(os.listdir(tmp_path)) == ["records"]
    assert {n: (tmp_path / "records" / n).read_bytes() for n in before} == before


def test_a_new_class_gets_a_records_folder_only_its_owner_can_open(tmp_path):
    assert records.settle(str(tmp_path / "class"), str(tmp_path / "class" / "records")) == []
    assert stat.S_IMODE(os.stat(tmp_path / "class" / "records").st_mode) == 0o700


def test_a_record_missing_from_an_existing_records_folder_is_moved_into_it(tmp_path):
    before = old_course(tmp_path)
    (tmp_path / "records").mkdir()  # made by a newer version before the old records were moved
    assert sorted(records.settle(str(tmp_path), str(tmp_path / "records"))) == sorted(before)
    assert {n: (tmp_path / "records" / n).read_bytes() for n in before} == before
    assert sorted(os.listdir(tmp_path)) == ["records"]


def test_a_move_that_cannot_be_made_says_so_and_loses_nothing(tmp_path, monkeypatch):
    before = old_course(tmp_path)

    def refused(*_):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", refused)  # as protected_hardlinks refuses another's file
    with pytest.raises(SystemExit, match="could not move the class records"):
        records.settle(str(tmp_path), str(tmp_path / "records"))
    assert {n: (tmp_path / n).read_bytes() for n in before} == before
    assert sorted(os.listdir(tmp_path)) == sorted(before)
