"""Learner processes that outlive their cell, through every lane: plain `nbgrader autograde`, the
local farm (JOBS=2, warm kernels), the farm without execution (EXECUTE=0: only the judge runs
learner code) and Dask (SCHEDULER=local).

The class: tests/fixtures/hostile.py's RACES (a process racing the grader with links and renames, a
fork bomb held at the limit, a disk filler, a chmod of its own folder, a killed kernel), each attack
of the hostile class whose code runs in the kernel on the correct base (writing outside, network,
resources, exits: the ones the kernel's sandbox must hold, which differs by lane; the attacks that
try to gain points meet the judge, which is the same in every lane) and one honest classmate whose
files the racer aims at (hostile_watch.LANE_CLASS). The kernel escapes are packed, one to a
notebook, into three submissions (hostile_watch.packed): each still meets a kernel of its own, at
an eighth of the cost; the last also carries saved outputs that forge a verdict (hostile.FORGERY),
which the no-execution lane's pages must show as the learner's own. Each lane must leave: the
gradebook intact; every file outside the submissions unchanged in content and mode, canaries
outside the course included; every submission graded at its honest score; no learner process
left; no autograded folder larger than the submission; a kernel's output floods cut at the caps
as they arrive, and its 3 GiB refused. The farm lane's run is the hostile class's
(tests/grading/conftest.py), which grades this class among the others; the other lanes grade
this class alone.
"""

import json
import os
import subprocess
import sys

import nbformat
import pytest

from checkpoints import i18n
from grading import classroom, course_user
from grading.authoring import course
from grading.machine import sandbox
from grading.nbgrader import output_caps
from grading.nbgrader.preprocess import outputs_handed_in
from grading.parts import ASSIGNMENT
from grading.paths import AUTOGRADED, FEEDBACK, ROOT
from tests.fixtures import hostile
from tests.fixtures.display_pages import Boxed, formgrader_page
from tests.fixtures.hostile_watch import (
    FLOODS,
    FORGED,
    LANE_CLASS,
    MOVED,
    VICTIM,
    Listener,
    Watch,
    lanes_ride_along,
)

pytestmark = [pytest.mark.nbgrader, pytest.mark.hostile]

HONEST = hostile.HONEST[hostile.C]
STUDENTS = sorted({VICTIM} | {a.student for a in LANE_CLASS})


def lane_plain():
    """nbgrader's own command, one call, cold kernels."""
    done = course.nbgrader("autograde", "attention", "--force")
    assert done.returncode == 0, done.stderr[-2000:]


