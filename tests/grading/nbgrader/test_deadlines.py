"""Issue 24, point 3: deadlines. deadlines.csv read strictly; the late policies' arithmetic; and
four students graded by plain `nbgrader autograde`: on time, late, late but within their own
extension, and with no hand-in time. A penalty is nbgrader's arithmetic on the judge's scores, so
that run executes no notebook (ATTENTION_EXECUTE=0); the lanes' runs do. Expected penalties are
derived from the policy's rule and the masters' points, not copied from a run."""

import csv
import datetime
import math
import os
import shutil
import subprocess
import sys

import pytest

from grading import classroom
from grading.authoring import course
from grading.nbgrader import deadlines
from grading.paths import DEADLINES, HAND_IN_TIMES, ROOT
from tests.fixtures.helpers import master_points

HOUR = datetime.timedelta(hours=1)
DUE = datetime.datetime(2026, 12, 10, 14, 59)  # 23:59 in Seoul, as the file below writes it
FILE = (
    "part,student,due,late_policy\n"
    "attention,,2026-12-10T23:59+09:00,per-day 10\n"
    "attention,dl-extended,2026-12-13T23:59+09:00,\n"
)
HANDED_IN = {  # student: when hand-in-times.csv says they handed in (UTC), or None
    "dl-on-time": DUE - HOUR,
    "dl-late": DUE + 25 * HOUR,  # into the second day late
    "dl-extended": DUE + 48 * HOUR,  # late for the class, on time for their own date
    "dl-unknown": None,
}


def test_a_deadlines_file_is_read_as_instants_in_utc():
    found = deadlines.parse(FILE)
    assert list(found) == ["attention"]
    assert found["attention"].due == DUE
    assert found["attention"].due_for("dl-extended") == DUE + 72 * HOUR
    assert found["attention"].due_for("anyone") == DUE
    assert found["attention"].policy == deadlines.Policy("per-day 10")


@pytest.mark.parametrize(
    "text, says",
    [
        ("part,student,due\nattention,,2026-12-10T23:59\n", "has no time zone"),
        ("part,student,due\nattention,,next friday\n", "is not a time like"),
        ("part,student,due\npart9,,2026-12-10T23:59Z\n", "no part 'part9'"),
        (
            "part,student,due,late_policy\nattention,,2026-12-10T23:59Z,per-week 5\n",
            "is not none, zero, per-day P or zero-after H",
        ),  # fmt: skip
        (
            "part,student,due,late_policy\nattention,,2026-12-10T23:59Z,zero\n"
            "attention,ana,2026-12-11T23:59Z,zero\n",
            "a policy belongs on the part's row",
        ),  # fmt: skip
        (
            "part,student,due\nattention,,2026-12-10T23:59Z\nattention,,2026-12-11T23:59Z\n",
            "attention has two rows of its own",
        ),  # fmt: skip
        ("part,student,due\nattention,ana,2026-12-10T23:59Z\n", "attention has students' dates"),
        ("part,student,due\nattention,,\n", "line 2: every row needs a part and a due time"),
        ("part,student,due\nattention,,0001-01-01T00:00+01:00\n", "is not a time like"),
        (
            "part,student,due\nattention,,2026-12-10T23:59Z\nattention,../x,2026-12-11T23:59Z\n",
            "'../x' is not a student id",
        ),  # fmt: skip
        (
            "part,student,due\nattention,,2026-12-10T23:59Z\nattention,ana,2026-12-11T23:59Z\n"
            "attention,ana,2026-12-12T23:59Z\n",
            "line 4: ana has two rows for attention",
        ),  # fmt: skip
    ],
)
def test_a_faulty_deadlines_file_names_what_to_fix(text, says):
    with pytest.raises(deadlines.DeadlineError) as caught:
        deadlines.parse(text)
    assert says in str(caught.value)


