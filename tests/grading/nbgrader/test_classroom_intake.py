"""Issue 3: broken submissions get a clear message and their partial score;
others are graded; reruns agree.
"""

import os
import shutil

import nbformat
import pytest

from grading import classroom
from grading.authoring import course
from grading.authoring.mistakes import BUGGY, replace_function

pytestmark = pytest.mark.nbgrader

# Never returns; it sleeps rather than spins, so that its cell's 30 s timeout (and the judge's
# own) cost the suite's other tests no CPU. The timeouts are on wall time: the same path either way.
LOOPING_LAYER_NORM = """
def layer_norm(row, eps=1e-5):
    import time
    while True:
        time.sleep(1)
"""


def folder(student):
    return os.path.join(classroom.SUBMITTED, student, "attention")


def damage(student, how):
    classroom.write_submission(student)
    path = folder(student)
    if how == "missing-notebook":
        os.remove(os.path.join(path, "07-block.ipynb"))
    elif how == "renamed-notebook":
        os.rename(
            os.path.join(path, "03-causal-mask.ipynb"),
            os.path.join(path, "03-causal-mask (1).ipynb"),
        )
    elif how == "invalid-json":
        with open(os.path.join(path, "06-layer-norm.ipynb"), "w") as f:
            f.write('{"cells": [ this is not json')
    elif how == "syntax-error":
        model = os.path.join(path, "model.py")
        text = (
            open(model)
            .read()
            .replace("    N = [layer_norm(row) for row in X]", "    N = [layer_norm(row) for", 1)
        )
        with open(model, "w") as f:
            f.write(text)
    elif how == "shadows-grading":
        # a wrong layer_norm plus a fake grading package that would pass everything
        # if it were imported
        model = os.path.join(path, "model.py")
        function, code = BUGGY["layer_norm.unbiased_variance"]
        text = replace_function(open(model).read(), function, code)
        with open(model, "w") as f:
            f.write(text)
        os.makedirs(os.path.join(path, "grading", "judge"))
        for name in ("__init__.py", "judge/__init__.py", "judge/isolation.py"):
            open(os.path.join(path, "grading", name), "w").write(
                "def underlay(model, checkpoint):\n    return model\n"
            )
        open(os.path.join(path, "grading", "judge", "attention_hidden.py"), "w").write(
            "def grade(name):\n    print('all good')\n"
        )
    elif how == "dead-kernel":  # the kernel dies early in notebook 1: nothing may be lost
        add_cell(path, "01-softmax.ipynb", "import os\nos._exit(0)")
    elif how == "stray-metadata":  # a learner cell carrying nbgrader grade metadata of its own
        add_cell(
            path,
            "01-softmax.ipynb",
            "print('mine')",
            {
                "grade": True,
                "grade_id": "my-own",
                "points": 5,
                "locked": False,
                "solution": False,
                "schema_version": 3,
            },
        )
    elif how == "infinite-loop":
        model = os.path.join(path, "model.py")
        text = replace_function(open(model).read(), "layer_norm", LOOPING_LAYER_NORM)
        with open(model, "w") as f:
            f.write(text)


def add_cell(path, notebook, source, nbgrader=None):
    book = nbformat.read(os.path.join(path, notebook), 4)
    cell = nbformat.v4.new_code_cell(source)
    if nbgrader:
        cell.metadata["nbgrader"] = nbgrader
    book.cells.insert(2, cell)
    nbformat.write(book, os.path.join(path, notebook))


# student -> the cells the damage must cost (derived from which notebook or section it touches)
EXPECTED_LOST = {
    "complete": set(),
    "missing-notebook": {"step07-block-checks", "step07-block-hidden"},
    "renamed-notebook": set(),
    "invalid-json": {"step06-layer-norm-checks", "step06-layer-norm-hidden"},
    "syntax-error": {"step07-block-checks", "step07-block-hidden"},
    "infinite-loop": {"step06-layer-norm-checks", "step06-layer-norm-hidden"},
    "shadows-grading": {"step06-layer-norm-checks", "step06-layer-norm-hidden"},
    "dead-kernel": set(),
    "stray-metadata": set(),
}
EXPECTED_PROBLEM = {
    "missing-notebook": "07-block.ipynb is missing",
    "renamed-notebook": "'03-causal-mask (1).ipynb' graded as 03-causal-mask.ipynb",
    "invalid-json": "06-layer-norm.ipynb is not a readable notebook",
    "dead-kernel": "01-softmax: the kernel stopped",
    "stray-metadata": "01-softmax: a cell with an unknown grading id",
    "syntax-error": "model.py: the block section does not parse",
}


@pytest.fixture(scope="module")
def graded():
    shutil.rmtree(classroom.JUDGED, ignore_errors=True)
    if os.path.exists(os.path.join(classroom.ROOT, "records", "gradebook.db")):
        os.remove(os.path.join(classroom.ROOT, "records", "gradebook.db"))
    course.release()  # registers the assignment in the new gradebook
    shutil.rmtree(classroom.SUBMITTED, ignore_errors=True)
    for student in EXPECTED_LOST:
        damage(student, student)
    classroom.autograde()
    first = {row[0]: row for row in classroom.grade_table()}
    problems = {student: classroom.problems_of(student) for student in EXPECTED_LOST}
    classroom.autograde(["renamed-notebook", "invalid-json", "complete"])
    second = {row[0]: row for row in classroom.grade_table()}
    again = {student: classroom.problems_of(student) for student in EXPECTED_LOST}
    assert again == problems, "a rerun must report the same problems"
    return first, second, problems


@pytest.mark.parametrize("student", sorted(EXPECTED_LOST))
def test_damage_costs_only_what_it_touches(graded, student):
    """Each broken submission is graded, and loses exactly the cells its damage reaches."""
    first, _, _ = graded
    _, scores, total, top, _ = first[student]
    assert top > 0
    assert {gid for gid, score in scores.items() if score == 0} == EXPECTED_LOST[student]


@pytest.mark.parametrize("student", sorted(EXPECTED_PROBLEM))
def test_file_problems_are_reported_in_plain_words(graded, student):
    """The instructor is told what was wrong with the files."""
    _, _, problems = graded
    assert any(EXPECTED_PROBLEM[student] in p for p in problems[student]), problems[student]
    assert all("nbgrader could not grade" not in p for p in problems[student])


def test_nothing_is_lost(graded):
    """The unreadable notebook is kept beside the submission,
    and the renamed one stays where it was.
    """
    assert os.path.exists(os.path.join(folder("invalid-json"), "06-layer-norm.ipynb.unreadable"))
    assert os.path.exists(os.path.join(folder("renamed-notebook"), "03-causal-mask (1).ipynb"))


def test_autograding_again_gives_the_same_gradebook(graded):
    """A second autograde of the trickiest submissions leaves their scores unchanged."""
    first, second, _ = graded
    for student in ("renamed-notebook", "invalid-json", "complete"):
        assert first[student][1:4] == second[student][1:4]
