"""The student edition: no solutions, no hidden tests, no reference; solved,
it rebuilds the reference model.py.
"""

import os

import nbformat
import pytest

from checkpoints import i18n
from grading.authoring import course, editions, masters
from grading.parts import ASSIGNMENT, PARTS
from grading.paths import ROOT
from tests.fixtures.leaks import INSTRUCTOR_MARKERS, leaked_lines, solution_lines

pytestmark = pytest.mark.nbgrader


@pytest.fixture(scope="module", params=editions.languages())
def release_dir(request, tmp_path_factory):
    """The student edition of each language edition, made into a folder of its own: byte for
    byte what release/attention, release-ko/attention... hold (test_release_places.py)."""
    return course.release(request.param, into=str(tmp_path_factory.mktemp("release")))


def reference_body_lines():
    """Lines of the reference model.py that only a solution contains
    (not signatures or docstrings).
    """
    with open(os.path.join(ROOT, "model.py")) as f:
        lines = [line.strip() for line in f]
    return {
        line
        for line in lines
        if len(line) > 12
        and not line.startswith(("def ", '"""', "#", "import"))
        and '"""' not in line
    }


def test_release_holds_no_solution_no_hidden_test_no_reference(release_dir):
    """No file of the release contains solution code, hidden-test code, or the grading package."""
    secrets = reference_body_lines()
    assert len(secrets) > 30
    for folder, dirs, files in os.walk(release_dir):
        assert "grading" not in dirs
        for name in files:
            assert name != "model.py"
            path = os.path.join(folder, name)
            text = open(path, encoding="utf-8").read()
            for marker in INSTRUCTOR_MARKERS:
                assert marker not in text, f"{marker!r} in {path}"
            if name.endswith(".ipynb"):
                code = "\n".join(
                    c.source for c in nbformat.read(path, 4).cells if c.cell_type == "code"
                )
                leaked = [line for line in secrets if line in code]
                assert not leaked, f"{name} leaks {leaked[:3]}"


@pytest.mark.parametrize("part", list(PARTS))
@pytest.mark.parametrize("edition", editions.languages())
def test_no_file_of_any_release_holds_a_solution_line(edition, part, tmp_path):
    """Each part's student edition in each language, checkpoints and their hints included, holds
    no line of a master solution, however it is spaced or wrapped in JSON."""
    secrets = solution_lines()
    assert len(secrets) > 60
    assert leaked_lines(course.release(edition, part, into=str(tmp_path)), secrets) == {}


def test_release_keeps_checkpoints_and_stub_instructions(release_dir):
    """The learner gets the checkpoint package and stubs that raise NotImplementedError."""
    assert os.path.exists(
        os.path.join(release_dir, "checkpoints", "attention", "fingerprints.json")
    )
    book = nbformat.read(os.path.join(release_dir, "01-softmax.ipynb"), 4)
    stub = [c for c in book.cells if c.metadata.get("nbgrader", {}).get("solution")][0]
    assert "def softmax(xs):" in stub.source and "NotImplementedError" in stub.source


def run_workspace(tmp_path, monkeypatch, solve, edition="en", allow_errors=True):
    """Run every notebook of a fresh workspace of one edition (solved or not); its outputs.
    allow_errors=False: as Run All and the headless command do, stop at a cell that raises."""
    monkeypatch.delenv("PYTHONPATH", raising=False)  # a learner's kernel has no grading package
    monkeypatch.delenv("ATTENTION_EDITION", raising=False)  # the workspace says its edition
    work = course.workspace(str(tmp_path / "workspace"), edition=edition)
    solutions = course.solution_cells(os.path.join(editions.build(edition), "attention"))
    outputs = {}
    for name in masters.notebooks(work):
        book = nbformat.read(os.path.join(work, name), 4)
        if solve:
            course.fill(book, solutions)
        from nbclient import NotebookClient

        NotebookClient(
            book, timeout=120, allow_errors=allow_errors, resources={"metadata": {"path": work}}
        ).execute()
        outputs[name] = [o for c in book.cells if c.cell_type == "code" for o in c.outputs]
    return work, outputs


@pytest.mark.parametrize("edition", editions.languages())
def test_solved_workspace_builds_the_reference_model(tmp_path, monkeypatch, edition):
    """Running all eight solved student notebooks of an edition in a fresh workspace builds the
    reference model.py, and the checkpoints answer in the edition's language.
    """
    work, outputs = run_workspace(tmp_path, monkeypatch, solve=True, edition=edition)
    shown = "".join(
        o.get("data", {}).get("text/plain", "")
        for o in outputs["01-softmax.ipynb"]
        if o.output_type == "display_data"
    )
    assert "✓ " + i18n.lookup("claims", "softmax.sum", edition) in shown
    errors = [
        (n, o.get("ename"), o.get("evalue"))
        for n, outs in outputs.items()
        for o in outs
        if o.output_type == "error"
    ]
    assert errors == []
    with open(os.path.join(work, "model.py")) as got, open(os.path.join(ROOT, "model.py")) as want:
        assert got.read() == want.read()
    for made in PARTS[ASSIGNMENT].reference:  # model.py and the artifacts in outputs/
        assert os.path.exists(os.path.join(work, made))


def test_unsolved_workspace_fails_checkpoints_kindly_and_runs_to_the_end(tmp_path, monkeypatch):
    """Unsolved, every notebook runs from top to bottom without stopping (nbclient raises at the
    first cell that errors): each checkpoint shows its report and one line, each demo cell shows
    the stub's NotImplementedError as one line, and no cell is an error."""
    work, outputs = run_workspace(tmp_path, monkeypatch, solve=False, allow_errors=False)
    assert [o for outs in outputs.values() for o in outs if o.output_type == "error"] == []
    first = outputs["01-softmax.ipynb"]
    shown = "".join(
        o.get("data", {}).get("text/plain", "") for o in first if o.output_type == "display_data"
    )
    assert "✗" in shown and "NotImplementedError" in shown
    printed = "".join(o.get("text", "") for o in first if o.output_type == "stream")
    assert (
        "✗ NotImplementedError: replace this line with your code, then run the cell (in " in printed
    )
    assert "softmax, line " in printed and "The checkpoint below says more" in printed
    assert "✗ softmax: 8 of 8 checks fail. The notebook goes on" in printed
    for name in ("05-positional-encoding.ipynb", "08-notes.ipynb"):  # the words cells' stubs too
        printed = "".join(o.get("text", "") for o in outputs[name] if o.output_type == "stream")
        assert "✗ NotImplementedError: replace this line with your code" in printed, name


def test_hidden_cells_say_one_line_and_do_not_echo_their_docstring(release_dir):
    """In the student edition a hidden cell ends with hidden(name), which prints one line;
    not a bare docstring.
    """
    for name in course.notebooks(release_dir):
        for cell in nbformat.read(os.path.join(release_dir, name), 4).cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id", "").endswith("-hidden"):
                code = [
                    line
                    for line in cell.source.splitlines()
                    if line.strip() and not line.startswith("#")
                ]
                assert code[-1].startswith("hidden("), (name, cell.source)
