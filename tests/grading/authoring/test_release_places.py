"""Where a student edition is made: release/ and release-<code>/ are the course's, written by
`make release` and registered in its gradebook; a release into a folder of its own, a workspace
(make lab's, make site's) and a test's copy are byte for byte the same and leave those alone.
(What a release holds: tests/grading/authoring/test_release.py.)"""

import os

import pytest

from grading.authoring import course
from grading.parts import ASSIGNMENT
from grading.paths import ROOT

pytestmark = pytest.mark.nbgrader


def folder_bytes(top):
    """{path relative to top: bytes} of every file under top."""
    found = {}
    for here, _, names in os.walk(top):
        for name in names:
            with open(os.path.join(here, name), "rb") as f:
                found[os.path.relpath(os.path.join(here, name), top)] = f.read()
    return found


@pytest.mark.parametrize("edition", ["en", "ko"])
def test_a_release_into_a_folder_of_its_own_is_the_release_and_touches_no_class(edition, tmp_path):
    """release(into=...) makes, in that folder, byte for byte the course's student edition,
    registered (English) in that folder's own gradebook, and leaves the course's release and
    gradebook as they were: a test that only needs the notebooks (the headless mistakes), or a
    class of its own (the site's learner), runs beside the tests that grade."""
    from nbgrader.api import Gradebook

    made = course.release(edition)
    gradebook = os.path.join(ROOT, "records", "gradebook.db")
    before = folder_bytes(made), os.stat(made).st_mtime_ns, os.stat(gradebook).st_mtime_ns
    into = course.release(edition, into=str(tmp_path / "own"))
    assert into == str(tmp_path / "own" / ASSIGNMENT)
    assert folder_bytes(into) == before[0] and len(before[0]) > 8
    assert (folder_bytes(made), os.stat(made).st_mtime_ns) == before[:2]
    assert os.stat(gradebook).st_mtime_ns == before[2]
    assert sorted(os.listdir(tmp_path / "own")) == [ASSIGNMENT, "exchange", "records"]
    own = tmp_path / "own" / "records" / "gradebook.db"
    if edition == "en":
        with Gradebook(f"sqlite:///{own}") as gb:
            cells = gb.find_assignment(ASSIGNMENT).max_score
        assert cells == pytest.approx(39)
    else:  # another edition's graded cells are the English ones: registered with English only
        assert not own.exists()
    unregistered = course.release(edition, into=str(tmp_path / "read-only"), register=False)
    assert folder_bytes(unregistered) == before[0]  # a workspace's copy: the same, in no gradebook
    assert not (tmp_path / "read-only" / "records" / "gradebook.db").exists()


def test_a_workspace_leaves_the_courses_release_and_gradebook_as_they_are(tmp_path):
    """make lab and make site prepare workspaces from a student edition made for them: the course's
    release/ and its gradebook, the instructor's, keep their bytes and times, and the workspace's
    notebooks are the release's byte for byte."""
    made = course.release()
    gradebook = os.path.join(ROOT, "records", "gradebook.db")
    before = folder_bytes(made), os.stat(made).st_mtime_ns, os.stat(gradebook).st_mtime_ns
    here = course.workspace(str(tmp_path / "ws"))
    assert (folder_bytes(made), os.stat(made).st_mtime_ns) == before[:2]
    assert os.stat(gradebook).st_mtime_ns == before[2]
    notebooks = {n: b for n, b in before[0].items() if n.endswith(".ipynb")}
    assert len(notebooks) == 8
    assert {n: b for n, b in folder_bytes(here).items() if n in notebooks} == notebooks
