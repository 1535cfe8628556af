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


@pytest.mark.parametrize(
    ("loader", "check", "check_artifact", "name", "artifact"),
    [
        ("checkpoints.attention.load_model", checkpoints.check, checkpoints.check_artifact,
         "softmax", SCALE_FILE),
        ("checkpoints.xslm.load_learner", xslm.check, xslm.check_artifact, "Value", LOSS_FILE),
    ],
    ids=["attention", "xslm"],
)  # fmt: skip
def test_each_part_leaves_its_checks_to_the_judge(
    grading, capsys, loader, check, check_artifact, name, artifact
):
    grading.setattr(loader, refuse)
    check(name)
    check_artifact(artifact)
    said = capsys.readouterr().out
    assert said.count(LINE) == 2 and name in said and artifact in said, said
    assert "✗" not in said


def test_an_unknown_artifact_is_still_refused_at_once(grading):
    with pytest.raises(ValueError):
        xslm.check_artifact("nothing.txt")


def test_validate_still_checks(grading, capsys):
    """`nbgrader validate`, run by a learner, sees the checkpoint fail (there is no model.py)."""
    grading.setenv("NBGRADER_EXECUTION", "validate")
    with pytest.raises(checkpoints.CheckpointFailed):
        checkpoints.check("softmax")
    assert LINE not in capsys.readouterr().out