def make_autograde(*options, **env):
    """make autograde's command, as the instructor runs it (as root, it hands itself over)."""
    command = [sys.executable, "-m", "grading", "autograde", "--force", *options]
    done = subprocess.run(command, cwd=ROOT, env={**course.tool_environment(), **env},
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"autograded {len(STUDENTS)} submissions" in done.stdout, done.stdout[-2000:]


def lane_noexec():
    """make autograde EXECUTE=0 JOBS=2: no kernel; the judge's workers alone run learner code."""
    make_autograde("--jobs", "2", ATTENTION_EXECUTE="0")


def lane_dask():
    """make autograde SCHEDULER=local: a Dask cluster on this machine."""
    make_autograde("--scheduler", "local")


def lane_farm():
    """make autograde JOBS=2: two grading servers, warm kernels."""
    make_autograde("--jobs", "2")


LANES = {"plain": lane_plain, "farm": lane_farm, "noexec": lane_noexec, "dask": lane_dask}


@pytest.fixture(scope="module", params=list(LANES))
def graded(request):
    """The class graded through one lane, and what it left behind."""
    if request.param == "farm" and lanes_ride_along():  # the hostile class's run, which grades
        yield request.getfixturevalue("hostile_class_graded")  # this class among the others
        return
    classroom.start_over()
    classroom.write_submission(VICTIM)
    listener = Listener()
    hostile.write_attacks(LANE_CLASS, ROOT, port=listener.port)
    watch = Watch(listener)
    LANES[request.param]()
    record = watch.finish()
    print(f"\n{request.param}: {len(STUDENTS)} submissions in {record['elapsed']:.0f} s")
    yield {**record, "lane": request.param}


def test_no_canary_escapes_and_nothing_connects(graded):
    """No canary outside its own student's folders (the course, /tmp, $HOME), no connection to
    the loopback listener."""
    assert graded["escaped"] == [], graded["lane"]
    assert graded["connections"] == [], graded["lane"]


def test_files_outside_the_submissions_are_unchanged(graded):
    """Canaries outside the course, the gradebook, grading code, the classmate: bytes and modes."""
    for key in ("outside", "watched", "victim", "gradebook_mode"):
        before, after = graded[key]
        assert after == before, f"{graded['lane']}: {key} changed"
    assert graded["changed"] == {}, f"{graded['lane']}: the course changed: {graded['changed']}"


def test_every_submission_is_graded_at_its_honest_score(graded):
    """The gradebook opens, holds every student, and no attack moved a score."""
    scores = graded["scores"]
    assert set(STUDENTS) <= set(scores), graded["lane"]  # the farm grades the hostile class too
    for student in STUDENTS:
        assert sum(scores[student].values()) == pytest.approx(HONEST), (graded["lane"], student)


def test_no_learner_process_outlives_grading(graded):
    """No racer or fork-bomb child is alive once the lane returns (the racer would run 90 s)."""
    assert graded["left"] == [], graded["lane"]


def test_nothing_a_kernel_wrote_reaches_the_autograded_folder(graded):
    """The disk filler's gigabyte stays in its bounded private folder and goes with it."""
    for student in STUDENTS:
        names, size = graded["autograded"][student]  # read as the lane returned
        assert not any(n.startswith("HOSTILE-fill") for n in names), (graded["lane"], student)
        assert size < graded["submitted"][student] + (4 << 20), (graded["lane"], student)
        assert "08-notes.ipynb" in names, (graded["lane"], student)


@pytest.mark.parametrize("flood", FLOODS)
def test_an_output_flood_is_cut_as_it_arrives(graded, flood):
    """A cell printing hundreds of MB (in one write, or line by line): its autograded notebook
    stays under the notebook's cap, the cell says where its output was cut, and the problems
    column names the cap; its submission still scores honestly (above). The no-execution lane
    runs nothing, so it has nothing to cut."""
    where = MOVED[flood].student, MOVED[flood].notebook
    size, texts, _ = graded["printed"][where]
    assert size < output_caps.NOTEBOOK_BYTES + (1 << 20), (graded["lane"], flood, size)
    if graded["lane"] == "noexec":
        return
    limit = output_caps.mebibytes(output_caps.CELL_BYTES)
    note = i18n.lookup("judge", "output_cut_cell", "en").format(limit=limit)
    assert any(note in text for text in texts), (graded["lane"], flood, [t[:80] for t in texts])
    said = [p for p in graded["problems"][where[0]] if p.startswith(f"{where[1][:-6]}: output")]
    assert said and f"{limit} per cell" in said[0], (graded["lane"], graded["problems"][where[0]])


def test_the_kernels_memory_limit_holds(graded):
    """A cell that asks for 3 GiB is refused in the kernel (MemoryError: the sandbox's limits,
    cold kernels and warm ones alike), and the run goes on."""
    where = MOVED["h-res-memory"].student, MOVED["h-res-memory"].notebook
    _, _, errors = graded["printed"][where]
    if graded["lane"] != "noexec":  # which runs no kernel
        assert "MemoryError" in errors, (graded["lane"], errors)


@pytest.mark.skipif(os.geteuid() != 0, reason="the hand-over to the course user is root's")
def test_no_grading_process_runs_as_root(graded):
    """Started by root, every process of the lane (nbgrader, the grading servers, Dask, the
    sandboxes) runs as the course user once it has handed itself over, and learner code under
    the sandbox uids: none is still root."""
    owners = graded["owners"]
    assert owners.still_root() == {}, (graded["lane"], owners.seen)
    assert owners.raised() <= {"newuidmap", "newgidmap"}, graded["lane"]  # mapping sandbox uids
    grader = course_user.account().pw_uid
    learners = owners.accounts() - {grader}
    assert grader in owners.accounts(), graded["lane"]
    assert learners and learners <= set(sandbox.SANDBOX_UIDS), (graded["lane"], learners)


def autograded(student, notebook):
    """The path of one autograded notebook of the lane's class."""
    return os.path.join(AUTOGRADED, student, ASSIGNMENT, notebook + ".ipynb")


def feedback_page(student, notebook):
    """`nbgrader generate_feedback` for one notebook of one student (as the instructor runs it:
    as root, it hands itself over); the page's HTML."""
    done = course.nbgrader("generate_feedback", ASSIGNMENT, "--student", student,
                           "--notebook", notebook, "--force")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    page = os.path.join(FEEDBACK, student, ASSIGNMENT, notebook + ".html")
    with open(page, encoding="utf-8") as f:
        return f.read()


def verdict_summaries(book):
    """The first line of each judge's verdict in an autograded notebook (its graded cells)."""
    return [
        output.data["text/plain"].splitlines()[0]
        for cell in book.cells
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade")
        for output in cell.outputs
        if output.output_type == "display_data"
    ]


def test_saved_outputs_show_as_the_learners_never_as_a_verdict(graded):
    """EXECUTE=0 keeps the outputs a learner saved: in the feedback page and in the formgrader's
    page of the autograded notebook, the forged verdict and grader's note lie only inside boxes
    labelled as the learner's saved output (as many as the notebook has ungraded cells with
    outputs), the judge's verdicts outside them, and what was saved in a graded cell nowhere. The
    executing lanes keep nothing saved, nor the notebook's claim that its outputs are saved ones."""
    path = autograded(FORGED.student, "01-softmax")
    book = nbformat.reads(graded["forged_notebook"], as_version=4)  # read as the lane returned
    if graded["lane"] != "noexec":
        outputs = json.dumps([c.get("outputs", []) for c in book.cells], ensure_ascii=False)
        assert not outputs_handed_in(book), graded["lane"]  # the learner's claim, removed
        for forged in (hostile.FORGED_VERDICT, hostile.FORGED_NOTE, hostile.IN_GRADED_CELL):
            assert forged not in outputs, (graded["lane"], forged)
        return
    assert outputs_handed_in(nbformat.read(autograded(FORGED.student, "02-attention"), 4))
    label = i18n.words("en")["judge"]["handed_in_output"]
    boxes = sum(
        bool(c.outputs) for c in book.cells
        if c.cell_type == "code" and not c.metadata.get("nbgrader", {}).get("grade")
    )  # fmt: skip
    assert boxes >= 2  # the forger's two cells at least
    for where, page in [("formgrader", formgrader_page(path)),
                        ("feedback", feedback_page(FORGED.student, "01-softmax"))]:  # fmt: skip
        shown = Boxed(page)
        inside, outside = "".join(shown.inside), "".join(shown.outside)
        assert len(shown.boxes) == boxes, where
        assert all("".join(box).strip().startswith(label) for box in shown.boxes), where
        for forged in (hostile.FORGED_VERDICT, hostile.FORGED_NOTE, label):
            assert forged in inside and forged not in outside, (where, forged)
        assert hostile.IN_GRADED_CELL not in page, where
        for summary in verdict_summaries(book):  # the forger copies them, inside a box
            assert summary in outside, (where, summary)
