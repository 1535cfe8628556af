"""Learner processes that outlive their cell, through every lane: plain `nbgrader autograde`, the
local farm (JOBS=2, warm kernels), the farm without execution (EXECUTE=0: only the judge runs
learner code) and Dask (SCHEDULER=local).

The class: tests/fixtures/hostile.py's RACES (a process racing the grader with links and renames, a
fork bomb held at the limit, a disk filler, a chmod of its own folder, a killed kernel), each attack
of the hostile class whose code runs in the kernel on the correct base (writing outside, network,
resources, exits: the ones the kernel's sandbox must hold, which differs by lane; the attacks that
try to gain points meet the judge, which is the same in every lane) and one honest classmate whose
files the racer aims at. Each lane must leave: the gradebook intact; every file
outside the submissions unchanged in content and mode, canaries outside the course included; every
submission graded at its honest score; no learner process left; no autograded folder
larger than the submission.
"""

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import time

import pytest

from grading import classroom, course_user
from grading.authoring import course
from grading.machine import sandbox
from grading.paths import ROOT
from tests.fixtures import hostile, processes
from tests.grading.test_hostile_class import (
    Listener,
    Watcher,
    canaries,
    own_folder,
    remove_canaries,
    repository_files,
)

pytestmark = [pytest.mark.nbgrader, pytest.mark.hostile]

VICTIM = "correct"
HONEST = hostile.HONEST[hostile.C]
ESCAPES = [a for a in hostile.ATTACKS if a.cell and a.base == hostile.C]  # the kernel's sandbox
STUDENTS = [VICTIM] + [a.student for a in hostile.RACES + ESCAPES]
OUTSIDE_FILES = {"root-only": 0o600, "plain": 0o644}
WATCHED = ["grading/judge/attention_hidden.py", "model.py"]  # modes too: a chmod through a link


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


def lane_farm():
    """make autograde JOBS=2: two grading servers, warm kernels."""
    make_autograde("--jobs", "2")


def lane_noexec():
    """make autograde EXECUTE=0 JOBS=2: no kernel; the judge's workers alone run learner code."""
    make_autograde("--jobs", "2", ATTENTION_EXECUTE="0")


def lane_dask():
    """make autograde SCHEDULER=local: a Dask cluster on this machine."""
    make_autograde("--scheduler", "local")


LANES = {"plain": lane_plain, "farm": lane_farm, "noexec": lane_noexec, "dask": lane_dask}


def write_outside():
    """Canaries outside the course, as root would own them; {path: (sha256, mode)}."""
    shutil.rmtree(hostile.OUTSIDE, ignore_errors=True)
    os.makedirs(hostile.OUTSIDE)
    for name, mode in OUTSIDE_FILES.items():
        path = os.path.join(hostile.OUTSIDE, name)
        with open(path, "w") as f:
            f.write(f"{name}: nobody but the instructor writes this\n")
        os.chmod(path, mode)
    return state(os.path.join(hostile.OUTSIDE, n) for n in OUTSIDE_FILES)


def state(paths):
    """{path: (sha256 of its bytes, its mode)}, links not followed."""
    found = {}
    for path in paths:
        st = os.lstat(path)
        with open(path, "rb") as f:
            found[path] = (hashlib.sha256(f.read()).hexdigest(), stat.S_IMODE(st.st_mode))
    return found


def mode_of(path):
    """A file's permission bits (a chmod through a link shows here)."""
    return stat.S_IMODE(os.stat(path).st_mode)


def victim_files():
    """Every file of the honest classmate's submission."""
    folder = os.path.join(classroom.SUBMITTED, VICTIM, "attention")
    return [os.path.join(here, n) for here, _, names in os.walk(folder) for n in names]


def hostile_processes():
    """Host pids of the racers' and the fork bomb's processes still alive (they name themselves
    HOSTILE-… in /proc/<pid>/comm; other courses' sandboxes on this machine are not counted)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().startswith("HOSTILE-"):
                    found.append(int(pid))
        except OSError:
            continue
    return found


def folder_bytes(folder):
    """Bytes of the regular files under folder."""
    return sum(
        os.lstat(os.path.join(here, n)).st_size for here, _, names in os.walk(folder) for n in names
    )


@pytest.fixture(scope="module", params=list(LANES))
def graded(request):
    """The class graded through one lane, and what it left behind."""
    classroom.start_over()
    classroom.write_submission(VICTIM)
    listener = Listener()
    for attack in hostile.RACES + ESCAPES:
        hostile.write_attack(attack, ROOT, port=listener.port)
    remove_canaries()
    watcher = Watcher()
    outside = write_outside()
    watched = state(os.path.join(ROOT, p) for p in WATCHED)
    gradebook_mode = mode_of(classroom.SQLITE_GRADEBOOK)
    victim = state(victim_files())
    before = repository_files()
    submitted = {s: folder_bytes(os.path.join(classroom.SUBMITTED, s)) for s in STUDENTS}
    start = time.perf_counter()
    owners = processes.Owners(os.getpid())
    LANES[request.param]()
    owners.stop()
    print(f"\n{request.param}: {len(STUDENTS)} submissions in {time.perf_counter() - start:.0f} s")
    left = hostile_processes()
    time.sleep(6)  # a survivor would act now (h-out-late-child writes 5 s after its cell)
    escaped = [p for p in canaries(ROOT) if not own_folder(p)] + watcher.stop()
    listener.stop()
    yield {
        "escaped": escaped,
        "connections": list(listener.connections),
        "lane": request.param,
        "outside": (outside, state(outside)),
        "watched": (watched, state(watched)),
        "victim": (victim, state(victim_files())),
        "repository": (before, repository_files()),
        "scores": classroom.cell_scores(),  # the gradebook opens, or this raises
        "gradebook_mode": (
            gradebook_mode,
            stat.S_IMODE(os.stat(classroom.SQLITE_GRADEBOOK).st_mode),
        ),
        "left": left,
        "submitted": submitted,
        "owners": owners,
    }
    shutil.rmtree(hostile.OUTSIDE, ignore_errors=True)
    remove_canaries()


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
    before, after = graded["repository"]
    changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
    assert changed == [], f"{graded['lane']}: the course changed: {changed}"


def test_every_submission_is_graded_at_its_honest_score(graded):
    """The gradebook opens, holds every student, and no attack moved a score."""
    scores = graded["scores"]
    assert sorted(scores) == sorted(STUDENTS)
    for student in STUDENTS:
        assert sum(scores[student].values()) == pytest.approx(HONEST), (graded["lane"], student)


def test_no_learner_process_outlives_grading(graded):
    """No racer or fork-bomb child is alive once the lane returns (the racer would run 90 s)."""
    assert graded["left"] == [], graded["lane"]


def test_nothing_a_kernel_wrote_reaches_the_autograded_folder(graded):
    """The disk filler's gigabyte stays in its bounded private folder and goes with it."""
    for student in STUDENTS:
        folder = os.path.join(classroom.AUTOGRADED, student, "attention")
        names = {n for _, _, files in os.walk(folder) for n in files}
        assert not any(n.startswith("HOSTILE-fill") for n in names), (graded["lane"], student)
        assert folder_bytes(folder) < graded["submitted"][student] + (4 << 20)
        assert os.path.exists(os.path.join(folder, "08-notes.ipynb")), (graded["lane"], student)


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
