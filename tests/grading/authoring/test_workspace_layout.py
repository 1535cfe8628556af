"""`make lab`'s workspace: a folder per part, and a workspace of the older flat layout moved
into them, every move said, nothing the learner wrote overwritten (grading/authoring/course.py)."""

import os
import shutil

import pytest

from grading.authoring import course
from grading.parts import PARTS, XSLM

pytestmark = pytest.mark.slow  # every test releases both parts: make test, not make test-quick
PART_ONE, PART_TWO = PARTS["attention"].folder, PARTS[XSLM].folder
TAKEN = "05-positional-encoding.ipynb"  # a notebook whose place in part-1-attention/ is taken


def flat_workspace(folder):
    """A workspace as `make lab` made it before the part folders: both parts' student editions
    at its top, one checkpoints/ for both."""
    released = folder + "-released"
    for part in PARTS:
        made = course.release(assignment=part, into=released)
        shutil.copytree(made, folder, dirs_exist_ok=True)
    return folder


def write(path, text):
    """text into path, its folder made first."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def read(path):
    """The text at path."""
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_a_flat_workspace_moves_into_its_part_folders_saying_each_move(tmp_path, capsys):
    """The learner's notebooks, Jupyter's checkpoints of them, model.py, engine.py, each part's
    artifacts and its hand-in zip move to their part's folder, each move printed; a file whose
    place is taken stays, said; a file of the learner's own stays at the top; the old shared
    checkpoints/ goes. A second make lab moves and says nothing more."""
    ws = flat_workspace(str(tmp_path / "ws"))
    mine = {
        "01-softmax.ipynb": '{"my": "softmax notebook"}',
        ".ipynb_checkpoints/01-softmax-checkpoint.ipynb": '{"my": "saved checkpoint"}',
        "model.py": "# my model\n",
        "outputs/02-scale.txt": "my scale table\n",
        "outputs/xslm-loss.txt": "my losses\n",
        "engine.py": "# my engine\n",
        "hand-in-attention.zip": "my zip",
        "scratch.ipynb": '{"my": "own notebook"}',
        "outputs/my-plot.txt": "my own output\n",
        TAKEN: '{"older": "copy"}',  # and it has a newer copy in part-1-attention/
    }
    for rel, text in mine.items():
        write(os.path.join(ws, rel), text)
    write(os.path.join(ws, PART_ONE, TAKEN), '{"newer": "copy"}')
    capsys.readouterr()

    here = course.workspace(ws)
    said = capsys.readouterr().out
    assert here == os.path.join(ws, PART_ONE)
    moved = {
        "01-softmax.ipynb": PART_ONE,
        ".ipynb_checkpoints/01-softmax-checkpoint.ipynb": PART_ONE,
        "model.py": PART_ONE,
        "outputs/02-scale.txt": PART_ONE,
        "hand-in-attention.zip": PART_ONE,
        "outputs/xslm-loss.txt": PART_TWO,
        "engine.py": PART_TWO,
    }
    for rel, folder in moved.items():
        assert read(os.path.join(ws, folder, rel)) == mine[rel], rel
        assert not os.path.exists(os.path.join(ws, rel)), rel
        assert f"moved {rel} -> {folder}/{rel}" in said
    assert read(os.path.join(ws, TAKEN)) == mine[TAKEN]
    assert read(os.path.join(ws, PART_ONE, TAKEN)) == '{"newer": "copy"}'
    assert f"left {TAKEN} where it is: {PART_ONE}/{TAKEN} already exists" in said
    for rel in ("scratch.ipynb", "outputs/my-plot.txt"):  # not the course's: they stay
        assert read(os.path.join(ws, rel)) == mine[rel]
    assert not os.path.exists(os.path.join(ws, "checkpoints"))
    # part two's notebooks that were never edited moved too, and part one's package is fresh
    assert os.path.isfile(os.path.join(ws, PART_TWO, "01-engine.ipynb"))
    assert os.path.isfile(os.path.join(here, "checkpoints", "attention", "fingerprints.json"))
    assert "your 5 part-two notebooks are untouched" in said

    # part two's folder got the package its notebooks import, and both folders see both parts
    for folder in (PART_ONE, PART_TWO):
        package = os.path.join(ws, folder, "checkpoints")
        assert os.path.isfile(os.path.join(package, "xslm", "answers.json")), folder
        assert os.path.isfile(os.path.join(package, "attention", "fingerprints.json")), folder

    course.workspace(ws)
    again = capsys.readouterr().out
    assert "moved" not in again and "left" not in again  # said once, at the move
    assert read(os.path.join(ws, TAKEN)) == mine[TAKEN]


def test_a_new_workspace_has_a_folder_per_part_and_says_where(tmp_path, capsys):
    """A fresh workspace of part two has part-2-gpt/ alone, its stub engine.py, and the command
    names that folder."""
    ws = str(tmp_path / "ws")
    here = course.workspace(ws, assignment=XSLM)
    assert os.listdir(ws) == [PART_TWO] and here == os.path.join(ws, PART_TWO)
    assert os.path.isfile(os.path.join(here, "engine.py"))
    assert f"{PART_TWO}/: added 5 part-two notebooks" in capsys.readouterr().out


def test_a_korean_flat_workspace_keeps_its_edition_in_each_part_folder(tmp_path):
    """A flat workspace of the Korean edition: the package part two's moved notebooks get
    speaks Korean, as the old one did."""
    ws = flat_workspace(str(tmp_path / "ws"))
    write(os.path.join(ws, "checkpoints", "locales", "edition"), "ko\n")
    course.workspace(ws, edition="ko")
    for folder in (PART_ONE, PART_TWO):
        assert read(os.path.join(ws, folder, "checkpoints", "locales", "edition")).strip() == "ko"


def test_a_folder_make_lab_did_not_make_is_left_alone(tmp_path):
    """WORKSPACE pointed at another project's folder, with a model.py and a checkpoints/ of its
    own: nothing of it moves or goes; the part's folder is added beside them."""
    ws = str(tmp_path / "project")
    theirs = {"model.py": "# their model\n", "checkpoints/epoch-3.pt": "weights",
              "01-softmax.ipynb": '{"their": "notebook"}'}  # fmt: skip
    for rel, text in theirs.items():
        write(os.path.join(ws, rel), text)
    here = course.workspace(ws)
    for rel, text in theirs.items():
        assert read(os.path.join(ws, rel)) == text, rel
    assert sorted(os.listdir(ws)) == ["01-softmax.ipynb", "checkpoints", "model.py", PART_ONE]
    assert read(os.path.join(here, "model.py")) != theirs["model.py"]
