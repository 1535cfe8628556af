"""A hostile class graded like any other:
no attack gains, none is dropped, nothing escapes its folder.

One run per test session (tests/grading/conftest.py): the student edition, the hostile class of
tests/fixtures/hostile.py with the races and the two honest references, a loopback listener for
the network attack, a snapshot of the repository, then grading.classroom.autograde() over
everyone and grading.classroom.grades(). test_hostile_lanes.py reads the same run as its farm lane.

    HOSTILE_ONLY=h-gr-judge,h-ref-gc pytest -m hostile -s    # a quick run on a few submissions
"""

import csv
import io

import pytest

from grading import tables
from grading.nbgrader.unpack import MAX_BYTES
from tests.fixtures import hostile
from tests.fixtures.hostile_watch import submission_of

pytestmark = [pytest.mark.nbgrader, pytest.mark.hostile]

CLASS = hostile.selected()
ATTACKS = [a for a in CLASS if a in hostile.ATTACKS]
NOISE = [a for a in CLASS if a in hostile.NOISE]
MAX_SCORE = 39.0


@pytest.fixture
def graded(hostile_class_graded):
    """The class as make autograde's farm graded it."""
    return hostile_class_graded


def honest(graded, attack):
    """The base's honest score, or what its honest reference really scored here if that is lower."""
    measured = graded["rows"].get(attack.base, (hostile.honest_score(attack),))[0]
    return min(hostile.honest_score(attack), measured)


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.student)
def test_attack_gains_nothing(graded, attack):
    """No attack scores more than its base scores honestly
    (39 for correct, 33 for wrong-softmax).
    """
    student = submission_of(attack, graded)  # a kernel escape rides in a packed submission
    assert student in graded["rows"], f"{student} has no submission in the gradebook"
    score, limit = graded["rows"][student][0], honest(graded, attack)
    assert score <= limit + 1e-9, f"{student} ({attack.how}) scored {score}, honestly {limit}"


@pytest.mark.parametrize("attack", ATTACKS + NOISE, ids=lambda a: a.student)
def test_attack_is_graded(graded, attack):
    """Every submission, however hostile, has a gradebook submission worth the full 39 points."""
    student = submission_of(attack, graded)
    assert student in graded["rows"], f"{student} was dropped from the gradebook"
    assert graded["rows"][student][1] == MAX_SCORE


@pytest.mark.parametrize("attack", NOISE, ids=lambda a: a.student)
def test_honest_noise_keeps_full_marks(graded, attack):
    """Lots of output, a line on stderr, a chatty softmax: ordinary learner habits cost nothing."""
    assert graded["rows"][attack.student][0] == MAX_SCORE


def test_references_score_honestly(graded):
    """Graded beside the hostile class, the honest references still score 39 and 33."""
    assert graded["rows"]["correct"][0] == hostile.HONEST["correct"]
    assert graded["rows"]["wrong-softmax"][0] == hostile.HONEST["wrong-softmax"]


def test_nothing_written_outside(graded):
    """No repository file changed, no canary outside its own student's folders,
    /tmp or $HOME, no connection.
    """
    assert graded["changed"] == {}, f"repository files changed while grading: {graded['changed']}"
    assert graded["escaped"] == [], f"canaries outside their submission: {graded['escaped']}"
    assert graded["connections"] == [], (
        f"connections reached the loopback listener: {graded['connections']}"
    )


def test_gradebook_intact(graded):
    """Every grade's auto score lies between 0 and its cell's maximum
    (no one wrote the gradebook).
    """
    bad = [g for g in graded["grades"] if g[2] is not None and not 0 <= g[2] <= g[3]]
    assert bad == [], f"grades outside [0, max]: {bad[:10]}"


def test_grades_export(graded):
    """grading.classroom.grades() still writes grades.csv after the hostile class was graded."""
    assert graded["export_error"] is None


def test_no_submission_is_refused_by_nbgrader(graded):
    """nbgrader itself graded every submission (intake and the repairs kept each one gradable)."""
    refused = {
        s: p
        for s, ps in graded["problems"].items()
        for p in ps
        if p.startswith("nbgrader could not grade")
    }
    assert refused == {}


def test_every_repair_and_zero_is_said_in_plain_words(graded):
    """The kernel deaths, the stray metadata and the imports beyond math
    each have a sentence for grades.csv.
    """
    expected = {
        "h-res-exit-cell": "the kernel stopped",
        "h-nb-extra-grade-id": "unknown grading id",
        "h-nb-extra-no-grade-id": "grading metadata",
        "h-nb-duplicated": "a second copy of",
        "h-imp-numpy": "import numpy",
        "h-res-systemexit-model": "raised SystemExit",
        "h-nb-invalid-json": "not a readable notebook",
    }
    for attacker, phrase in expected.items():
        student = submission_of(hostile.BY_STUDENT[attacker], graded)
        if student in graded["problems"]:
            assert any(phrase in p for p in graded["problems"][student]), (
                student,
                graded["problems"][student],
            )


BY_HAND = [a for a in ATTACKS if a.edit == "by_hand"]


@pytest.mark.parametrize("attack", BY_HAND, ids=lambda a: a.student)
def test_a_hand_placed_folder_has_no_time_of_its_own_and_keeps_to_the_caps(graded, attack):
    """A folder placed in submitted/ by hand with its own timestamp.txt, a set-uid model.py, a file
    past the size cap and a folder too deep: graded in full, its time unknown (the learner's
    is not taken), what passed the caps kept aside and named, and no set-id file anywhere."""
    student = attack.student
    assert graded["rows"][student][0] == MAX_SCORE
    assert graded["handed_in"][student] is None, graded["handed_in"][student]
    said = " ".join(graded["problems"][student])
    for phrase in ("timestamp.txt was not used", "bulk.bin", "folders deep"):
        assert phrase in said, (phrase, said)
    names, size = graded["autograded"][student]  # what nbgrader copied to grade
    assert "bulk.bin" not in names and "notes.md" not in names and size < MAX_BYTES, size
    assert graded["set_id"] == []


@pytest.mark.parametrize("attack", [a for a in ATTACKS if a.edit == "formula_link"],
                         ids=lambda a: a.student)  # fmt: skip
def test_grades_csv_shows_a_learners_formula_as_text(graded, attack):
    """The problems column quotes a file name the learner chose, =HYPERLINK(…): grades.csv
    writes it as text (a leading '), and no cell of it starts like a formula."""
    rows = list(csv.reader(io.StringIO(graded["grades_csv"])))
    cells = [cell for row in rows for cell in row]
    runs = [c for c in cells if tables.starts_like_formula(c) and not tables.NUMBER.fullmatch(c)]
    assert runs == []
    row = next(row for row in rows if row[0] == attack.student)
    assert row[-1].startswith("'" + hostile.FORMULA_NAME), row[-1]
