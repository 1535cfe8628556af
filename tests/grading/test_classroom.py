"""Issue 3: the demo class through release → submit → autograde → feedback → export,
scores derived per mistake; issue 21: all of it in demo/, the course's own class untouched.
"""

import csv
import os

import pytest

from checkpoints.attention.catalogue import BY_NAME
from checkpoints.attention.modelfile import step_number
from grading import classroom
from grading.paths import ROOT
from tests.fixtures.helpers import (
    REAL_STUDENT,
    class_files,
    gradebook_students,
    master_points,
    remove_real_class,
    write_real_class,
)
from tests.grading.authoring.test_release import reference_body_lines

pytestmark = pytest.mark.nbgrader


@pytest.fixture(scope="module")
def real_class():
    """The course holds a real class (a learner's submission, a gradebook naming them) while the
    demo runs: {path: bytes} of it and the gradebook's students, before the demo."""
    write_real_class()
    yield class_files(ROOT), gradebook_students(os.path.join(ROOT, "records", "gradebook.db"))
    remove_real_class()


@pytest.fixture(scope="module")
def table(real_class):
    classroom.demo()
    with open(os.path.join(classroom.DEMO, "records", "grades.csv")) as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def test_demo_leaves_the_course_class_alone(real_class, table):
    """make demo grades its class in demo/: the course's submissions, results, gradebook and
    tables are byte for byte as they were, and no demo student is in the course's gradebook."""
    files, students = real_class
    assert REAL_STUDENT in students and f"submitted/{REAL_STUDENT}/attention/model.py" in files
    after = class_files(ROOT)
    changed = sorted(p for p in files.keys() | after.keys() if files.get(p) != after.get(p))
    assert changed == []
    assert gradebook_students(os.path.join(ROOT, "records", "gradebook.db")) == students
    assert REAL_STUDENT not in table
    demo_students = gradebook_students(os.path.join(classroom.DEMO, "records", "gradebook.db"))
    assert demo_students == set(table) and REAL_STUDENT not in demo_students


# Without the √d_k division the √d experiment measures nothing: its artifact fails too.
ARTIFACTS_IT_SPOILS = {"no-sqrt-d": {"step02-scale-artifact"}}


def lost(row):
    return {c for c, v in row.items() if c.startswith("step") and float(v) == 0.0}


def step_of(checkpoint):
    return f"step{step_number(checkpoint):02d}-"


def test_correct_gets_full_marks_and_empty_gets_zero(table):
    """The complete submission scores the maximum; the untouched student edition scores 0."""
    assert float(table["correct"]["total"]) == float(table["correct"]["max"]) > 0
    assert float(table["empty"]["total"]) == 0.0


@pytest.mark.parametrize("student", sorted(classroom.DEMO_MISTAKES))
def test_each_mistake_costs_exactly_its_own_checkpoint(table, student):
    """A submission with one mistake loses that checkpoint's visible and hidden cells,
    nothing else.
    """
    mistake = BY_NAME[classroom.DEMO_MISTAKES[student]]
    prefix = step_of(mistake.checkpoint)
    own = {
        prefix + mistake.checkpoint.replace("_", "-") + "-checks",
        prefix + mistake.checkpoint.replace("_", "-") + "-hidden",
    }
    assert lost(table[student]) == own | ARTIFACTS_IT_SPOILS.get(student, set())
    assert mistake.name in table[student]["diagnosis"]


def test_half_finished_keeps_the_first_four_steps(table):
    """Steps 1-4 done: their cells score, the rest (and the artifacts) do not."""
    gone = lost(table["half-finished"])
    assert not any(c.startswith(("step01", "step03", "step04")) for c in gone)
    assert {"step05-pos-encoding-hidden", "step06-layer-norm-hidden", "step07-block-hidden"} <= gone


