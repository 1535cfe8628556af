"""A course cell never raises for what a learner's code or files cause: it says it in one line
and the notebook goes on (docs/learners.md). Here: an artifact's check when the function it needs
crashes and an older artifact is on disk, in both parts and every edition."""

import os
import re
import shutil

import pytest

import checkpoints
from checkpoints import i18n
from checkpoints import xslm as part_two
from checkpoints.xslm import artifacts as xslm_artifacts
from grading.paths import ROOT, XSLM_REFERENCE

EDITIONS = ["en", "ko", "ja"]
CRASH = "    return [][0]  # a learner's slip: an index past the end\n"


def crashing(text, function):
    """text with function made to raise IndexError at its first line."""
    changed, count = re.subn(rf"(^def {function}\(.*\):\n)", rf"\1{CRASH}", text, count=1,
                             flags=re.MULTILINE)  # fmt: skip
    assert count == 1, function
    return changed


@pytest.fixture
def edition(request, monkeypatch):
    """The learner's edition for one test, set back after it."""
    before = i18n.edition()
    i18n.use_edition(request.param)
    yield request.param
    i18n.use_edition(before)


@pytest.mark.parametrize("edition", EDITIONS, indirect=True)
def test_an_artifact_whose_function_crashes_is_one_line(tmp_path, monkeypatch, capsys, edition):
    """attention raises and an older outputs/02-scale.txt exists: check_artifact prints one ✗
    line naming the error and where in model.py, and returns."""
    monkeypatch.chdir(tmp_path)
    with open(os.path.join(ROOT, "model.py"), encoding="utf-8") as f:
        (tmp_path / "model.py").write_text(crashing(f.read(), "attention"), encoding="utf-8")
    os.makedirs(tmp_path / "outputs")
    shutil.copy(os.path.join(ROOT, "outputs", "02-scale.txt"), tmp_path / "outputs")
    checkpoints.check_artifact("02-scale.txt")
    said = capsys.readouterr().out.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("✗ 02-scale.txt: "), said
    assert "IndexError: list index out of range" in said[0] and "model.py" in said[0], said


@pytest.mark.parametrize("edition", EDITIONS, indirect=True)
def test_a_part_two_artifact_whose_function_crashes_is_one_line(
    tmp_path, monkeypatch, capsys, edition
):
    """generate raises and older samples exist: part two's check_artifact prints one ✗ line."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(os.path.join(XSLM_REFERENCE, "engine.py"), tmp_path)
    with open(os.path.join(XSLM_REFERENCE, "gpt.py"), encoding="utf-8") as f:
        (tmp_path / "gpt.py").write_text(crashing(f.read(), "generate"), encoding="utf-8")
    os.makedirs(tmp_path / "outputs")
    for name in (xslm_artifacts.SAMPLES_FILE, xslm_artifacts.WEIGHTS_FILE):
        shutil.copy(os.path.join(ROOT, "outputs", name), tmp_path / "outputs")
    part_two.check_artifact(xslm_artifacts.SAMPLES_FILE)
    said = capsys.readouterr().out.strip().splitlines()
    assert len(said) == 1 and said[0].startswith(f"✗ {xslm_artifacts.SAMPLES_FILE}: "), said
    assert "IndexError" in said[0] and "gpt.py" in said[0], said
