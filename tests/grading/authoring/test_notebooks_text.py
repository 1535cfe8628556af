"""The master notebooks and their text forms (notebooks/text/attention/*.py) say the same thing,
and every heading that states points states what nbgrader gives. No kernel: seconds.
"""

import os
import re
import shutil

import nbformat
import pytest

from grading.authoring import masters
from grading.authoring import notebooks_text as nt

STEMS = nt.stems(masters.SOURCE, ".ipynb")
FIX = "edit the text form, then run: make notebooks"


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def master(stem):
    return nbformat.read(nt.ipynb_path(stem), as_version=4)


def text_form(stem):
    return nt.from_text(read(nt.text_path(stem)))


def test_every_master_has_a_text_form_and_every_text_form_a_master():
    assert len(STEMS) == 8
    assert nt.stems(nt.TEXT_SOURCE, nt.TEXT_EXTENSION) == STEMS


@pytest.mark.parametrize("stem", STEMS)
def test_master_matches_its_text_form(stem):
    """Cell for cell: type, id, source, metadata (nbgrader's above all); then notebook metadata;
    then the file itself, byte for byte, as `make notebooks` writes it.
    """
    book, want = master(stem), text_form(stem)
    assert [c.cell_type for c in book.cells] == [c.cell_type for c in want.cells], FIX
    assert [c.id for c in book.cells] == [c.id for c in want.cells], FIX
    for cell, wanted in zip(book.cells, want.cells):
        assert cell.source == wanted.source, f"{cell.id}: source differs; {FIX}"
        assert cell.metadata == wanted.metadata, f"{cell.id}: metadata differs; {FIX}"
    assert book.metadata == want.metadata, f"notebook metadata differs; {FIX}"
    assert read(nt.ipynb_path(stem)) == nt.ipynb_json(want), (
        f"the file differs (outputs, execution counts or formatting); {FIX}"
    )


@pytest.mark.parametrize("stem", STEMS)
def test_master_has_no_outputs_and_no_execution_counts(stem):
    for cell in master(stem).cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{cell.id} has outputs; run: make notebooks"
            assert cell.execution_count is None, f"{cell.id} has an execution count"


@pytest.mark.parametrize("stem", STEMS)
def test_text_form_loses_nothing_of_the_notebook(stem):
    """ipynb -> text -> ipynb is the identity: no metadata key is dropped on the way."""
    book = master(stem)
    assert nt.ipynb_json(nt.from_text(nt.to_text(book))) == nt.ipynb_json(book)


@pytest.fixture
def copies(tmp_path):
    """The masters and their text forms, copied to a scratch folder and in sync there."""
    source, text = tmp_path / "attention", tmp_path / "text"
    source.mkdir()
    for stem in STEMS:
        shutil.copy(nt.ipynb_path(stem), source)
    shutil.copytree(nt.TEXT_SOURCE, text)
    nt.write_notebooks(str(source), str(text), force=True, log=lambda line: None)
    return str(source), str(text)


def test_check_names_each_disagreement(copies):
    source, text = copies
    assert nt.problems(source, text) == []
    path = nt.text_path("06-layer-norm", text)
    edited = (
        read(path).replace('"points": 3', '"points": 4').replace("mean = sum(row)", "mean=sum(row)")
    )
    with open(path, "w", encoding="utf-8") as f:
        f.write(edited)
    os.remove(nt.text_path("02-attention", text))
    os.remove(nt.ipynb_path("03-causal-mask", source))
    found = "\n".join(nt.problems(source, text))
    assert "02-attention.ipynb has no text form" in found
    assert "03-causal-mask.py has no" in found
    assert "06-layer-norm.ipynb differs" in found
    assert "step06-layer-norm-solution, code): source" in found
    assert "step06-layer-norm-hidden, code): metadata" in found


def test_writing_is_deterministic_and_keeps_newer_notebook_edits(copies):
    source, text = copies
    nb_file = nt.ipynb_path("01-softmax", source)
    book = nbformat.read(nb_file, as_version=4)
    book.cells[0].source += "\nAn edit made in Jupyter."
    nbformat.write(book, nb_file)
    os.utime(nb_file, (2e9, 2e9))  # newer than its text form
    refused = nt.write_notebooks(source, text, log=lambda line: None)
    assert len(refused) == 1 and "01-softmax.ipynb was changed after" in refused[0]
    assert "An edit made in Jupyter." in read(nb_file)
    assert nt.write_notebooks(source, text, force=True, log=lambda line: None) == []
    first = {stem: read(nt.ipynb_path(stem, source)) for stem in STEMS}
    assert nt.write_notebooks(source, text, log=lambda line: None) == []
    assert {stem: read(nt.ipynb_path(stem, source)) for stem in STEMS} == first
    assert nt.problems(source, text) == []


# Headings and points

HEADING = re.compile(r"#{1,6}\s+(.+?)\s*")
POINTS = re.compile(r"\((\d+(?:\.\d+)?) (points?)\)$")


def headings(markdown):
    """The heading lines of a markdown cell (not the lines of a fenced code block)."""
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and (m := HEADING.fullmatch(line)):
            yield m.group(1)


def graded(cell):
    info = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and info.get("grade")


@pytest.mark.parametrize("stem", STEMS)
def test_headings_state_the_points_of_the_graded_cells_after_them(stem):
    """A heading ending in "(N points)" owns the graded cells up to the next such heading; their
    nbgrader points add up to N. Every graded cell has one; every "Your turn" heading states one.
    """
    claims = []  # (heading, points it states, {grade_id: points} of the cells it owns)
    for cell in text_form(stem).cells:
        if cell.cell_type == "markdown":
            for title in headings(cell.source):
                stated = POINTS.search(title)
                assert stated or not title.startswith("Your turn"), f"{title!r} states no points"
                if stated:
                    amount, word = float(stated.group(1)), stated.group(2)
                    assert (word == "point") == (amount == 1), title
                    claims.append((title, amount, {}))
        elif graded(cell):
            info = cell.metadata["nbgrader"]
            assert claims, f"{info['grade_id']} comes before any heading that states points"
            claims[-1][2][info["grade_id"]] = info["points"]
    assert claims, f"{stem} has no heading that states points"
    for title, amount, owned in claims:
        assert owned, f"{title!r} states points, but no graded cell follows it"
        assert amount == sum(owned.values()), f"{title!r}, but nbgrader gives {owned}"


CHECKPOINTED = [s for s in STEMS if 1 <= int(s[:2]) <= 7]


@pytest.mark.parametrize("stem", CHECKPOINTED)
def test_checkpoint_heading_just_before_the_first_graded_cell(stem):
    assert len(CHECKPOINTED) == 7
    cells = text_form(stem).cells
    first = next(k for k, cell in enumerate(cells) if graded(cell))
    before = cells[first - 1]
    assert before.cell_type == "markdown", f"{cells[first].id} has no markdown cell before it"
    assert f"## Checkpoint {int(stem[:2])}" in before.source.splitlines(), before.source


def test_stated_points_add_up_to_the_course_total():
    stated = sum(
        float(m.group(1))
        for stem in STEMS
        for cell in text_form(stem).cells
        if cell.cell_type == "markdown"
        for title in headings(cell.source)
        if (m := POINTS.search(title))
    )
    total = sum(
        c.metadata["nbgrader"]["points"] for s in STEMS for c in master(s).cells if graded(c)
    )
    assert stated == total