def test_feedback_shows_results_but_no_reference(table):
    """The feedback HTML carries the diagnosis and hints,
    and no line of the reference implementation.
    """
    path = os.path.join(classroom.DEMO, "feedback", "no-sqrt-d", "attention", "02-attention.html")
    text = open(path, encoding="utf-8").read()
    assert "looks like: no √d_k scaling" in text
    import html

    leaked = [line for line in reference_body_lines() if html.escape(line) in text or line in text]
    assert leaked == []


def test_demo_students_have_names_in_the_gradebook(table):
    """The formgrader lists people: every demo student has a first and a last name."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{os.path.join(classroom.DEMO, 'records', 'gradebook.db')}") as gb:
        named = {s.id: (s.first_name, s.last_name) for s in gb.students}
    assert all(named[student][0] and named[student][1] for student in table)


@pytest.fixture(scope="module")
def class_report(table):
    """`python -m grading report --demo` after the demo: its JSON, its page's path."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "grading", "report", "--demo"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    records = os.path.join(classroom.DEMO, "records")
    with open(os.path.join(records, "report.json"), encoding="utf-8") as f:
        return json.load(f), os.path.join(records, "report.html")


def test_the_class_report_agrees_with_grades_csv(table, class_report):
    """Every count of the report, derived again from grades.csv and the masters' points: the
    students, each cell's share at full points, each named mistake's learners, the totals."""
    report, _ = class_report
    points = master_points()
    assert report["students"] == report["graded"] == len(table)
    assert report["max"] == pytest.approx(sum(points.values()))
    rows = {r["grade_id"]: r for r in report["checkpoints"]}
    assert set(rows) == set(points)
    for grade_id, top in points.items():
        full = sum(float(row[grade_id]) >= top for row in table.values())
        assert rows[grade_id]["passing"] == pytest.approx(full / len(table)), grade_id
    named = {}
    for student, row in table.items():
        for name in row["diagnosis"].split():
            named.setdefault(name, set()).add(student)
    assert {m["name"]: set(m["who"]) for m in report["mistakes"]} == named
    counts = [m["students"] for m in report["mistakes"]]
    assert counts == sorted(counts, reverse=True)
    totals = sorted(float(row["total"]) for row in table.values())
    assert report["mean"] == pytest.approx(sum(totals) / len(totals))
    assert sum(count for *_, count in report["histogram"]) == len(table)
    look = {s["student"] for s in report["look"]}
    assert "empty" in look and "correct" not in look


def test_the_class_report_names_where_each_mistake_is_taught(class_report):
    """A mistake the demo class made points at the notebook whose checkpoint spots it."""
    report, _ = class_report
    for row in report["mistakes"]:
        step = step_number(BY_NAME[row["name"]].checkpoint)
        assert row["notebook"].startswith(f"{step:02d}-"), row


@pytest.mark.browser
def test_the_class_report_opens_in_a_real_browser(class_report):
    """chromium shows the page offline: its title, the histogram's SVG, the named mistakes and the
    checkpoint table; a screenshot lands in test-artifacts/class-report.png."""
    from playwright.sync_api import sync_playwright

    from tests.test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_FLAGS

    report, path = class_report
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        tab = browser.new_page(viewport={"width": 1280, "height": 1800})
        tab.route(
            "**/*",
            lambda route: (
                route.abort() if not route.request.url.startswith("file:") else route.continue_()
            ),
        )  # offline: the page needs nothing but itself
        tab.goto(f"file://{path}")
        assert tab.title() == "Class report: attention"
        assert tab.locator("svg[aria-label='score distribution'] rect").count() == 10
        assert tab.get_by_text(report["mistakes"][0]["title"], exact=True).first.is_visible()
        assert tab.locator("table").nth(1).locator("tbody tr").count() == len(report["checkpoints"])
        os.makedirs(ARTIFACTS, exist_ok=True)
        tab.screenshot(path=os.path.join(ARTIFACTS, "class-report.png"), full_page=True)
        browser.close()


