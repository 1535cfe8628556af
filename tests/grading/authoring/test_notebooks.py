"""The master notebooks: valid nbgrader notebooks, no committed outputs,
and they rebuild model.py exactly.
"""

import ast
import io
import os
import re
import tokenize

import nbformat
import pytest

from grading.authoring import masters

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
    """Every nbgrader cell has a grade_id naming its step; graded cells are locked and worth
    points."""
    step = name[:2]
    for cell in load(name).cells:
        info = cell.metadata.get("nbgrader")
        if not info:
            continue
        assert re.fullmatch(rf"step{step}-[a-z0-9-]+", info["grade_id"]), info["grade_id"]
        if info.get("grade"):
            assert info["points"] > 0 and info["locked"]


def prose_in_code(source):
    """Comments and docstrings of a code cell, outside nbgrader's hidden-tests region."""
    shown = re.sub(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS", "", source, flags=re.S)
    found = [t.string for t in tokenize.generate_tokens(io.StringIO(shown).readline)
             if t.type == tokenize.COMMENT and not t.string.startswith("###")]  # fmt: skip
    body = ast.parse(shown).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        found.append(repr(body[0].value.value))
    return found


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_locked_cells_hold_no_prose_and_follow_the_markdown_that_explains_them(name):
    """A locked cell is the same in every language edition (one gradebook grades a mixed class),
    so it holds only code: what it does is said by the markdown cell before it, which every
    edition translates."""
    cells = load(name).cells
    for k, cell in enumerate(cells):
        info = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and info.get("locked"):
            assert prose_in_code(cell.source) == [], info["grade_id"]
        if info.get("grade"):
            assert any(c.cell_type == "markdown" for c in cells[:k]), info["grade_id"]


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
    assert masters.drift(work) == [], "run: python -m grading masters --update"
