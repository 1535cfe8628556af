"""Part two's master notebooks (notebooks/masters/xslm): valid nbgrader notebooks with no outputs,
one per step, and, run in order, they rebuild part two's reference (xslm/engine.py, xslm/gpt.py) and
artifacts exactly, training included, in under a minute.
"""

import json
import os
import re
import time

import nbformat
import pytest

from grading.authoring import course, masters
from grading.parts import PARTS, XSLM, XSLM_ARTIFACTS
from grading.paths import ROOT
from tests.grading.authoring.test_notebooks import prose_in_code

XSLM_SOURCE = PARTS[XSLM].masters

pytestmark = pytest.mark.xslm

NOTEBOOKS = masters.notebooks(XSLM_SOURCE)


def load(name):
    return nbformat.read(os.path.join(XSLM_SOURCE, name), as_version=4)


def test_five_notebooks_in_step_order():
    """Engine, layers, GPT, training, generating: numbered 01 to 05."""
    assert [n[:2] for n in NOTEBOOKS] == [f"{k:02d}" for k in range(1, 6)]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_is_valid_clean_and_its_grade_ids_name_its_step(name):
    """nbformat validates; no outputs; every grade_id is xslmNN-...; graded cells are locked and
    worth points; locked cells hold no prose (the editions translate only the markdown)."""
    book = load(name)
    nbformat.validate(book)
    for cell in book.cells:
        info = cell.metadata.get("nbgrader")
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
        if not info:
            continue
        assert re.fullmatch(rf"xslm{name[:2]}-[a-z0-9-]+", info["grade_id"]), info["grade_id"]
        if info.get("grade"):
            assert info["points"] > 0 and info["locked"]
        if cell.cell_type == "code" and info.get("locked"):
            assert prose_in_code(cell.source) == [], info["grade_id"]


def test_grade_ids_unique_across_both_parts():
    """One gradebook holds both assignments: no grade_id is used twice."""
    ids = [
        c.metadata["nbgrader"]["grade_id"]
        for folder in (masters.SOURCE, XSLM_SOURCE)
        for n in masters.notebooks(folder)
        for c in nbformat.read(os.path.join(folder, n), as_version=4).cells
        if "nbgrader" in c.metadata
    ]
    assert len(ids) == len(set(ids))


@pytest.mark.notebooks
def test_masters_rebuild_the_reference_and_train_in_under_a_minute(tmp_path):
    """Executing the five notebooks in a scratch copy reproduces xslm/engine.py, xslm/gpt.py and
    the three artifacts byte for byte (the training is seeded). The time is printed, not asserted:
    docs/part-two.md reports it; a busy machine must not fail the suite."""
    start = time.perf_counter()
    work, timings = masters.run_masters(str(tmp_path), part="xslm")
    print(f"part two's five notebooks: {time.perf_counter() - start:.1f} s {timings}")
    assert len(timings) == 5
    assert masters.drift(work, "xslm") == [], "run: python -m grading masters xslm --update"


def grade_id(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id")


class Loss:
    """A stand-in loss: counts its calls."""

    calls = 0

    def __init__(self, *args):
        Loss.calls += 1
        self.data = 1.0


def run_training_cell(monkeypatch, execution):
    """Notebook 4's training cell on stand-ins (two windows, a model that is never used, a step
    that returns 1.0), with NBGRADER_EXECUTION=execution: (what it printed, losses, loss calls)."""
    import io
    from contextlib import redirect_stdout

    from checkpoints.xslm import demo, steps_to_train

    monkeypatch.setenv("NBGRADER_EXECUTION", execution)
    [cell] = [c for c in load("04-training.ipynb").cells if grade_id(c) == "xslm04-train-loop"]
    Loss.calls = 0
    names = {"windows": lambda ids, n: [([1], [2])] * 20, "ids": [], "vocab": [0] * 40,
             "GPT": lambda *a, **k: None, "train_step": lambda *a: 1.0, "loss": Loss,
             "steps_to_train": steps_to_train, "demo": demo, "random": __import__("random"),
             "math": __import__("math")}  # fmt: skip
    printed = io.StringIO()
    with redirect_stdout(printed):
        exec(cell.source, names)
    return printed.getvalue(), names["losses"], Loss.calls


def test_the_training_cell_computes_nothing_while_nbgrader_grades(monkeypatch):
    """Graded, the loop runs no step and no held-out loss is computed of a model nobody trained
    (the judge reads the weights handed in); run by a learner, both happen."""
    printed, losses, calls = run_training_cell(monkeypatch, "autograde")
    assert (losses, calls) == ([], 0) and "held out" not in printed, printed
    printed, losses, calls = run_training_cell(monkeypatch, "")
    assert len(losses) == 240 and calls == 2 and "held out: 1.000" in printed, printed


@pytest.mark.notebooks
def test_a_learner_runs_part_two_in_the_korean_workspace(tmp_path, monkeypatch):
    """The learner's flow, from the student edition: part one's workspace, then part two's
    Korean notebooks solved and run in order, leave engine.py and gpt.py with the reference's
    sections, a trained model's weights and its samples, with the messages in Korean."""
    from checkpoints.sections import read_sections

    monkeypatch.delenv("PYTHONPATH", raising=False)  # a learner's kernel has no grading package
    monkeypatch.delenv("ATTENTION_EDITION", raising=False)  # the workspace says its edition

    workspace = course.workspace(str(tmp_path / "ws"), edition="ko", assignment="xslm")
    solutions = course.solution_cells(XSLM_SOURCE)
    names = masters.notebooks(XSLM_SOURCE)
    for name in names:
        path = os.path.join(workspace, name)
        nbformat.write(course.fill(nbformat.read(path, 4), solutions), path)
    books = {  # the training cell's margin: it runs beside the tests that grade, on two cores
        name: masters.execute(os.path.join(workspace, name), workspace, timeout=600)
        for name in names
    }
    for filename in ("engine.py", "gpt.py"):
        with open(os.path.join(workspace, filename), encoding="utf-8") as f:
            mine = read_sections(f.read())[1]
        with open(os.path.join(ROOT, "xslm", filename), encoding="utf-8") as f:
            assert mine == read_sections(f.read())[1]
    for artifact in XSLM_ARTIFACTS:
        with open(os.path.join(workspace, "outputs", artifact), encoding="utf-8") as f:
            with open(os.path.join(ROOT, "outputs", artifact), encoding="utf-8") as g:
                assert f.read() == g.read(), artifact
    printed = json.dumps(books["01-engine.ipynb"].cells, ensure_ascii=False)
    assert "engine.py: 1단계" in printed  # save(Value) answered in Korean