def grading_command(*argv):
    """`python -m grading <argv>` as an instructor runs it (as root, it hands over)."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "grading", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)  # fmt: skip


def read_rows(path):
    """A CSV file's rows."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


@pytest.fixture(scope="module")
def rostered(table, class_report, real_class, tmp_path_factory):
    """The demo's gradebook after `roster --demo` of a roster renaming two demo students (refused,
    then forced) and adding one who handed nothing in. After the class report, which counts the
    demo's own class."""
    path = tmp_path_factory.mktemp("roster") / "roster.csv"  # the instructor's, root's alone
    path.write_text("Student,First Name,Last Name,Email,LMS User ID\n"
                    "correct,Cora,Rect,cora@example.org,5001\n"
                    "empty,Em,,,5002\n"
                    "dana,Dana,Scully,dana@example.org,5099\n", encoding="utf-8")  # fmt: skip
    refused = grading_command("roster", str(path), "--demo")
    forced = grading_command("roster", str(path), "--demo", "--force")
    return refused, forced


def test_a_roster_changes_names_the_gradebook_holds_only_when_forced(rostered, real_class):
    from nbgrader.api import Gradebook

    refused, forced = rostered
    assert refused.returncode != 0 and "nothing was written" in refused.stderr
    assert "correct: last_name 'Correct' -> 'Rect'" in refused.stdout
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert "1 added, 2 updated" in forced.stdout
    with Gradebook(f"sqlite:///{os.path.join(classroom.DEMO, 'records', 'gradebook.db')}") as gb:
        known = {s.id: (s.first_name, s.last_name, s.email, s.lms_user_id) for s in gb.students}
    assert known["correct"] == ("Cora", "Rect", "cora@example.org", "5001")
    assert known["empty"] == ("Em", "Empty", "empty@example.org", "5002")  # blanks keep the old
    assert known["dana"] == ("Dana", "Scully", "dana@example.org", "5099")
    _, before = real_class
    assert gradebook_students(os.path.join(ROOT, "records", "gradebook.db")) == before


def test_canvas_and_moodle_exports_carry_grades_csv_scores(table, rostered):
    """Totals into Canvas's layout and every graded cell into Moodle's, for the demo class: each
    score is grades.csv's, the one student with nothing handed in is blank, not zero."""
    exports = os.path.join(classroom.DEMO, "records", "exports")
    done = grading_command("export", "--to", "canvas", "--title", "Attention lab", "--demo")
    assert done.returncode == 0, done.stdout + done.stderr
    canvas = read_rows(os.path.join(exports, "canvas.csv"))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Attention lab"]
    assert float(canvas[1][5]) == pytest.approx(sum(master_points().values()))
    by_login = {row[3]: row for row in canvas[2:]}
    assert set(by_login) == set(table) | {"dana"}
    for student, row in table.items():
        assert float(by_login[student][5]) == pytest.approx(float(row["total"])), student
    assert by_login["dana"][:2] == ["Scully, Dana", "5099"] and by_login["dana"][5] == ""

    done = grading_command("export", "--to", "moodle", "--columns", "checkpoints", "--demo")
    assert done.returncode == 0, done.stdout + done.stderr
    moodle = read_rows(os.path.join(exports, "moodle.csv"))
    header = moodle[0]
    assert header[:4] == ["First name", "Last name", "ID number", "Email address"]
    assert sorted(header[4:]) == sorted(f"attention: {g}" for g in master_points())
    by_id = {row[2]: dict(zip(header, row)) for row in moodle[1:]}
    for student, row in table.items():
        for grade_id in master_points():
            got = float(by_id[student][f"attention: {grade_id}"])
            assert got == pytest.approx(float(row[grade_id])), (student, grade_id)
    assert by_id["correct"]["Email address"] == "cora@example.org"
    assert all(by_id["dana"][h] == "" for h in header[4:])
