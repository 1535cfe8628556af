"""No course cell raises for what a learner's code or files cause (docs/learners.md): save(),
check(), check_artifact(), demo(), the pictures, progress() and hand_in() each say it in one line
and the notebook goes on. A property over every course cell of every notebook of both parts:

- in every edition (en, ko, ja): a learner whose every function crashes, and a learner whose file
  has a line that does not parse in a section they did not write in this notebook;
- in English: every catalogued mistake of the part, in the learner's cells and files, from the
  notebook of the step it is made in to the last.

Each notebook of a part runs top to bottom in a namespace of its own (a kernel each), in the
part's folder of a workspace, as Run All runs it: the learner's cells as written (a learner's cell
that raises stops its notebook, as it would stop Run All), and every other cell (the course's)
must return. It runs in this process rather than in kernels (test_headless_mistakes.py runs each
mistake through nbclient from its step to its checkpoint): the cells are plain Python, `display`
is given, and the whole property takes a few seconds a scenario instead of minutes.
"""

import contextlib
import io
import linecache
import os
import re
import shutil
import sys

import nbformat
import pytest

from checkpoints import i18n
from checkpoints.attention.modelfile import step_number
from grading.authoring import course, masters
from grading.authoring.mistakes import BUGGY, buggy_source
from grading.authoring.mistakes import part_two as xslm_mistakes
from grading.parts import PARTS, XSLM
from grading.paths import ROOT
from tests.grading.authoring.test_headless_mistakes import changed_steps, xslm_solutions

pytestmark = pytest.mark.notebooks

EDITIONS = ["en", "ko", "ja"]
CRASH = "[][0]  # a learner's slip: an index past the end"
LEARNERS_MODULES = ("engine", "gpt", "model")
# Whether a course cell raises does not depend on how much part two's model computes: it trains
# two steps (the artifact's check then says the curve is too short, in one line), on two held-out
# windows, and generates two tokens a sample (the artifact's check, less_work, the same)
LESS_WORK = {
    "04-training.ipynb": {"steps_to_train(240)": "steps_to_train(2)",
                          "held_out = pairs[-len(pairs) // 10 :]": "held_out = pairs[-2:]"},
    "05-generate.ipynb": {"encode(prompt, vocab), 12,": "encode(prompt, vocab), 2,",
                          'encode("the cat", vocab), 12,': 'encode("the cat", vocab), 2,'},
}  # fmt: skip
BROKEN = "    # a hand edit that does not parse: (\n    broken = (\n"


def display(obj):
    """What the notebook's display() does with the course's objects: their HTML (printed, so a
    test can read it), else their repr."""
    html = getattr(obj, "_repr_html_", None)
    print(html() if html else repr(obj))


def run_notebook(path, solutions, rewrite=None, replace=None):
    """Run one learner notebook top to bottom in a namespace of its own, in its folder (its
    solution cells filled in, replace: {function: buggy code}; rewrite: {text: what it becomes} in
    its cells, each of which must be found): the ids of the course cells that
    raised, with what they raised."""
    book = course.fill(nbformat.read(path, 4), solutions, replace)
    namespace = {"__name__": "__main__", "display": display}
    raised, unused = [], set(rewrite or {})
    for cell in book.cells:
        if cell.cell_type != "code":
            continue
        source = cell.source
        for old, new in (rewrite or {}).items():
            unused -= {old} if old in source else set()
            source = source.replace(old, new)
        learners = cell.metadata.get("nbgrader", {}).get("solution", False)
        filename = f"<cell {os.path.basename(path)} {cell.id}>"  # kept where IPython keeps cells
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(source, filename, "exec"), namespace)
        except BaseException as err:  # noqa: BLE001  (SystemExit too: a cell must not exit)
            if learners:
                break  # the learner's own cell stops Run All
            raised.append(f"{os.path.basename(path)} {cell.id}: {type(err).__name__}: {err}")
    else:  # every cell ran: each rewrite found its line
        assert not unused, f"{path} no longer has {sorted(unused)}: LESS_WORK is stale"
    return raised


def run_part(folder, part, solutions, files=None, replace=None, first=1):
    """Every notebook of a part from step first on, in order, in folder (files: {name: text}
    written first): the course cells that raised."""
    here = os.path.join(folder, PARTS[part].folder)
    for name, text in (files or {}).items():
        with open(os.path.join(here, name), "w", encoding="utf-8") as f:
            f.write(text)
    raised = []
    previous = os.getcwd()
    os.chdir(here)
    sys.path.insert(0, here)  # a kernel imports the learner's engine.py and gpt.py from its folder
    try:
        for name in masters.notebooks(PARTS[part].masters)[first - 1 :]:
            for module in LEARNERS_MODULES:  # each notebook is a kernel of its own
                sys.modules.pop(module, None)
            raised += run_notebook(os.path.join(here, name), solutions, LESS_WORK.get(name),
                                   replace)  # fmt: skip
    finally:
        sys.path.remove(here)
        for module in LEARNERS_MODULES:
            sys.modules.pop(module, None)
        os.chdir(previous)
    return raised


def crashing(solutions):
    """The solution cells with every function's (and method's) body raising at its first line."""
    crash = {}
    for gid, source in solutions.items():
        crash[gid] = re.sub(r"^(\s*)def (\w+)\((.*)\):.*$", rf"\1def \2(\3):\n\1    {CRASH}",
                            source, flags=re.MULTILINE)  # fmt: skip
    return crash


