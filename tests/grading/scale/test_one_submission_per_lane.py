"""The quick tier's lanes (make test-quick): one correct submission graded through each lane,
plain `nbgrader autograde`, the farm (JOBS=1, warm kernels), the no-execution lane (EXECUTE=0)
and Dask (SCHEDULER=local), in a class of its own, as make autograde runs them: every lane gives
the gradebook plain nbgrader gives, cell by cell, and full marks. (The whole suite compares the
lanes on larger classes: tests/grading/scale/test_farm.py, tests/grading/test_hostile_lanes.py.)
"""

import os
import shutil
import tempfile

import pytest

from grading.authoring import course
from grading.parts import ASSIGNMENT
from tests.fixtures.helpers import in_class

pytestmark = [pytest.mark.nbgrader, pytest.mark.quick]

STUDENT = "ana"
MAX_SCORE = 39.0


def scores(where):
    """{grade_id: score} of STUDENT in the class's gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{os.path.join(where, 'records', 'gradebook.db')}") as gb:
        submission = gb.find_submission(ASSIGNMENT, STUDENT)
        return {g.name: g.score for nb in submission.notebooks for g in nb.grades}


@pytest.fixture(scope="module")
def class_folder():
    """A class every account may enter (the course user grades it): part one released into it,
    its gradebook its own, and one correct submission."""
    where = tempfile.mkdtemp(prefix="attn-lanes-")
    os.chmod(where, 0o755)
    try:
        released = course.release(into=where)
        write = f"from grading import classroom; classroom.write_submission({STUDENT!r}, " \
                f"released={released!r})"  # fmt: skip
        in_class(where, "-c", write)
        yield where
    finally:
        shutil.rmtree(where, ignore_errors=True)


@pytest.fixture(scope="module")
def plain(class_folder):
    """The plain nbgrader lane's gradebook: the baseline every other lane must give."""
    in_class(class_folder, "-m", "nbgrader", "autograde", ASSIGNMENT, "--force")
    baseline = scores(class_folder)
    assert sum(baseline.values()) == pytest.approx(MAX_SCORE)
    return baseline


LANES = {
    "farm": (["--jobs", "1"], {}),
    "noexec": (["--jobs", "1"], {"ATTENTION_EXECUTE": "0"}),
    "dask": (["--scheduler", "local"], {}),
}


@pytest.mark.parametrize("lane", list(LANES))
def test_each_lane_gives_plain_nbgraders_gradebook(class_folder, plain, lane):
    options, env = LANES[lane]
    done = in_class(class_folder, "-m", "grading", "autograde", "--force", *options, **env)
    assert "autograded 1 submission" in done.stdout, done.stdout[-2000:]
    assert scores(class_folder) == plain
