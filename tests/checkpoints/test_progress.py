"""The progress view: every checkpoint and artifact at a glance,
never stopping at the first failure.
"""

import os
import shutil
import subprocess
import sys

from checkpoints.attention.progress import progress
from grading.authoring.mistakes import BUGGY, replace_function
from grading.judge.reference import reference_source
from grading.paths import ROOT


def statuses(view):
    return {item.name: item.status for item in view.items}


def test_nothing_started(tmp_path):
    """No model.py, no outputs: all ten items are not started, and the next step is softmax."""
    view = progress(str(tmp_path / "model.py"), str(tmp_path / "outputs"))
    assert set(statuses(view).values()) == {"not started"} and len(view.items) == 10
    assert view.next_step() == "next: start softmax in 01-softmax.ipynb"


def test_a_wrong_softmax_fails_with_its_diagnosis_and_the_rest_still_counts(tmp_path):
    """A wrong softmax fails (named), the later steps are still checked,
    missing artifacts are not started.
    """
    (tmp_path / "model.py").write_text(
        replace_function(reference_source(), "softmax", BUGGY["softmax.no_max_shift"][1])
    )
    view = progress(str(tmp_path / "model.py"), str(tmp_path / "outputs"))
    got = statuses(view)
    assert (
        got["softmax"] == "fails"
        and got["layer_norm"] == "holds"
        and got["pos_encoding"] == "holds"
    )
    assert got["08-notes.md"] == "not started"
    softmax = view.items[0]
    assert "exp without subtracting the max" in softmax.detail
    assert view.next_step() == "next: fix softmax in 01-softmax.ipynb"
    assert "✗ softmax" in repr(view) and "<table>" in view._repr_html_()


def test_terminal_command(tmp_path):
    """`python -m checkpoints progress` in a finished workspace says every item holds."""
    shutil.copy(os.path.join(ROOT, "model.py"), tmp_path / "model.py")
    shutil.copytree(os.path.join(ROOT, "outputs"), tmp_path / "outputs")
    done = subprocess.run(
        [sys.executable, "-m", "checkpoints", "progress"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    assert done.returncode == 0, done.stderr
    assert "progress: 10 of 10 hold" in done.stdout and "you are done" in done.stdout
