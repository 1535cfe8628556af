"""nbgrader's own commands, as its docs write them, work on this course;
the formgrader serves it.
"""

import csv
import html
import os
import re
import shutil

import nbformat
import pytest

from grading import classroom
from grading.authoring import course
from grading.parts import PARTS
from grading.paths import EXPORT_CSV, ROOT
from tests.fixtures import formgrader_page, leaks
from tests.fixtures.helpers import master_points
from tests.fixtures.lab_server import formgrader, get

pytestmark = pytest.mark.nbgrader
STUDENT = "cli-student"
DIES = "cli-kernel-dies"  # correct; notebook 1 displays script, and the kernel dies in notebook 2
PWNED = "PWNED"  # what the script would make the formgrader page's title
RUN = f"document.title='{PWNED}'"
SCRIPT = f'<script>{RUN}</script><img src=x onerror="{RUN}">'
READER = "cli-reads-solutions"  # the student edition with every solution cell deleted or unmarked
HINT = "click for the hint"  # and formulas in notebook 1 that link it to a script, and a page:
BEACON = "http://127.0.0.2:9/beacon.cur"  # a formula's style would fetch it (a logout, say)
SCRIPT_LINK = (f"Stuck? $\\href{{javascript:{RUN}}}{{\\text{{{HINT}}}}}$ "
               f"or $\\href{{http://127.0.0.1:8888/formgrader}}{{\\text{{{HINT}}}}}$ "
               f"or $\\style{{cursor:url({BEACON}),auto}}{{\\text{{{HINT}}}}}$")  # fmt: skip


def kill_the_kernel(folder):
    """Put a cell that ends the kernel at the top of the submission's second notebook."""
    path = os.path.join(folder, "02-attention.ipynb")
    book = nbformat.read(path, as_version=4)
    book.cells.insert(1, nbformat.v4.new_code_cell("import os\nos._exit(3)"))
    nbformat.write(book, path)


def show_script(folder):
    """Notebook 1 gains a Markdown cell and a cell whose output are both HTML that would run."""
    path = os.path.join(folder, "01-softmax.ipynb")
    book = nbformat.read(path, as_version=4)
    book.cells[1:1] = [
        nbformat.v4.new_markdown_cell(f"My notes {SCRIPT}"),
        nbformat.v4.new_code_cell(f"from IPython.display import HTML\nHTML({SCRIPT!r})"),
    ]
    nbformat.write(book, path)


def link_a_script(folder):
    """Notebook 1 gains a Markdown cell whose formulas are links (MathJax's \\href): to a script,
    and to a page of the instructor's own server."""
    path = os.path.join(folder, "01-softmax.ipynb")
    book = nbformat.read(path, as_version=4)
    book.cells.insert(1, nbformat.v4.new_markdown_cell(SCRIPT_LINK))
    nbformat.write(book, path)


def without_solution_cells(folder):
    """Delete every solution cell of the folder's notebooks; in the first, turn one into markdown
    instead: either way the cell is missing, and grading puts it back."""
    for k, name in enumerate(sorted(n for n in os.listdir(folder) if n.endswith(".ipynb"))):
        path = os.path.join(folder, name)
        book = nbformat.read(path, as_version=4)
        solutions = [c for c in book.cells if c.metadata.get("nbgrader", {}).get("solution")]
        if k == 0 and solutions:
            keep = solutions.pop()
            keep.cell_type = "markdown"
            keep.pop("outputs", None), keep.pop("execution_count", None)
        book.cells = [c for c in book.cells if c not in solutions]
        nbformat.write(book, path)


def nbgrader(*args):
    done = course.nbgrader(*args)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return done


