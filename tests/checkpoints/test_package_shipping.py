"""The checkpoints package is a real folder at the top of the repository, and each part's student
edition, each submission and each workspace get their share of it from there (no links: nbgrader
and Windows checkouts follow none)."""

import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from grading.authoring import course, masters
from grading.nbgrader import intake
from grading.parts import ASSIGNMENT, PARTS, XSLM
from grading.paths import LEARNER_PACKAGE, ROOT

pytestmark = pytest.mark.nbgrader

TRACKED_FOLDERS = ("checkpoints", "notebooks", "grading", "lite", "tests", "docs", "bench", "xslm")


def files_under(folder):
    """Every file below folder, as paths relative to it."""
    return {
        os.path.relpath(os.path.join(here, name), folder)
        for here, _, names in os.walk(folder)
        for name in names
    }


def test_the_repository_holds_no_symbolic_link():
    """checkpoints/ is the package itself; no folder of the course is a link to another."""
    links = [
        os.path.relpath(os.path.join(here, name), ROOT)
        for top in TRACKED_FOLDERS
        for here, dirs, files in os.walk(os.path.join(ROOT, top))
        for name in dirs + files
        if os.path.islink(os.path.join(here, name))
    ]
    assert os.path.isfile(os.path.join(LEARNER_PACKAGE, "__init__.py")) and not links


@pytest.mark.parametrize("part", [ASSIGNMENT, XSLM])
def test_each_release_ships_its_own_share_of_the_package(part, tmp_path):
    """release/<part>/checkpoints: the whole package but the other part's checks and table (a
    release made into a folder of the test's own: byte for byte the course's, test_release.py)."""
    released = course.release(assignment=part, into=str(tmp_path))
    shipped = files_under(os.path.join(released, "checkpoints"))
    whole = {p for p in files_under(LEARNER_PACKAGE) if "__pycache__" not in p}
    left_out = {
        p
        for p in whole
        if any(p.split(os.sep)[0] == name for name in PARTS[part].package_leaves_out)
    }
    assert left_out and shipped == whole - left_out
    table = {
        ASSIGNMENT: os.path.join("attention", "fingerprints.json"),
        XSLM: os.path.join("xslm", "answers.json"),
    }
    other = {ASSIGNMENT: XSLM, XSLM: ASSIGNMENT}[part]
    assert table[part] in shipped and table[other] not in shipped


def test_part_two_works_from_a_package_without_part_one(tmp_path):
    """Part two's release has no checkpoints/attention/: its checkpoints import and save all the
    same, and part one's names are simply absent from the package."""
    folder = course.release(assignment=XSLM, into=str(tmp_path))
    probe = (
        "import checkpoints\n"
        "from checkpoints.xslm import check, ensure_files, hand_in, save\n"
        "ensure_files()\n"
        "import os\n"
        "print(hasattr(checkpoints, 'save'), checkpoints.edition(), sorted(os.listdir()))\n"
        "print(os.path.dirname(checkpoints.__file__) == os.path.abspath('checkpoints'))"
    )
    with tempfile.TemporaryDirectory() as work:
        shutil.copytree(os.path.join(folder, "checkpoints"), os.path.join(work, "checkpoints"))
        done = subprocess.run(
            [sys.executable, "-c", probe], cwd=work, capture_output=True, text=True
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["False en ['checkpoints', 'engine.py']", "True"]


def test_a_korean_release_of_part_two_speaks_korean(tmp_path):
    """The edition file goes into the package an edition's release ships, English ships none."""
    folder = course.release("ko", XSLM, into=str(tmp_path / "ko"))
    with open(os.path.join(folder, "checkpoints", "locales", "edition"), encoding="utf-8") as f:
        assert f.read().strip() == "ko"
    english = course.release(assignment=XSLM, into=str(tmp_path / "en"))
    english = os.path.join(english, "checkpoints", "locales", "edition")
    assert not os.path.exists(english)


def test_each_part_of_a_workspace_has_its_folder_and_the_package_of_the_parts_it_holds(tmp_path):
    """Part one, then part two, in one workspace: each in its own folder; part one's package
    gains part two's subpackage once part two is there (so its progress view shows both), and
    part one's files are untouched by part two's."""
    work = str(tmp_path / "ws")
    part_one = course.workspace(work)
    assert part_one == os.path.join(work, "part-1-attention")
    assert os.path.isfile(os.path.join(part_one, "checkpoints", "attention", "fingerprints.json"))
    assert not os.path.exists(os.path.join(part_one, "checkpoints", "xslm"))
    with open(os.path.join(part_one, "model.py"), "a", encoding="utf-8") as f:
        f.write("# mine\n")
    part_two = course.workspace(work, assignment=XSLM)
    assert part_two == os.path.join(work, "part-2-gpt")
    assert sorted(os.listdir(work)) == ["part-1-attention", "part-2-gpt"]
    for folder in (part_one, part_two):
        package = os.path.join(folder, "checkpoints")
        assert os.path.isfile(os.path.join(package, "attention", "fingerprints.json"))
        assert os.path.isfile(os.path.join(package, "xslm", "answers.json"))
        assert not os.path.exists(os.path.join(package, "xslm", "__pycache__"))
    assert os.path.isfile(os.path.join(part_two, "engine.py"))
    assert not os.path.exists(os.path.join(part_two, "model.py"))
    with open(os.path.join(part_one, "model.py"), encoding="utf-8") as f:
        assert f.read().endswith("# mine\n")


def test_intake_replaces_the_learners_copy_of_the_package(tmp_path):
    """A submission's checkpoints/ (edited, or missing a file) is replaced by the course's."""
    folder = tmp_path / "submitted" / "ada" / ASSIGNMENT
    masters.install_package(str(folder), XSLM)  # the wrong part's share, then edited
    compare = folder / "checkpoints" / "compare.py"
    compare.write_text("def first_difference(*args):\n    return None\n", encoding="utf-8")
    intake.intake(str(folder), ASSIGNMENT)
    with open(os.path.join(LEARNER_PACKAGE, "compare.py"), encoding="utf-8") as f:
        assert compare.read_text(encoding="utf-8") == f.read()
    assert (folder / "checkpoints" / "attention" / "fingerprints.json").is_file()
    assert not (folder / "checkpoints" / "xslm").exists()
