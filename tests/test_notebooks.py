"""The master notebooks: valid nbgrader notebooks, no committed outputs,
and they rebuild model.py exactly.
"""

import os
import re

import nbformat
import pytest

from grading import masters

NOTEBOOKS = masters.notebooks()


def load(name):
    return nbformat.read(os.path.join(masters.SOURCE, name), as_version=4)


def test_eight_notebooks_in_step_order():
    """One notebook per step, numbered 01 to 08."""
    assert [n[:2] for n in NOTEBOOKS] == [f"{k:02d}" for k in range(1, 9)]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_is_valid_and_clean(name):
    """nbformat validates; no outputs or execution counts are committed."""
    book = load(name)
    nbformat.validate(book)
    for cell in book.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_grade_ids_are_stable_and_descriptive(name):
    """Every nbgrader cell has a grade_id naming its step; graded cells open with a docstring."""
    step = name[:2]
    for cell in load(name).cells:
        info = cell.metadata.get("nbgrader")
        if not info:
            continue
        assert re.fullmatch(rf"step{step}-[a-z0-9-]+", info["grade_id"]), info["grade_id"]
        if info.get("grade"):
            assert info["points"] > 0 and info["locked"]
            assert cell.source.startswith('"""'), info["grade_id"]


def test_grade_ids_unique_across_the_course():
    ids = [
        c.metadata["nbgrader"]["grade_id"]
        for n in NOTEBOOKS
        for c in load(n).cells
        if "nbgrader" in c.metadata
    ]
    assert len(ids) == len(set(ids))


@pytest.mark.notebooks
def test_masters_rebuild_the_committed_reference(tmp_path):
    """Executing all eight master notebooks (nbclient, scratch copy)
    reproduces model.py and outputs/.
    """
    work, timings = masters.run_masters(str(tmp_path))
    assert len(timings) == 8
    assert masters.drift(work) == [], "run: python -m grading.masters --update"
