"""Issue 3: the demo class through release → submit → autograde → feedback → export,
scores derived per mistake; issue 21: all of it in demo/, the course's own class untouched.
"""

import csv
import os

import pytest

from checkpoints.attention.catalogue import BY_NAME
from checkpoints.attention.modelfile import step_number
from grading import classroom
from grading.paths import ROOT
from tests.fixtures.helpers import (
    REAL_STUDENT,
    class_files,
    gradebook_students,
    remove_real_class,
    write_real_class,
)
from tests.grading.authoring.test_release import reference_body_lines

pytestmark = pytest.mark.nbgrader


@pytest.fixture(scope="module")
def real_class():
    """The course holds a real class (a learner's submission, a gradebook naming them) while the
    demo runs: {path: bytes} of it and the gradebook's students, before the demo."""
    write_real_class()
    yield class_files(ROOT), gradebook_students(os.path.join(ROOT, "records", "gradebook.db"))
    remove_real_class()


@pytest.fixture(scope="module")
def table(real_class):
    classroom.demo()
    with open(os.path.join(classroom.DEMO, "records", "grades.csv")) as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def test_demo_leaves_the_course_class_alone(real_class, table):
    """make demo grades its class in demo/: the course's submissions, results, gradebook and
    tables are byte for byte as they were, and no demo student is in the course's gradebook."""
    files, students = real_class
    assert REAL_STUDENT in students and f"submitted/{REAL_STUDENT}/attention/model.py" in files
    after = class_files(ROOT)
    changed = sorted(p for p in files.keys() | after.keys() if files.get(p) != after.get(p))
    assert changed == []
    assert gradebook_students(os.path.join(ROOT, "records", "gradebook.db")) == students
    assert REAL_STUDENT not in table
    demo_students = gradebook_students(os.path.join(classroom.DEMO, "records", "gradebook.db"))
    assert demo_students == set(table) and REAL_STUDENT not in demo_students


# Without the √d_k division the √d experiment measures nothing: its artifact fails too.
ARTIFACTS_IT_SPOILS = {"no-sqrt-d": {"step02-scale-artifact"}}


def lost(row):
    return {c for c, v in row.items() if c.startswith("step") and float(v) == 0.0}


def step_of(checkpoint):
    return f"step{step_number(checkpoint):02d}-"


def test_correct_gets_full_marks_and_empty_gets_zero(table):
    """The complete submission scores the maximum; the untouched student edition scores 0."""
    assert float(table["correct"]["total"]) == float(table["correct"]["max"]) > 0
    assert float(table["empty"]["total"]) == 0.0


@pytest.mark.parametrize("student", sorted(classroom.DEMO_MISTAKES))
def test_each_mistake_costs_exactly_its_own_checkpoint(table, student):
    """A submission with one mistake loses that checkpoint's visible and hidden cells,
    nothing else.
    """
    mistake = BY_NAME[classroom.DEMO_MISTAKES[student]]
    prefix = step_of(mistake.checkpoint)
    own = {
        prefix + mistake.checkpoint.replace("_", "-") + "-checks",
        prefix + mistake.checkpoint.replace("_", "-") + "-hidden",
    }
    assert lost(table[student]) == own | ARTIFACTS_IT_SPOILS.get(student, set())
    assert mistake.name in table[student]["diagnosis"]


def test_half_finished_keeps_the_first_four_steps(table):
    """Steps 1-4 done: their cells score, the rest (and the artifacts) do not."""
    gone = lost(table["half-finished"])
    assert not any(c.startswith(("step01", "step03", "step04")) for c in gone)
    assert {"step05-pos-encoding-hidden", "step06-layer-norm-hidden", "step07-block-hidden"} <= gone


def test_feedback_shows_results_but_no_reference(table):
    """The feedback HTML carries the diagnosis and hints,
    and no line of the reference implementation.
    """
    path = os.path.join(classroom.DEMO, "feedback", "no-sqrt-d", "attention", "02-attention.html")
    text = open(path, encoding="utf-8").read()
    assert "looks like: no √d_k scaling" in text
    import html

    leaked = [line for line in reference_body_lines() if html.escape(line) in text or line in text]
    assert leaked == []


def test_demo_students_have_names_in_the_gradebook(table):
    """The formgrader lists people: every demo student has a first and a last name."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{os.path.join(classroom.DEMO, 'records', 'gradebook.db')}") as gb:
        named = {s.id: (s.first_name, s.last_name) for s in gb.students}
    assert all(named[student][0] and named[student][1] for student in table)