@pytest.fixture(scope="module")
def graded():
    """generate_assignment, autograde, generate_feedback and export,
    each as `nbgrader <command> attention`.
    """
    nbgrader("generate_assignment", "attention", "--force")  # --force: a release made afresh
    package = os.path.join(course.release_folder(), "checkpoints", "__init__.py")
    released_package = os.path.isfile(package)
    shutil.rmtree(os.path.join(classroom.SUBMITTED, STUDENT), ignore_errors=True)
    course.nbgrader("db", "student", "remove", STUDENT, "--force")  # graded for the first time
    classroom.write_submission(STUDENT)
    autograded = nbgrader("autograde", "attention", "--student", STUDENT, "--force")
    nbgrader("generate_feedback", "attention", "--student", STUDENT, "--force")
    shutil.rmtree(os.path.join(classroom.SUBMITTED, DIES), ignore_errors=True)
    dies = classroom.write_submission(DIES)
    kill_the_kernel(dies)
    show_script(dies)
    nbgrader("autograde", "attention", "--student", DIES, "--force")
    shutil.rmtree(os.path.join(classroom.SUBMITTED, READER), ignore_errors=True)
    reader = os.path.join(classroom.SUBMITTED, READER, "attention")
    shutil.copytree(course.release_folder(), reader)
    without_solution_cells(reader)
    with open(os.path.join(reader, "notes.html"), "w") as f:  # the formgrader would serve it
        f.write(SCRIPT)
    link_a_script(reader)
    nbgrader("autograde", "attention", "--student", READER, "--force")
    nbgrader("generate_feedback", "attention", "--student", READER, "--force")
    with open(classroom.GRADES_CSV, "w") as f:
        f.write("made by make grades\n")
    nbgrader("export")
    yield {"autograde": autograded.stdout + autograded.stderr, "package": released_package}
    for student in (STUDENT, DIES, READER):
        shutil.rmtree(os.path.join(classroom.SUBMITTED, student), ignore_errors=True)


def test_generate_assignment_alone_releases_the_checkpoints_package(graded):
    """Every released notebook imports checkpoints; plain nbgrader's release carries it."""
    assert graded["package"]


def test_autograde_gives_the_judges_full_marks(graded):
    """A correct submission autograded by the plain nbgrader command scores 39 of 39."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{os.path.join(ROOT, 'records', 'gradebook.db')}") as gb:
        submission = gb.find_submission("attention", STUDENT)
        assert (submission.score, submission.max_score) == (39.0, 39.0)


def test_an_honest_submission_raises_no_checksum_alarm(graded):
    """nbgrader#1961: the release removes each hidden cell's hidden-tests block, so plain
    OverwriteCells warned "Attribute 'checksum' … has changed!" for every hidden cell of every
    honest submission. QuietOverwriteCells puts that block back silently."""
    said = graded["autograde"]
    assert "Attribute 'checksum'" not in said and "has changed" not in said, said[-3000:]


def test_an_honest_submission_raises_no_warning_at_all(graded):
    """Issue 24: a warning means something. Grading an honest submission for the first time with
    nbgrader's own command warns of nothing (nbgrader's SAWarning on a new submission included:
    records.quiet_first_submission_warning), except that --force replaces an earlier grading,
    which nbgrader states as a warning."""
    lines = graded["autograde"].splitlines()
    warned = [line for line in lines if "warn" in line.lower()]
    assert [w for w in warned if "Removing existing assignment" not in w] == [], warned


def overwrite(submitted, kept, caplog):
    """QuietOverwriteCells on one locked cell against a gradebook holding `kept`: (the cell's
    source afterwards, what it logged)."""
    import logging
    from types import SimpleNamespace

    import nbformat
    from nbgrader.utils import compute_checksum

    from grading.nbgrader.preprocess import QuietOverwriteCells

    meta = {"grade_id": "hidden-cell", "locked": True, "grade": False, "solution": False}
    original = nbformat.v4.new_code_cell(kept, metadata={"nbgrader": dict(meta)})
    stored = SimpleNamespace(source=kept, locked=True, cell_type="code",
                             checksum=compute_checksum(original))  # fmt: skip
    step = QuietOverwriteCells()
    step.gradebook = SimpleNamespace(find_source_cell=lambda *_: stored)
    step.notebook_id, step.assignment_id = "02-attention", "attention"
    step.log = logging.getLogger("quiet-overwrite-test")
    cell = nbformat.v4.new_code_cell(submitted, metadata={"nbgrader": dict(meta)})
    with caplog.at_level(logging.WARNING, logger="quiet-overwrite-test"):
        cell, _ = step.preprocess_cell(cell, {}, 0)
    return cell.source, caplog.text


KEPT = 'hidden("attention")\n### BEGIN HIDDEN TESTS\n# cases\n### END HIDDEN TESTS'


def test_the_release_s_own_change_is_restored_silently(caplog):
    """The cell as released (hidden tests removed): source back, nothing logged."""
    assert overwrite('hidden("attention")', KEPT, caplog) == (KEPT, "")


def test_any_other_change_of_a_locked_cell_still_warns_and_is_restored(caplog):
    """A learner's edit of the locked cell: nbgrader's warning, and the gradebook's source."""
    source, said = overwrite('hidden("attention")  # edited', KEPT, caplog)
    assert source == KEPT and "has changed" in said


