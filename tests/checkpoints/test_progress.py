"""The progress view: every part's checkpoints and artifacts at a glance, never stopping at the
first failure, and never "done" while a part the learner holds is open.
"""

import os
import shutil
import subprocess
import sys

import pytest

from checkpoints import overview
from checkpoints.attention.status import part_progress
from checkpoints.xslm import status as part_two
from grading.authoring import course
from grading.authoring.mistakes import BUGGY, replace_function
from grading.authoring.mistakes.part_two import buggy_texts
from grading.judge.reference import reference_source
from grading.parts import XSLM
from grading.paths import ROOT


def statuses(view):
    return {item.name: item.status for item in view.items}


def finished_part_one(folder):
    """A workspace with part one's reference model.py and artifacts."""
    shutil.copy(os.path.join(ROOT, "model.py"), folder / "model.py")
    os.makedirs(folder / "outputs", exist_ok=True)
    for name in ("02-scale.txt", "05-perm.txt", "08-notes.md"):
        shutil.copy(os.path.join(ROOT, "outputs", name), folder / "outputs" / name)


def terminal(folder, package_root=ROOT):
    """`python -m checkpoints progress` run in folder, with the package at package_root."""
    done = subprocess.run(
        [sys.executable, "-m", "checkpoints", "progress"],
        cwd=folder,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=package_root),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_nothing_started(tmp_path):
    """No files, no outputs: both parts' twenty items are not started; next is softmax."""
    view = overview.progress(str(tmp_path))
    assert [len(part.items) for part in view.parts] == [10, 10]
    assert set(statuses(view).values()) == {"not started"}
    assert view.next_step() == "next: start softmax in 01-softmax.ipynb"


def test_a_wrong_softmax_fails_with_its_diagnosis_and_the_rest_still_counts(tmp_path):
    """A wrong softmax fails (named), the later steps are still checked,
    missing artifacts are not started.
    """
    (tmp_path / "model.py").write_text(
        replace_function(reference_source(), "softmax", BUGGY["softmax.no_max_shift"][1])
    )
    view = overview.Progress((part_progress(str(tmp_path)),))
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


def test_part_two_names_its_mistake_and_waits_for_gpt_py(tmp_path):
    """engine.py without zeroing: Value fails, named; the layers hold; gpt.py's checkpoints wait."""
    (tmp_path / "engine.py").write_text(buggy_texts("engine.no_zeroing")["engine.py"])
    got = {i.name: i for i in part_two.part_progress(str(tmp_path)).items}
    assert got["Value"].status == "fails" and "looks like" in got["Value"].detail
    assert {got[n].status for n in ("softmax", "linear", "norm")} == {"holds"}
    assert {got[n].status for n in ("GPT", "loss", "train_step", "generate")} == {"not started"}
    assert got["Value"].notebook == "01-engine.ipynb" and got["GPT"].notebook == "03-gpt.ipynb"


def test_a_gpt_py_that_raises_while_loading_fails_its_checkpoints_and_keeps_the_engines(tmp_path):
    """gpt.py that raises at import: its four checkpoints fail saying so; engine's still hold."""
    shutil.copy(os.path.join(ROOT, "xslm", "engine.py"), tmp_path / "engine.py")
    with open(os.path.join(ROOT, "xslm", "gpt.py"), encoding="utf-8") as f:
        (tmp_path / "gpt.py").write_text(f.read() + "\nraise RuntimeError('mine')\n")
    got = {i.name: i for i in part_two.part_progress(str(tmp_path)).items}
    assert got["Value"].status == "holds"
    assert got["GPT"].status == "fails" and "RuntimeError: mine" in got["GPT"].detail


def test_part_one_is_not_done_while_part_two_is_open(tmp_path):
    """`python -m checkpoints progress`: part one finished, part two not started, so the view says
    what to start next; with part two finished too, the learner is done."""
    finished_part_one(tmp_path)
    said = terminal(tmp_path)
    assert "part one, attention: 10 of 10 hold" in said
    assert "part two, the tiny GPT: 0 of 10 hold" in said
    assert "you are done" not in said and "next: start Value in 01-engine.ipynb" in said
    for name in ("engine.py", "gpt.py"):
        shutil.copy(os.path.join(ROOT, "xslm", name), tmp_path / name)
    for name in ("xslm-loss.txt", "xslm-weights.json", "xslm-samples.txt"):
        shutil.copy(os.path.join(ROOT, "outputs", name), tmp_path / "outputs" / name)
    said = terminal(tmp_path)
    assert "part two, the tiny GPT: 10 of 10 hold" in said and "you are done" in said


def test_each_part_is_read_from_its_own_folder_of_the_workspace(tmp_path):
    """With the whole package (as the site's kernel has it), the view run in part two's folder,
    in part one's or at the workspace's top reads each part from its own folder."""
    one, two = tmp_path / "part-1-attention", tmp_path / "part-2-gpt"
    for folder in (one, two):
        folder.mkdir()
    finished_part_one(one)
    shutil.copy(os.path.join(ROOT, "xslm", "engine.py"), two / "engine.py")
    for folder in (one, two, tmp_path):
        said = terminal(folder)
        assert "part one, attention: 10 of 10 hold" in said, folder
        assert "part two, the tiny GPT: 0 of 10 hold" not in said, folder  # its engine counts
        assert "next: start GPT in 03-gpt.ipynb" in said, folder


def test_a_flat_folder_with_part_folders_beside_is_read_where_its_notebooks_are(tmp_path):
    """Where notebooks of the older flat layout stayed (a republished site's edition folder),
    the view reads the model.py beside them, not the new part folder's stub."""
    finished_part_one(tmp_path)
    (tmp_path / "01-softmax.ipynb").write_text("{}")
    (tmp_path / "part-1-attention").mkdir()
    said = terminal(tmp_path)
    assert "part one, attention: 10 of 10 hold" in said


@pytest.mark.slow
def test_a_workspace_part_folder_shows_the_other_part_once_the_workspace_holds_it(tmp_path):
    """make lab's part-1-attention/ shows part one alone; once make lab PART=xslm has made
    part-2-gpt/, the view there and in part one's folder shows both parts."""
    one = course.workspace(str(tmp_path / "ws"))
    assert "part two" not in terminal(one, package_root=one)
    two = course.workspace(str(tmp_path / "ws"), assignment=XSLM)
    for folder in (one, two):
        said = terminal(folder, package_root=folder)
        assert "part one, attention: 0 of 10 hold" in said
        assert "part two, the tiny GPT: 0 of 10 hold" in said


@pytest.mark.slow
def test_a_release_shows_the_parts_it_ships(tmp_path):
    """Part two's release holds no part one: its progress view is part two's alone."""
    shutil.copytree(
        os.path.join(
            course.release(assignment=XSLM, into=str(tmp_path / "release")), "checkpoints"
        ),
        tmp_path / "checkpoints",
    )
    said = terminal(tmp_path, package_root=str(tmp_path))
    assert "part two, the tiny GPT: 0 of 10 hold" in said and "part one" not in said


def test_progress_stays_the_function_each_part_exports(tmp_path, capsys, monkeypatch):
    """Showing the view imports every part's status module, and `progress` is still the function
    a notebook imports from either part (a submodule of that name would replace it)."""
    import checkpoints
    import checkpoints.xslm

    monkeypatch.chdir(tmp_path)
    checkpoints.xslm.progress()
    assert "next: start softmax" in capsys.readouterr().out
    from checkpoints import progress as one
    from checkpoints.xslm import progress as two

    assert callable(one) and callable(two) and one.__module__ == "checkpoints.attention"