def broken_files(part):
    """A learner's files with one line that does not parse, in a section the notebooks of the
    first steps do not save (part one's block; part two's norm)."""
    if part == XSLM:
        text = xslm_mistakes.source("engine.py")
        return {"engine.py": text.replace("def norm(", BROKEN + "\n\ndef norm(", 1)}
    with open(os.path.join(ROOT, "model.py"), encoding="utf-8") as f:
        return {"model.py": f.read().replace("def block(", BROKEN + "\n\ndef block(", 1)}


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    """{edition: a workspace holding both parts' student notebooks}, made once."""
    made = {}
    for code in EDITIONS:
        folder = str(tmp_path_factory.mktemp(f"template-{code}") / "workspace")
        course.workspace(folder, edition=code)
        course.workspace(folder, edition=code, assignment=XSLM)
        made[code] = folder
    return made


@pytest.fixture
def jupyter(monkeypatch):
    """The course's reports shown as Jupyter shows them (their HTML, checkpoints.session.show),
    as if an IPython kernel ran this process."""
    import IPython
    import IPython.display

    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(IPython.display, "display", display)


@pytest.fixture
def less_work(monkeypatch):
    """Part two's artifact checks on two held-out windows and two-token samples (LESS_WORK)."""
    from checkpoints.xslm import artifacts

    every = artifacts.held_out_pairs
    monkeypatch.setattr(artifacts, "held_out_pairs", lambda: every()[-2:])
    monkeypatch.setattr(artifacts, "SAMPLE_STEPS", 2)


@pytest.fixture
def learner(templates, tmp_path, monkeypatch, jupyter, less_work):
    """A function: a fresh copy of an edition's workspace, with the learner's language set."""
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    before = i18n.edition()

    def workspace(code):
        i18n.use_edition(code)
        return shutil.copytree(templates[code], str(tmp_path / f"workspace-{code}"))

    yield workspace
    i18n.use_edition(before)


def solutions_of(part):
    """The part's solution cells as the masters solve them."""
    if part == XSLM:
        return xslm_solutions({n: xslm_mistakes.source(n) for n in xslm_mistakes.FILES})
    return course.solution_cells()


@pytest.mark.parametrize("part", ["attention", XSLM])
@pytest.mark.parametrize("code", EDITIONS)
def test_no_course_cell_raises_when_every_function_crashes(learner, part, code):
    """Every function the learner writes raises IndexError at its first line."""
    assert run_part(learner(code), part, crashing(solutions_of(part))) == []


@pytest.mark.parametrize("part", ["attention", XSLM])
@pytest.mark.parametrize("code", EDITIONS)
def test_no_course_cell_raises_on_a_file_that_does_not_parse(learner, part, code):
    """The learner's file has a hand-edited line that does not parse in a later step's section."""
    assert run_part(learner(code), part, solutions_of(part), broken_files(part)) == []


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_no_course_cell_raises_with_a_part_one_mistake(learner, name):
    """A catalogued mistake of part one in the learner's cells."""
    function, code = BUGGY[name]
    files = {"model.py": buggy_source(name)}  # as after every step done with the mistake
    raised = run_part(learner("en"), "attention", course.solution_cells(), files,
                      {function: code}, first=step_number(function))  # fmt: skip
    assert raised == []


@pytest.mark.xslm
@pytest.mark.parametrize("name", sorted(xslm_mistakes.MISTAKES))
def test_no_course_cell_raises_with_a_part_two_mistake(learner, name):
    """A catalogued mistake of part two in the learner's cells."""
    texts = xslm_mistakes.buggy_texts(name)
    raised = run_part(learner("en"), XSLM, xslm_solutions(texts), texts,
                      first=min(changed_steps(texts)))  # fmt: skip
    assert raised == []


@pytest.mark.parametrize("code", ["ko", "ja"])
def test_every_mistakes_checkpoint_and_hints_go_on_in_every_edition(tmp_path, monkeypatch, jupyter,
                                                                   code):  # fmt: skip
    """The cells a catalogued mistake speaks in, in the other editions: its checkpoint and both
    hints, shown as Jupyter shows them (the notebooks' other course cells say nothing of it)."""
    import checkpoints
    from checkpoints import xslm as part_two
    from checkpoints.attention.catalogue import BY_NAME
    from checkpoints.xslm.checks import BY_NAME as XSLM_BY_NAME

    monkeypatch.chdir(tmp_path)
    for package in (checkpoints.attention, part_two):  # hint() counts its calls per checkpoint:
        monkeypatch.setattr(package, "HINT_LEVELS", {})  # this test's count is its own
    before = i18n.edition()
    i18n.use_edition(code)
    try:
        for name in sorted(BUGGY):
            (tmp_path / "model.py").write_text(buggy_source(name), encoding="utf-8")
            said = speaking(checkpoints, BY_NAME[name].checkpoint)
            assert "✗" in said, (code, name, said[-500:])
        for name in sorted(xslm_mistakes.MISTAKES):
            for filename, text in xslm_mistakes.buggy_texts(name).items():
                (tmp_path / filename).write_text(text, encoding="utf-8")
            said = speaking(part_two, XSLM_BY_NAME[name].checkpoint)
            assert "✗" in said, (code, name, said[-500:])
    finally:
        i18n.use_edition(before)


def speaking(package, checkpoint):
    """What a part's check cell, then its hint cell twice (the closer hint, then the formula),
    print, their HTML included; a course cell that raises fails the test here."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        package.check(checkpoint)
        package.hint(checkpoint)
        package.hint(checkpoint)
    return out.getvalue()


def test_the_property_sees_a_course_cell_that_raises(learner, monkeypatch):
    """The runner is not blind: a course function made to raise is reported, by cell."""
    import checkpoints

    def broken(*args, **kwargs):
        raise RuntimeError("a course cell raised")

    monkeypatch.setattr(checkpoints, "check", broken)
    raised = run_part(learner("en"), "attention", course.solution_cells())
    assert raised and all("RuntimeError: a course cell raised" in r for r in raised), raised
