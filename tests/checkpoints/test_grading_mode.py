"""While nbgrader autogrades, a graded cell's output is the judge's verdict (JudgeCells replaces
it), so `check()` and `check_artifact()` of both parts leave the work to the judge: one line each,
and no learner file is loaded. Anywhere else (the lab, the site, `nbgrader validate`) they check."""

import pytest

import checkpoints
from checkpoints import xslm
from checkpoints.attention.artifacts import SCALE_FILE
from checkpoints.xslm.artifacts import LOSS_FILE

LINE = "(grading: the grader checks"


def refuse(*args, **kwargs):
    raise AssertionError("a learner file was loaded while grading")


@pytest.fixture
def grading(tmp_path, monkeypatch):
    """An empty folder, as nbgrader's autograde runs the kernel."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    return monkeypatch


def test_part_one_leaves_its_checks_to_the_judge(grading, capsys):
    grading.setattr("checkpoints.attention.load_model", refuse)
    checkpoints.check("softmax")
    checkpoints.check_artifact(SCALE_FILE)
    said = capsys.readouterr().out
    assert said.count(LINE) == 2 and "softmax" in said and SCALE_FILE in said, said
    assert "✗" not in said


def test_part_two_leaves_its_checks_to_the_judge(grading, capsys):
    grading.setattr("checkpoints.xslm.load_learner", refuse)
    xslm.check("Value")
    xslm.check_artifact(LOSS_FILE)
    said = capsys.readouterr().out
    assert said.count(LINE) == 2 and "Value" in said and LOSS_FILE in said, said
    with pytest.raises(ValueError):  # a name that is no artifact is still refused at once
        xslm.check_artifact("nothing.txt")


def test_validate_still_checks(grading, capsys):
    """`nbgrader validate`, run by a learner, sees the checkpoint fail (there is no model.py)."""
    grading.setenv("NBGRADER_EXECUTION", "validate")
    with pytest.raises(checkpoints.CheckpointFailed):
        checkpoints.check("softmax")
    assert LINE not in capsys.readouterr().out
