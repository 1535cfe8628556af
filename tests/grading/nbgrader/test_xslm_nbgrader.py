"""Part two as an nbgrader assignment: `nbgrader generate_assignment xslm` gives a student edition
with no solution, and plain `nbgrader autograde xslm` scores a correct learner in full and a
learner with one engine mistake only where that mistake is (isolation), through the judge."""

import csv
import json
import os
import re
import shutil
import tempfile

import nbformat
import pytest

from grading import classroom
from grading.authoring import course, masters
from grading.judge.xslm import CELLS
from grading.parts import PARTS, XSLM
from grading.paths import ROOT
from tests.fixtures.helpers import (
    class_files,
    gradebook_students,
    in_class,
    remove_real_class,
    write_real_class,
)

XSLM_SOURCE = PARTS[XSLM].masters

REAL_GRADEBOOK = os.path.join(ROOT, "records", "gradebook.db")  # the course's own class's
DEMO_RECORDS = os.path.join(ROOT, "demo", "records")

pytestmark = [pytest.mark.nbgrader, pytest.mark.xslm]
# named as make demo PART=xslm names them, so its farm-graded class holds them too
LEARNERS = {"xslm-correct": None, "xslm-overwrite-gradients": "engine.overwrite_gradients"}


def nbgrader(*args):
    done = course.nbgrader(*args)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return done


def points(folder=XSLM_SOURCE):
    """{grade_id: points} of part two's graded cells, from the masters."""
    return {
        c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"]
        for n in masters.notebooks(folder)
        for c in nbformat.read(os.path.join(folder, n), as_version=4).cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }


def test_judge_knows_every_graded_cell():
    """The judge's table of part two's cells is exactly the masters' graded cells."""
    assert set(CELLS) == set(points())


@pytest.fixture(scope="module")
def released():
    return course.release(assignment="xslm")


