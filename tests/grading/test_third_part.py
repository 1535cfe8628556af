"""A part is data: a tiny third part (one notebook, one function, one visible and one hidden
cell) added to a copy of the course with one registry entry and its own files, then released,
autograded and tabled by the course's own commands, as root hands them over."""

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

import nbformat
import pytest

from grading.paths import ROOT, masters

pytestmark = [
    pytest.mark.nbgrader,
    pytest.mark.skipif(os.geteuid() != 0, reason="root hands grading over to the course user"),
]
HERE = os.path.join(ROOT, "tests", "fixtures", "third_part")
SOLUTION = (
    "%%writefile double.py\ndef double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n"
    "    ### END SOLUTION\n"
)


def graded(grade_id, source):
    """A locked, graded code cell worth one point."""
    return nbformat.v4.new_code_cell(source, metadata={"nbgrader": {
        "grade": True, "grade_id": grade_id, "locked": True, "points": 1, "schema_version": 3,
        "solution": False, "task": False}})  # fmt: skip


def master_notebook():
    """The tiny part's one master notebook, with nbgrader's metadata as the course's have it."""
    book = nbformat.v4.new_notebook()
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    book.metadata.update(kernelspec=kernel, language_info={"name": "python"})
    book.cells = [
        nbformat.v4.new_markdown_cell("# Double\n\nWrite `double(x)`, twice x."),
        nbformat.v4.new_code_cell(
            SOLUTION,
            metadata={
                "nbgrader": {
                    "grade": False,
                    "grade_id": "tiny-double-solution",
                    "locked": False,
                    "schema_version": 3,
                    "solution": True,
                    "task": False,
                }
            },
        ),  # fmt: skip
        graded("tiny-double-checks", "from double import double\nassert double(2) == 4"),
        graded(
            "tiny-double-hidden",
            "### BEGIN HIDDEN TESTS\nassert double(21) == 42\n### END HIDDEN TESTS",
        ),  # fmt: skip
    ]
    return book


def course_with_a_third_part():
    """A copy of the repository's tracked files, plus the tiny part: its master notebook, its
    judge module and its registry entry. Every account can reach it (root hands over)."""
    copy = tempfile.mkdtemp(prefix="attn-third-part-")
    os.chmod(copy, 0o755)
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode().split("\0")  # fmt: skip
    for rel in filter(None, tracked):
        if os.path.isfile(os.path.join(ROOT, rel)):
            os.makedirs(os.path.dirname(os.path.join(copy, rel)), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, rel), os.path.join(copy, rel))
    source = os.path.join(copy, os.path.relpath(masters("tiny"), ROOT))
    os.makedirs(source)
    nbformat.write(master_notebook(), os.path.join(source, "01-double.ipynb"))
    shutil.copy(os.path.join(HERE, "judge.py"), os.path.join(copy, "grading", "judge", "tiny.py"))
    registry = os.path.join(copy, "grading", "parts.py")
    text = open(registry, encoding="utf-8").read()
    end = "    ]\n}\nASSIGNMENT = "
    assert text.count(end) == 1, "the registry's list of parts ends as this test expects"
    entry = open(os.path.join(HERE, "entry.txt"), encoding="utf-8").read()
    with open(registry, "w", encoding="utf-8") as f:
        f.write(text.replace(end, entry + end))
    for here, folders, _ in os.walk(copy):
        for name in folders:
            os.chmod(os.path.join(here, name), 0o755)
    return copy


def run(copy, *command):
    """`python -m grading <command>` in the copy, as root runs it from make."""
    env = dict(os.environ, PATH=f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}")
    env.pop("ATTENTION_COURSE", None)
    env.pop("PYTHONPATH", None)
    done = subprocess.run([sys.executable, "-m", "grading", *command], cwd=copy, env=env,
                          capture_output=True, text=True, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def hand_in(copy, student, body):
    """A learner's submission of the tiny part: the released notebook solved, and double.py."""
    folder = os.path.join(copy, "submitted", student, "tiny")
    shutil.copytree(os.path.join(copy, "release", "tiny"), folder)
    path = os.path.join(folder, "01-double.ipynb")
    book = nbformat.read(path, 4)
    book.cells[1].source = f"%%writefile double.py\n{body}"
    nbformat.write(book, path)
    with open(os.path.join(folder, "double.py"), "w", encoding="utf-8") as f:
        f.write(body)


def test_a_third_part_is_released_graded_and_tabled_by_the_course_commands():
    copy = course_with_a_third_part()
    try:
        assert "tiny" in run(copy, "release", "--help").stdout
        run(copy, "release", "--part", "tiny")
        released = open(os.path.join(copy, "release", "tiny", "01-double.ipynb")).read()
        assert "return 2 * x" not in released and "BEGIN HIDDEN TESTS" not in released
        shipped = os.listdir(os.path.join(copy, "release", "tiny", "checkpoints"))
        assert "xslm" not in shipped and "attention" not in shipped and "i18n.py" in shipped
        hand_in(copy, "ana", "def double(x):\n    return x + x\n")
        hand_in(copy, "bob", "def double(x):\n    return x * 3\n")
        run(copy, "autograde", "--part", "tiny")
        run(copy, "grades", "--part", "tiny")
        with open(os.path.join(copy, "records", "grades-tiny.csv"), newline="") as f:
            rows = {row["student"]: row for row in csv.DictReader(f)}
        assert sorted(rows) == ["ana", "bob"]
        assert {"tiny-double-checks", "tiny-double-hidden"} <= set(rows["ana"])
        assert float(rows["ana"]["max"]) == pytest.approx(2.0)
        assert float(rows["ana"]["total"]) == pytest.approx(2.0)
        assert float(rows["bob"]["total"]) == pytest.approx(0.0)
        judged = run(copy, "judge", os.path.join(copy, "submitted", "bob", "tiny")).stdout
        assert "[FAIL] tiny-double-checks" in judged and "double(2) is 4" in judged
        run(copy, "report", "--part", "tiny")  # a part that names no mistakes still reports
        with open(os.path.join(copy, "records", "report-tiny.json"), encoding="utf-8") as f:
            report = json.load(f)
        assert (report["students"], report["graded"], report["mistakes"]) == (2, 2, [])
        shares = {row["grade_id"]: row["passing"] for row in report["checkpoints"]}
        assert shares == pytest.approx({"tiny-double-checks": 0.5, "tiny-double-hidden": 0.5})
    finally:
        shutil.rmtree(copy, ignore_errors=True)