def test_feedback_is_written(graded):
    """generate_feedback attention writes one HTML page per notebook, and nothing else but the
    MathJax they render with (nbgrader's copies of model.py, outputs/ and checkpoints/ go)."""
    folder = os.path.join(ROOT, "feedback", STUDENT, "attention")
    assert len([f for f in os.listdir(folder) if f.endswith(".html")]) == 8
    assert {f for f in os.listdir(folder) if not f.endswith(".html")} <= {"mathjax"}


def page_text(path):
    """What a feedback page shows, as text: its tags removed, its entities decoded, whitespace
    collapsed (a solution line split across highlighting spans still counts)."""
    with open(path, encoding="utf-8") as f:
        return leaks.normalised(html.unescape(re.sub(r"<[^>]+>", "", f.read())))


def test_a_missing_solution_cell_comes_back_as_the_release_has_it(graded):
    """A learner who deletes (or unmarks) every solution cell and hands in gets them back in the
    autograded notebooks, and so in the feedback, with the course's stub: no master's solution."""
    folder = os.path.join(ROOT, "autograded", READER, "attention")
    notebooks = sorted(n for n in os.listdir(folder) if n.endswith(".ipynb"))
    restored = [c for n in notebooks for c in nbformat.read(os.path.join(folder, n), 4).cells
                if c.metadata.get("nbgrader", {}).get("solution")]  # fmt: skip
    assert restored and all("YOUR CODE HERE" in c.source for c in restored)
    secrets = leaks.solution_lines()
    assert secrets  # the check has lines to look for
    shown = {n: leaks.readable_text(os.path.join(folder, n)) for n in notebooks}
    pages = os.path.join(ROOT, "feedback", READER, "attention")
    shown |= {p: page_text(os.path.join(pages, p)) for p in os.listdir(pages)
              if p.endswith(".html")}  # fmt: skip
    assert {name: [s for s in secrets if s in text] for name, text in shown.items()
            if any(s in text for s in secrets)} == {}  # fmt: skip


def test_no_feedback_page_shows_a_hidden_tests_block(graded):
    """The hidden cells' hidden-tests blocks, kept in the gradebook and the autograded notebooks,
    are not on any feedback page (ClearHiddenTests), nor any other instructor's marker."""
    # STUDENT's own cells are the masters' solution cells, markers and all (classroom's simulated
    # learner): only the reader's pages are held to "BEGIN SOLUTION" too
    shown = {STUDENT: [m for m in leaks.INSTRUCTOR_MARKERS if m != "BEGIN SOLUTION"],
             READER: leaks.INSTRUCTOR_MARKERS}  # fmt: skip
    for student, markers in shown.items():
        pages = os.path.join(ROOT, "feedback", student, "attention")
        for name in sorted(p for p in os.listdir(pages) if p.endswith(".html")):
            text = page_text(os.path.join(pages, name))
            if name == "01-softmax.html":  # the hidden cell itself is shown, its block is not
                assert 'hidden("softmax")' in text
            assert [m for m in markers if m in text] == [], (student, name)