@pytest.mark.parametrize(
    "policy, hours_late, share",
    [
        ("none", 500, 0.0),
        ("per-day 10", 0, 0.0),
        ("per-day 10", 1 / 3600, 0.10),  # a second late is a day begun
        ("per-day 10", 24, 0.10),
        ("per-day 10", 24.01, 0.20),
        ("per-day 12.5", 30 * 24, 1.0),  # never more than the score
        ("zero", 0.01, 1.0),
        ("zero-after 48", 47.9, 0.0),
        ("zero-after 48", 48.1, 1.0),
    ],
)
def test_each_late_policy_takes_its_share(policy, hours_late, share):
    score = 7.0
    taken = deadlines.Policy(policy).penalty(score, hours_late * 3600)
    assert taken == pytest.approx(share * score)


def test_collect_says_each_zips_time_and_doubts_times_a_copy_made(tmp_path, monkeypatch):
    """With a due time, make collect prints each hand-in's time, late ones marked, and warns
    when every zip's time is within a minute of the others (the times of a copy)."""
    from grading.nbgrader import collect

    monkeypatch.setattr(collect, "downloaded", lambda part, kind="archive": str(tmp_path))
    monkeypatch.setattr(deadlines, "load", lambda: deadlines.parse(FILE))
    for name, moment in (("ana", DUE - HOUR), ("dl-extended", DUE + 48 * HOUR)):
        (tmp_path / f"{name}.zip").write_bytes(b"PK")
        seconds = moment.replace(tzinfo=datetime.UTC).timestamp()
        os.utime(tmp_path / f"{name}.zip", (seconds, seconds))
    said = collect.hand_in_times("attention")
    assert said == ["ana: handed in 2026-12-10 13:59 UTC",
                    "dl-extended: handed in 2026-12-12 14:59 UTC"]  # fmt: skip
    os.utime(tmp_path / "dl-extended.zip", (DUE.replace(tzinfo=datetime.UTC).timestamp() + 5,) * 2)
    (tmp_path / "bo.zip").write_bytes(b"PK")
    os.utime(tmp_path / "bo.zip", ((DUE + 30 * HOUR).replace(tzinfo=datetime.UTC).timestamp(),) * 2)
    assert "bo: handed in 2026-12-11 20:59 UTC (late)" in collect.hand_in_times("attention")
    os.utime(tmp_path / "bo.zip", (DUE.replace(tzinfo=datetime.UTC).timestamp() - 20,) * 2)
    os.utime(tmp_path / "ana.zip", (DUE.replace(tzinfo=datetime.UTC).timestamp(),) * 2)
    assert collect.hand_in_times("attention")[-1].startswith("warning: every zip's time")


def hand_in_times_file(handed_in):
    """hand-in-times.csv as an instructor writes it for work placed in submitted/ by hand."""
    rows = [f"attention,{s},{t.isoformat()}Z" for s, t in handed_in.items() if t is not None]
    return "part,student,handed_in\n" + "".join(row + "\n" for row in rows)


