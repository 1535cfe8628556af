"""Every catalogued mistake of both parts, run headless from top to bottom as a learner would run
it, reaches its checkpoint and is named there: no demo cell before it stops the notebook.

Each case is a learner whose cells hold the mistake (and whose saved files hold it too, as after
doing every step with it), running the notebooks from the one where the mistake is written to the
one whose checkpoint owns it. nbclient stops at the first cell that raises, as Run All and README's
headless command do.
"""

import os
import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from checkpoints.attention.catalogue import BY_NAME
from checkpoints.attention.modelfile import step_number
from checkpoints.sections import read_sections
from checkpoints.xslm import checks as xslm_checks
from checkpoints.xslm import files as xslm_files
from grading.authoring import course, masters
from grading.authoring.mistakes import BUGGY, buggy_source
from grading.authoring.mistakes import part_two as xslm_mistakes
from grading.parts import PARTS, XSLM

XSLM_SOURCE = PARTS[XSLM].masters

pytestmark = pytest.mark.notebooks


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A workspace holding both parts' student notebooks, made once and copied for each case."""
    folder = str(tmp_path_factory.mktemp("template") / "workspace")
    course.workspace(folder)
    course.workspace(folder, assignment="xslm")
    return folder


@pytest.fixture
def workspace(template, tmp_path, monkeypatch):
    """A learner's own copy of the template (its parts' folders in it); their kernel has no
    course on PYTHONPATH."""
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.delenv("ATTENTION_EDITION", raising=False)
    return shutil.copytree(template, str(tmp_path / "workspace"))


def run_to_the_end(folder, name, solutions, replace=None, rewrite=None):
    """Fill one notebook's solution cells (replace: buggy functions; rewrite: {text: new text} in
    its course cells, each found), run it top to bottom; its cells."""
    path = os.path.join(folder, name)
    book = course.fill(nbformat.read(path, 4), solutions, replace)
    for old, new in (rewrite or {}).items():
        cells = [c for c in book.cells if old in c.source]
        assert cells, f"{name} no longer holds {old!r}"
        for cell in cells:
            cell.source = cell.source.replace(old, new)
    client = NotebookClient(
        book, timeout=600, allow_errors=False, resources={"metadata": {"path": folder}}
    )
    client.execute()  # CellExecutionError at the first cell that raises
    nbformat.write(book, path)
    return book.cells


def shown_by(cells, source):
    """The text the code cell with this source shows (its report and its lines)."""
    cell = next(c for c in cells if c.cell_type == "code" and c.source == source)
    return "".join(
        o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in cell.outputs
    )


def first_named(text):
    """The title of the first mistake a report names ("looks like: <title>")."""
    lines = [line for line in text.splitlines() if "looks like: " in line]
    assert lines, f"no mistake is named:\n{text[-3000:]}"
    return lines[0].split("looks like: ", 1)[1].strip()


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_a_part_one_mistake_runs_to_its_checkpoint_and_is_named(workspace, name):
    """The notebooks from the mistake's step to its checkpoint's run without stopping, and the
    checkpoint names the mistake first."""
    function, code = BUGGY[name]
    mistake = BY_NAME[name]
    workspace = os.path.join(workspace, PARTS["attention"].folder)
    with open(os.path.join(workspace, "model.py"), "w", encoding="utf-8") as f:
        f.write(buggy_source(name))
    notebooks = masters.notebooks(masters.SOURCE)
    first, last = step_number(function), step_number(mistake.checkpoint)
    assert first <= last, name
    for step in range(first, last + 1):
        cells = run_to_the_end(
            workspace, notebooks[step - 1], course.solution_cells(), {function: code}
        )
    shown = shown_by(cells, f'check("{mistake.checkpoint}")')
    assert first_named(shown) == mistake.title, shown[-3000:]
    assert "The notebook goes on" in shown


def xslm_solutions(texts):
    """Part two's solution cells as a learner with these engine.py and gpt.py texts wrote them."""
    sections = {}
    for text in texts.values():
        sections.update(read_sections(text)[1])
    solutions = {}
    for gid, source in course.solution_cells(XSLM_SOURCE).items():
        defined = next(
            n for n in xslm_files.STEPS if f"def {n}(" in source or f"class {n}" in source
        )
        solutions[gid] = sections[defined]
    return solutions


def changed_steps(texts):
    """The steps whose sections the mistake changes."""
    steps = set()
    for filename, text in texts.items():
        reference = read_sections(xslm_mistakes.source(filename))[1]
        for section, body in read_sections(text)[1].items():
            if body != reference[section]:
                steps.add(xslm_files.step_of(section))
    return steps


# Naming a mistake needs no trained model, and the cells after the training loop run as well on 24
# steps as on 240 (the artifact check then says the curve is too short): a tenth of the training.
TRAIN_LESS = {"04-training.ipynb": {"steps_to_train(240)": "steps_to_train(24)"}}


@pytest.mark.xslm
@pytest.mark.parametrize("name", sorted(xslm_mistakes.MISTAKES))
def test_a_part_two_mistake_runs_to_its_checkpoint_and_is_named(workspace, name):
    """The same for part two: its notebooks run on from the mistake's step to its checkpoint's."""
    mistake = xslm_checks.BY_NAME[name]
    texts = xslm_mistakes.buggy_texts(name)
    workspace = os.path.join(workspace, PARTS["xslm"].folder)
    for filename, text in texts.items():
        with open(os.path.join(workspace, filename), "w", encoding="utf-8") as f:
            f.write(text)
    solutions = xslm_solutions(texts)
    notebooks = masters.notebooks(XSLM_SOURCE)
    first, last = min(changed_steps(texts)), xslm_files.step_of(mistake.checkpoint)
    assert first <= last, name
    for step in range(first, last + 1):
        rewrite = TRAIN_LESS.get(notebooks[step - 1])
        cells = run_to_the_end(workspace, notebooks[step - 1], solutions, rewrite=rewrite)
    shown = shown_by(cells, f'check("{mistake.checkpoint}")')
    assert first_named(shown) == mistake.title, shown[-3000:]