def test_student_edition_has_no_solution_and_ships_the_package(released):
    """No line of any solution region reaches the release; the checkpoints package (linked in
    the masters) and part two's answers are there; no engine.py, gpt.py or outputs."""
    shipped = "".join(
        open(os.path.join(d, f), encoding="utf-8", errors="replace").read()
        for d, _, fs in os.walk(released)
        for f in fs
        if not f.endswith((".txt", ".json"))
    )
    for source in course.solution_cells(XSLM_SOURCE).values():
        region = re.search(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", source, re.S).group(1)
        for line in region.splitlines():
            if len(line.strip()) > 24:
                assert line.strip() not in shipped, line
    assert os.path.isfile(os.path.join(released, "checkpoints", "xslm", "answers.json"))
    for learner_file in ("engine.py", "gpt.py", "outputs"):
        assert not os.path.exists(os.path.join(released, learner_file))


@pytest.fixture(scope="module")
def graded(released):
    for student, mistake in LEARNERS.items():
        classroom.write_xslm_submission(student, mistake)
        nbgrader("autograde", "xslm", "--student", student, "--force")
    nbgrader("generate_feedback", "xslm", "--student", "xslm-overwrite-gradients", "--force")
    yield
    for student in LEARNERS:
        shutil.rmtree(os.path.join(classroom.SUBMITTED, student), ignore_errors=True)


def cell_scores(student, gradebook=REAL_GRADEBOOK):
    """({grade id: score}, max score) of a student's part two in a SQLite gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{gradebook}") as gb:
        submission = gb.find_submission("xslm", student)
        return {
            g.name: g.score for nb in submission.notebooks for g in nb.grades
        }, submission.max_score


def test_a_correct_learner_scores_full_marks(graded):
    """Every graded cell of the correct submission gets its points."""
    scores, most = cell_scores("xslm-correct")
    assert scores == {k: float(v) for k, v in points().items()}
    assert most == sum(points().values())


def test_an_engine_mistake_costs_only_the_engine(graded):
    """Overwritten gradients lose notebook 1's cells alone; the layers, GPT, learning and
    generating cells, judged on the reference's engine, keep every point."""
    scores, _ = cell_scores("xslm-overwrite-gradients")
    lost = {g for g, v in points().items() if scores[g] < v}
    assert lost == {"xslm01-value-checks", "xslm01-value-hidden"}, lost


def test_feedback_names_the_mistake(graded):
    """The feedback page of notebook 1 shows the judge's diagnosis."""
    page = os.path.join(ROOT, "feedback", "xslm-overwrite-gradients", "xslm", "01-engine.html")
    with open(page, encoding="utf-8") as f:
        assert "gradients overwritten instead of added" in f.read()


def test_make_autograde_part_two_agrees_with_plain_nbgrader(graded, demo):
    """`make autograde PART=xslm` (the farm: two servers, warm sandboxed kernels), as `make demo
    PART=xslm` runs it on its class, gives every cell of these learners the score plain nbgrader
    gave them here."""
    demo_gradebook = os.path.join(DEMO_RECORDS, "gradebook.db")
    for student in LEARNERS:
        assert cell_scores(student, demo_gradebook) == cell_scores(student), student


def test_the_dask_lane_keeps_the_layers_points_of_an_engine_mistake():
    """`make autograde PART=xslm SCHEDULER=local`, in a class of its own: overwritten gradients
    lose notebook 1's two cells and nothing else, as in plain nbgrader and the farm (above)."""
    where = tempfile.mkdtemp(prefix="attn-xslm-dask-")
    os.chmod(where, 0o755)  # the course user, who grades, enters it
    try:
        released = course.release(assignment="xslm", into=where)
        student = "xslm-overwrite-gradients"
        in_class(where, "-c", "from grading import classroom; classroom.write_xslm_submission("
                 f"{student!r}, {LEARNERS[student]!r}, released={released!r})")  # fmt: skip
        done = in_class(where, "-m", "grading", "autograde", "--part", "xslm", "--scheduler",
                        "local")  # fmt: skip
        assert "autograded 1 submission" in done.stdout, done.stdout[-2000:]
        scores, _ = cell_scores(student, os.path.join(where, "records", "gradebook.db"))
        lost = {g for g, v in points().items() if scores[g] < v}
        assert lost == {"xslm01-value-checks", "xslm01-value-hidden"}, lost
    finally:
        shutil.rmtree(where, ignore_errors=True)


@pytest.mark.parametrize("code", ["ko", "ja"])
def test_translated_student_editions_of_part_two(code):
    """`make release PART=xslm EDITION=ko|ja`: translated notebooks with no solution line, the
    graded cells byte for byte the English ones, and a package that speaks the edition."""
    folder = course.release(code, "xslm")
    english = course.release_folder(assignment="xslm")
    for name in masters.notebooks(XSLM_SOURCE):
        book = nbformat.read(os.path.join(folder, name), as_version=4)
        assert book.metadata["attention"]["edition"] == code
        theirs = {c.metadata["nbgrader"]["grade_id"]: c.source for c in book.cells
                  if c.metadata.get("nbgrader", {}).get("grade")}  # fmt: skip
        ours = {c.metadata["nbgrader"]["grade_id"]: c.source
                for c in nbformat.read(os.path.join(english, name), as_version=4).cells
                if c.metadata.get("nbgrader", {}).get("grade")}  # fmt: skip
        assert theirs == ours
        text = json.dumps(book.cells)
        assert "source.grad += slope" not in text and "stack.append((nxt" not in text
    with open(os.path.join(folder, "checkpoints", "locales", "edition"), encoding="utf-8") as f:
        assert f.read().strip() == code


@pytest.fixture(scope="module")
def demo():
    """`make demo PART=xslm` run over a course whose own class holds a part-one learner, and over
    an earlier demo's class (part one's table and a learner of its own): the demo's rows, whether
    the earlier demo's table and learner are gone, and whether the course's class (once deleted by
    this very command) is byte for byte as it was."""
    write_real_class()
    try:
        before = class_files(ROOT), gradebook_students(REAL_GRADEBOOK)
        os.makedirs(DEMO_RECORDS, exist_ok=True)  # what an earlier demo left
        with open(os.path.join(DEMO_RECORDS, "grades.csv"), "w") as f:
            f.write("student,total\nstale,39.0\n")  # part one's table, from an earlier demo
        stale = os.path.join(ROOT, "demo", "submitted", "stale", "xslm")
        os.makedirs(stale, exist_ok=True)
        shutil.copy(os.path.join(ROOT, "xslm", "engine.py"), stale)
        rows = {row[0]: row for row in classroom.demo("xslm")}
        left = [p for p in (os.path.join(DEMO_RECORDS, "grades.csv"), stale) if os.path.exists(p)]
        kept = (class_files(ROOT), gradebook_students(REAL_GRADEBOOK)) == before
    finally:
        remove_real_class()
    return {"rows": rows, "left": left, "kept": kept}


def test_make_demo_part_two(demo):
    """`make demo PART=xslm`: the correct learner scores 29 of 29, the empty one 0, and each
    catalogued mistake loses points and is named in grades-xslm.csv. demo/ is started over, and
    the course's class is as it was."""
    from grading.authoring.mistakes.part_two import MISTAKES

    rows = demo["rows"]
    assert demo["left"] == [], "an earlier demo's table or learner is still in demo/"
    assert demo["kept"], "the course's own class changed"
    everyone = {"xslm-correct", "xslm-empty"} | {
        "xslm-" + m.split(".")[1].replace("_", "-") for m in MISTAKES
    }
    assert set(rows) == everyone
    assert gradebook_students(os.path.join(DEMO_RECORDS, "gradebook.db")) == everyone
    with open(os.path.join(DEMO_RECORDS, "grades-xslm.csv"), newline="", encoding="utf-8") as f:
        tabled = [row[0] for row in csv.reader(f)][1:]
    assert sorted(tabled) == sorted(everyone)  # one row each, none twice
    assert rows["xslm-correct"][2:4] == (29.0, 29.0)
    assert rows["xslm-empty"][2] == 0.0
    for mistake in MISTAKES:
        student, scores, total, _, diagnoses = rows[
            "xslm-" + mistake.split(".")[1].replace("_", "-")
        ]
        assert total < 29.0 and mistake in diagnoses, (student, total, diagnoses)