def test_export_and_make_grades_write_different_files(graded):
    """nbgrader export writes gradebook-export.csv and leaves grades.csv (make grades') alone."""
    assert open(classroom.GRADES_CSV).read() == "made by make grades\n"
    with open(os.path.join(ROOT, "gradebook-export.csv")) as f:
        rows = [r for r in csv.DictReader(f)
                if (r["assignment"], r["student_id"]) == ("attention", STUDENT)]  # fmt: skip
    assert float(rows[0]["score"]) == 39.0


def test_formgrader_shows_only_the_course(graded):
    """The formgrader, served by Jupyter from the course root (SQLite gradebook): its assignments
    are the course's parts and nothing else, the exchange is there (no warning about it), and a
    student whose kernel died is autograded with the judge's score (the same correct work, the
    same points), the one the export has."""
    from nbgrader.api import Gradebook

    with formgrader() as (base, token, api):
        assert sorted(a["name"] for a in api("assignments")) == sorted(PARTS)
        _, page = get(f"{base}/formgrader/manage_assignments?token={token}")
        assert "warning-exchange" not in page and "Manage Assignments" in page
        shown = {s["student"]: s for s in api("submissions/attention")}
    with Gradebook(f"sqlite:///{os.path.join(ROOT, 'records', 'gradebook.db')}") as gb:
        for student in (STUDENT, DIES):
            assert shown[student]["autograded"], student
            recorded = gb.find_submission("attention", student).score
            assert shown[student]["score"] == pytest.approx(recorded), student
    assert shown[DIES]["score"] == pytest.approx(shown[STUDENT]["score"])  # the judge decides
    with open(os.path.join(ROOT, EXPORT_CSV), newline="") as f:
        exported = {r["student_id"]: r for r in csv.DictReader(f) if r["assignment"] == "attention"}
    assert float(exported[DIES]["score"]) == pytest.approx(shown[DIES]["score"])


def test_feedback_renders_its_maths_offline(graded):
    """The feedback pages load MathJax from a copy beside them, not from the web."""
    folder = os.path.join(ROOT, "feedback", STUDENT, "attention")
    page = open(os.path.join(folder, "06-layer-norm.html"), encoding="utf-8").read()
    assert 'src="mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe"' in page
    assert "cdnjs.cloudflare.com/ajax/libs/mathjax" not in page
    assert os.path.exists(os.path.join(folder, "mathjax", "MathJax.js"))
    assert os.path.exists(os.path.join(folder, "mathjax", "config", "TeX-AMS_CHTML-full.js"))


def test_feedback_maths_renders_in_a_browser_without_network(graded):
    """Opened from disk in chromium with every host name unresolvable, the formulas are typeset."""
    from playwright.sync_api import sync_playwright

    from tests.test_browser import CHROMIUM, CHROMIUM_FLAGS

    page_path = os.path.join(ROOT, "feedback", STUDENT, "attention", "06-layer-norm.html")
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=CHROMIUM_FLAGS + ["--host-resolver-rules=MAP * ~NOTFOUND"],
        )
        page = browser.new_page()
        page.goto("file://" + page_path)
        page.wait_for_selector(".mjx-chtml", timeout=60_000)  # MathJax's typeset output
        assert page.locator(".mjx-chtml").count() > 5
        browser.close()


