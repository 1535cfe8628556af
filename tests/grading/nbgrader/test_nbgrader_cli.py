"""nbgrader's own commands, as its docs write them, work on this course;
the formgrader serves it.
"""

import csv
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.request

import pytest

from grading import classroom
from grading.authoring import course
from grading.paths import ROOT
from tests.fixtures.lab_server import free_port, get

pytestmark = pytest.mark.nbgrader
STUDENT = "cli-student"


def nbgrader(*args):
    done = course.nbgrader(*args)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return done


@pytest.fixture(scope="module")
def graded():
    """generate_assignment, autograde, generate_feedback and export,
    each as `nbgrader <command> attention`.
    """
    nbgrader("generate_assignment", "attention", "--force")
    shutil.rmtree(os.path.join(classroom.SUBMITTED, STUDENT), ignore_errors=True)
    course.nbgrader("db", "student", "remove", STUDENT, "--force")  # graded for the first time
    classroom.write_submission(STUDENT)
    autograded = nbgrader("autograde", "attention", "--student", STUDENT, "--force")
    nbgrader("generate_feedback", "attention", "--student", STUDENT, "--force")
    with open(classroom.GRADES_CSV, "w") as f:
        f.write("made by make grades\n")
    nbgrader("export")
    yield {"autograde": autograded.stdout + autograded.stderr}
    shutil.rmtree(os.path.join(classroom.SUBMITTED, STUDENT), ignore_errors=True)


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


def test_export_and_make_grades_write_different_files(graded):
    """nbgrader export writes gradebook-export.csv and leaves grades.csv (make grades') alone."""
    assert open(classroom.GRADES_CSV).read() == "made by make grades\n"
    with open(os.path.join(ROOT, "gradebook-export.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["student_id"] == STUDENT]
    assert float(rows[0]["score"]) == 39.0


def test_formgrader_lists_the_assignment(graded):
    """The formgrader, served by Jupyter from the course root,
    knows the assignment and the submission.
    """
    port, token = free_port(), "formgradertest"
    server = subprocess.Popen(
        [
            os.path.join(os.path.dirname(course.sys.executable), "jupyter"),
            "server",
            "--no-browser",
            f"--ServerApp.port={port}",
            f"--IdentityProvider.token={token}",
            "--ServerApp.ip=127.0.0.1",
            "--allow-root",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                code, _ = get(f"http://127.0.0.1:{port}/formgrader?token={token}")
                break
            except OSError:
                assert time.monotonic() < deadline, "the formgrader never answered"
                time.sleep(0.5)
        assert code == 200
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/formgrader/api/assignments",
            headers={"Authorization": f"token {token}"},
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            assignments = json.loads(reply.read())
        attention = next(a for a in assignments if a["name"] == "attention")
        assert attention["num_submissions"] >= 1
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


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