def set_duedate(value):
    """The attention assignment's due date in the course gradebook (None: no due date)."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{os.path.join(ROOT, 'records', 'gradebook.db')}") as gb:
        gb.update_or_create_assignment("attention", duedate=value)


@pytest.fixture(scope="module")
def graded():
    """The four students handed in the same correct work, graded by `nbgrader autograde` with
    FILE as the class's deadlines.csv (an instructor's own file is put back afterwards)."""
    given = {DEADLINES: FILE, HAND_IN_TIMES: hand_in_times_file(HANDED_IN)}
    for path, text in given.items():
        if os.path.exists(path):
            os.rename(path, path + ".kept-by-test")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    try:
        course.nbgrader("generate_assignment", "attention", "--force")
        first = classroom.write_submission("dl-on-time")
        for student in HANDED_IN:
            if student != "dl-on-time":
                shutil.rmtree(os.path.join(classroom.SUBMITTED, student), ignore_errors=True)
                shutil.copytree(first, os.path.join(classroom.SUBMITTED, student, "attention"))
        with pytest.MonkeyPatch.context() as env:
            env.setenv("ATTENTION_EXECUTE", "0")  # the scores are the judge's alone
            done = course.nbgrader("autograde", "attention", "--student", "dl-*", "--force")
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
        export = [sys.executable, "-m", "grading", "export", "--to", "plain"]
        exported = subprocess.run(export, cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert exported.returncode == 0, exported.stdout + exported.stderr
        with open(os.path.join(ROOT, "records", "exports", "plain.csv"), newline="") as f:
            plain = {row["student"]: row for row in csv.DictReader(f)}
        yield deadlines.lateness("attention"), classroom.grade_table("attention"), plain
    finally:
        for made in (os.path.join(ROOT, "records", "exports", "plain.csv"), *given):
            if os.path.exists(made):
                os.remove(made)
        for path in given:
            if os.path.exists(path + ".kept-by-test"):
                os.rename(path + ".kept-by-test", path)
        set_duedate(None)
        for student in HANDED_IN:
            shutil.rmtree(os.path.join(classroom.SUBMITTED, student), ignore_errors=True)
            shutil.rmtree(os.path.join(classroom.AUTOGRADED, student), ignore_errors=True)
            course.nbgrader("db", "student", "remove", student, "--force")


def expected_penalty(student):
    """The points per-day 10 takes: 10 % of each notebook's score per day begun past the
    student's own due time (every notebook here scores full marks)."""
    own = DUE + (72 * HOUR if student == "dl-extended" else datetime.timedelta())
    moment = HANDED_IN[student]
    if moment is None or moment <= own:
        return 0.0
    days = math.ceil((moment - own).total_seconds() / 86400)
    return min(1.0, 0.10 * days) * sum(master_points().values())


@pytest.mark.nbgrader
def test_nbgrader_takes_what_the_policy_says_from_each_student(graded):
    late, table, _ = graded
    top = sum(master_points().values())
    totals = {student: total for student, _, total, *_ in table}
    for student in HANDED_IN:
        assert late[student].penalty == pytest.approx(expected_penalty(student)), student
        assert totals[student] == pytest.approx(top - expected_penalty(student)), student
    assert expected_penalty("dl-late") > 0  # the case is a real one
    assert late["dl-extended"].due == DUE + 72 * HOUR and late["dl-on-time"].due == DUE
    assert late["dl-unknown"].handed_in is None and late["dl-unknown"].seconds_late == 0


@pytest.mark.nbgrader
def test_the_tables_say_who_was_late_and_when(graded):
    late, _, plain = graded
    assert late["dl-late"].sentence().startswith("handed in 25.0 h late")
    assert late["dl-on-time"].sentence() is None and late["dl-extended"].sentence() is None
    assert late["dl-unknown"].sentence() == "hand-in time unknown: counted as on time"
    row = plain["dl-late"]
    assert row["handed_in"] == "2026-12-11T15:59Z" and row["due"] == "2026-12-10T14:59Z"
    assert float(row["hours_late"]) == pytest.approx(25.0)
    assert float(row["late_penalty"]) == pytest.approx(expected_penalty("dl-late"))
    assert float(row["total"]) == pytest.approx(float(row["max"]) - expected_penalty("dl-late"))
    assert plain["dl-extended"]["due"] == "2026-12-13T14:59Z"
    assert plain["dl-unknown"]["handed_in"] == "" and plain["dl-unknown"]["hours_late"] == ""


@pytest.mark.nbgrader
@pytest.mark.parametrize("scheduler", [None, "local"], ids=["farm", "dask"])
def test_every_grading_lane_applies_the_deadlines(graded, scheduler):
    """make autograde's grading servers, and a Dask cluster, grade the late student again:
    the same penalty as plain nbgrader's, and the class's due date stays as deadlines.csv says."""
    outcomes = classroom.autograde(["dl-late"], force=True, scheduler=scheduler)
    assert [o.ok for o in outcomes] == [True]
    again = deadlines.lateness("attention")
    assert again["dl-late"].penalty == pytest.approx(expected_penalty("dl-late"))
    assert again["dl-extended"].due == DUE + 72 * HOUR