def test_a_link_made_by_the_kernel_never_reaches_the_feedback():
    """A cell that links a file of the instructor's into its folder: the link stays in the
    kernel's private copy, so neither the autograded folder nor the feedback ever holds it."""
    import nbformat

    student = "cli-linker"
    folder = classroom.write_submission(student)
    path = os.path.join(folder, "01-softmax.ipynb")
    book = nbformat.read(path, 4)
    book.cells.insert(
        2,
        nbformat.v4.new_code_cell(
            "import os\nos.symlink("
            f"{os.path.join(ROOT, 'grading', 'judge', 'attention_hidden.py')!r}, 'leak.txt')"
        ),
    )
    nbformat.write(book, path)
    try:
        nbgrader("autograde", "attention", "--student", student, "--force")
        nbgrader("generate_feedback", "attention", "--student", student, "--force")
        from grading.judge.attention_hidden import SEED

        for here, _, files in os.walk(os.path.join(ROOT, "feedback", student)):
            assert "leak.txt" not in files
            for name in files:
                if not name.endswith((".js", ".woff")):
                    assert (
                        str(SEED)
                        not in open(
                            os.path.join(here, name), encoding="utf-8", errors="replace"
                        ).read()
                    )
        for _, _, files in os.walk(os.path.join(ROOT, "autograded", student)):
            assert "leak.txt" not in files
    finally:
        shutil.rmtree(os.path.join(classroom.SUBMITTED, student), ignore_errors=True)


@pytest.mark.browser
def test_the_formgrader_shows_the_course_in_a_real_browser(graded):
    """chromium: the assignments page lists the parts and no exchange warning, and the
    submissions page shows the student whose kernel died with the judge's full score.
    Screenshots land in test-artifacts/formgrader-sqlite-*.png."""
    top = sum(master_points().values())
    with formgrader() as (base, token, _):
        listed, warned, scores = formgrader_page.look(base, token, "attention", "formgrader-sqlite")
    assert listed == set(PARTS) and not warned
    assert scores[DIES] == scores[STUDENT] == f"{top:g} / {top:g}"


@pytest.mark.browser
def test_the_formgrader_runs_no_script_of_the_learner(graded):
    """chromium, on the formgrader's page of the notebook whose Markdown and output hold a
    script and an image with onerror: the page's title stays nbgrader's, and the instructor reads
    the Markdown's payload as text and a note where the HTML output was."""
    with formgrader() as (base, token, api):
        books = api(f"student_notebook_submissions/{DIES}/attention")
        first = next(b for b in books if b["name"] == "01-softmax")
        title, text = formgrader_page.submission(base, token, first["id"], "formgrader-script")
    assert title != PWNED and title
    assert SCRIPT in text and "not shown here: text/html" in text


def test_feedback_holds_the_notebooks_pages_and_no_page_of_the_learners(graded):
    """A learner's own notes.html is not copied beside the pages: the formgrader serves that
    folder's files as pages of the instructor's server."""
    folder = os.path.join(ROOT, "feedback", READER, "attention")
    pages = {name[: -len(".ipynb")] + ".html" for name in os.listdir(course.release_folder())
             if name.endswith(".ipynb")}  # fmt: skip
    assert set(os.listdir(folder)) == pages | {"mathjax"}


@pytest.mark.browser
def test_no_formula_links_a_script_and_the_maths_renders_offline(graded):
    """chromium, on the feedback page and the formgrader's page of the notebook whose Markdown
    holds `$\\href{javascript:…}{…}$`, `$\\href{http://…}{…}$` and a `\\style` whose cursor is an
    address (fetched as soon as it is typeset, with the instructor's cookies): each typesets with
    the course's MathJax (no request for a MathJax file fails, none leaves 127.0.0.1 or the disk),
    each formula is its text, not a link, no element of either page has a javascript: address,
    and either page refuses to follow one that a script puts in."""
    feedback = os.path.join(ROOT, "feedback", READER, "attention", "01-softmax.html")
    with formgrader() as (base, token, api):
        books = api(f"student_notebook_submissions/{READER}/attention")
        first = next(b for b in books if b["name"] == "01-softmax")
        formgraded = f"{base}/formgrader/submissions/{first['id']}/?token={token}"
        seen = formgrader_page.maths([("file://" + feedback, "file://"), (formgraded, base)],
                                     HINT, "script-link")  # fmt: skip
    for url, page in seen.items():
        assert page["typeset"] and page["formulas"] == [False, False, False], (url, page)
        assert page["scripts"] == [] and page["guarded"], (url, page)
        assert page["failed"] == page["refused"] == [], (url, page)
