"""Parallel grading (scale/farm.py): the same gradebook as plain `nbgrader autograde`, cell by
cell, with parallel local workers, a worker that dies, a real Dask cluster and a PostgreSQL
gradebook; and a rerun grades only what is missing.
"""

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import nbformat
import pytest

from grading import classroom, course_user
from grading.authoring import course
from grading.authoring.mistakes import BUGGY
from grading.parts import PARTS
from grading.scale import farm, postgres, remote, server
from tests.fixtures import formgrader_page
from tests.fixtures.lab_server import formgrader, free_port

pytestmark = pytest.mark.nbgrader
scores = classroom.cell_scores  # {student: {grade_id: score}} from the gradebook
CLASS = {"correct": None, "no-sqrt-d": "attention.no_scaling", "post-ln": "block.post_ln"}


def fresh_class():
    """A clean slate (new SQLite gradebook, release registered) and the small class submitted."""
    classroom.start_over()
    for student, mistake in CLASS.items():
        replace = {BUGGY[mistake][0]: BUGGY[mistake][1]} if mistake else None
        classroom.write_submission(student, replace=replace)


@pytest.fixture(scope="module")
def plain():
    """The class graded by plain `nbgrader autograde attention` (one call): the baseline."""
    fresh_class()
    done = course.nbgrader("autograde", "attention", "--force")
    assert done.returncode == 0, done.stderr[-2000:]
    baseline = scores()
    assert baseline["correct"]["step02-attention-hidden"] == 3  # the baseline itself is sound
    assert baseline["no-sqrt-d"]["step02-attention-hidden"] == 0
    return baseline


def graded_outputs():
    """{(student, notebook, cell id): what the graded notebook shows}: the feedback's content."""
    shown = {}
    for student in CLASS:
        folder = os.path.join(classroom.ROOT, "autograded", student, "attention")
        for name in sorted(os.listdir(folder)):
            if name.endswith(".ipynb"):
                for cell in nbformat.read(os.path.join(folder, name), as_version=4).cells:
                    shown[student, name, cell.get("id")] = [
                        (o.output_type, o.get("text"), o.get("data", {}).get("text/plain"),
                         o.get("ename"), o.get("evalue"))
                        for o in coalesced(cell.get("outputs", []))
                    ]  # fmt: skip
    return shown


def coalesced(outputs):
    """Outputs with each run of one stream's pieces joined: how a kernel cuts what a cell prints
    into pieces depends on timing (a busy machine cuts more), what it prints does not."""
    joined = []
    for o in outputs:
        if o.output_type == "stream" and joined and joined[-1].get("name") == o.name:
            joined[-1] = {**joined[-1], "text": joined[-1]["text"] + o.text}
        else:
            joined.append(dict(o))
    return [nbformat.from_dict(o) for o in joined]


@pytest.fixture(scope="module")
def plain_outputs(plain):
    """What plain nbgrader's graded notebooks show (its kernels started from scratch)."""
    return graded_outputs()


def test_parallel_workers_give_plain_nbgraders_gradebook_and_feedback(plain, plain_outputs):
    """JOBS=2 with warm kernels: every cell scores and shows what plain nbgrader gave it."""
    outcomes = farm.autograde(list(CLASS), jobs=2, force=True)
    assert sorted(o.student for o in outcomes if o.ok) == sorted(CLASS)
    assert scores() == plain
    shown = graded_outputs()
    assert any(shown.values())  # the notebooks ran: there is something to compare
    assert shown == plain_outputs


FORGED = "✓ every check holds (printed by the learner, not the judge)"
SAVED = "what the learner's own run printed"


def with_saved_outputs(path):
    """The notebook at path with outputs a learner saved: one in an ordinary cell, and a forged
    pass in the visible checkpoint's cell; returns the text it had."""
    with open(path, encoding="utf-8") as f:
        before = f.read()
    nb = nbformat.reads(before, as_version=4)
    ordinary = next(c for c in nb.cells if c.cell_type == "code" and "nbgrader" not in c.metadata)
    graded = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id")
                  == "step01-softmax-checks")  # fmt: skip
    ordinary.outputs = [nbformat.v4.new_output("stream", name="stdout", text=SAVED)]
    graded.outputs = [nbformat.v4.new_output("stream", name="stdout", text=FORGED)]
    nbformat.write(nb, path)
    return before


def shown_in(student, notebook, grade_id=None):
    """The text of every output of one cell of an autograded notebook (the first ordinary code
    cell when grade_id is None)."""
    path = os.path.join(classroom.ROOT, "autograded", student, "attention", notebook)
    cells = nbformat.read(path, as_version=4).cells
    cell = next(c for c in cells if c.cell_type == "code"
                and c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)  # fmt: skip
    return [o.get("text") or o.get("data", {}).get("text/plain") for o in cell.outputs]


def test_the_no_execution_lane_gives_plain_nbgraders_gradebook(plain, monkeypatch):
    """EXECUTE=0, through the farm (JOBS=2) and through plain `nbgrader autograde`: every cell
    scores what plain nbgrader's executing run gave it; a graded cell shows the judge's verdict
    whatever the learner saved there, an ordinary cell keeps what the learner saved."""
    notebook = os.path.join(classroom.SUBMITTED, "no-sqrt-d", "attention", "01-softmax.ipynb")
    before = with_saved_outputs(notebook)
    monkeypatch.setenv("ATTENTION_EXECUTE", "0")
    try:
        outcomes = farm.autograde(list(CLASS), jobs=2, force=True)
        assert sorted(o.student for o in outcomes if o.ok) == sorted(CLASS)
        assert scores() == plain
        assert shown_in("no-sqrt-d", "01-softmax.ipynb") == [SAVED]
        verdict = shown_in("no-sqrt-d", "01-softmax.ipynb", "step01-softmax-checks")
        assert FORGED not in verdict and "softmax" in verdict[0]
        assert shown_in("correct", "01-softmax.ipynb") == []  # saved with no outputs: none shown
        done = course.nbgrader("autograde", "attention", "--force")
        assert done.returncode == 0, done.stderr[-2000:]
        assert scores() == plain
        assert shown_in("no-sqrt-d", "01-softmax.ipynb") == [SAVED]
    finally:
        with open(notebook, "w", encoding="utf-8") as f:
            f.write(before)


def test_an_unknown_execute_setting_stops_before_grading(plain, monkeypatch):
    """ATTENTION_EXECUTE=no is neither lane: nbgrader and make autograde refuse it, saying so."""
    monkeypatch.setenv("ATTENTION_EXECUTE", "no")
    done = course.nbgrader("autograde", "attention", "--force")
    assert done.returncode != 0 and "ATTENTION_EXECUTE='no'" in done.stderr
    with pytest.raises(SystemExit, match="say 1 .* or 0"):
        classroom.autograde(list(CLASS), jobs=1, force=True)
    assert scores() == plain


def test_a_rerun_grades_only_what_is_missing_or_changed(plain):
    """Graded and unchanged (even if touched): skipped. Changed content, or no record: graded."""
    farm.autograde(list(CLASS), jobs=2, force=True)
    assert farm.autograde(list(CLASS), jobs=2) == []
    notebook = os.path.join(classroom.SUBMITTED, "post-ln", "attention", "01-softmax.ipynb")
    os.utime(notebook, (time.time() + 5, time.time() + 5))
    assert farm.autograde(list(CLASS), jobs=2) == []  # a new timestamp alone changes nothing
    with open(notebook, "a") as f:
        f.write("\n")  # a changed byte (still valid JSON); timestamps alone do not count
    os.remove(server.marker("correct"))
    again = farm.autograde(list(CLASS), jobs=2)
    assert sorted(o.student for o in again) == ["correct", "post-ln"]
    assert scores() == plain


CRASHING_SERVER = ["-m", "tests.fixtures.crashing_server"]  # a grading server, dying once on cue


@pytest.fixture
def flag():
    """A path the grading servers may create: in a folder of the course user's when root grades
    (its servers run as that user), else of the test's."""
    folder = tempfile.mkdtemp(prefix="attention-flag-")
    if os.geteuid() == 0:
        user = course_user.setup()
        os.chown(folder, user.pw_uid, user.pw_gid)
    yield os.path.join(folder, "flag")
    shutil.rmtree(folder, ignore_errors=True)


def test_a_worker_that_dies_is_replaced_and_its_submission_retried(plain, flag, monkeypatch):
    """The server grading no-sqrt-d exits hard once: a new server grades it, nothing is lost."""
    monkeypatch.setattr(server, "SERVER", CRASHING_SERVER)
    monkeypatch.setenv("ATTENTION_FARM_CRASH", "no-sqrt-d")
    monkeypatch.setenv("ATTENTION_FARM_FLAG", flag)
    outcomes = {o.student: o for o in farm.autograde(list(CLASS), jobs=2, force=True)}
    assert os.path.exists(flag), "the server did not die: the test tests nothing"
    assert outcomes["no-sqrt-d"].ok and outcomes["no-sqrt-d"].attempts == 2
    assert all(o.ok and o.attempts == 1 for s, o in outcomes.items() if s != "no-sqrt-d")
    assert scores() == plain


def test_a_worker_that_hangs_is_stopped_and_its_submission_retried(plain, flag, monkeypatch):
    """The server grading post-ln goes silent once: after the deadline a new server grades it."""
    monkeypatch.setattr(server, "SERVER", CRASHING_SERVER)
    monkeypatch.setenv("ATTENTION_FARM_CRASH", "post-ln")
    monkeypatch.setenv("ATTENTION_FARM_HOW", "hang")
    monkeypatch.setenv("ATTENTION_FARM_FLAG", flag)
    monkeypatch.setenv("ATTENTION_SUBMISSION_SECONDS", "45")  # a submission takes about 10 s
    [outcome] = farm.autograde(["post-ln"], jobs=1, force=True)
    assert os.path.exists(flag), "the server did not hang: the test tests nothing"
    assert outcome.ok and outcome.attempts == 2
    assert scores()["post-ln"] == plain["post-ln"]


def start(command):
    """A background process in its own group (stopped with its children by stop()), as the
    course user when root starts it, as docs/large-classes.md says to start Dask's."""
    env = dict(os.environ, PYTHONPATH=classroom.ROOT)  # processes import the course
    return subprocess.Popen(course_user.command(command), cwd=classroom.ROOT,
                            env=course_user.environment(env), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip


def stop(process):
    """Stop a process group started by start()."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(process.pid, signal.SIGKILL)


def worker_machine():
    """A folder as a worker machine has it: a copy of the course package (the repository's files
    that git does not ignore), none of the class's folders, readable by the course user."""
    folder = tempfile.mkdtemp(prefix="attention-worker-machine-")
    os.chmod(folder, 0o755)
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=classroom.ROOT, check=True, capture_output=True,
                            text=True).stdout  # fmt: skip
    for name in filter(None, listed.split("\0")):
        source = os.path.join(classroom.ROOT, name)
        if os.path.isfile(source) and not os.path.islink(source):
            os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
            shutil.copy(source, os.path.join(folder, name))
    return folder


CLASS_FOLDERS = [classroom.SUBMITTED, classroom.AUTOGRADED, classroom.JUDGED, classroom.FEEDBACK,
                 classroom.RECORDS]  # fmt: skip


def start_blind_worker(machine, address):
    """`python -m grading dask-worker` from the worker machine's copy; as root, in a mount
    namespace of its own where every class folder of this machine is an empty tmpfs."""
    env = {k: v for k, v in os.environ.items() if k not in ("DB_URL", "ATTENTION_COURSE")}
    env["PYTHONPATH"] = machine
    worker = [sys.executable, "-m", "grading", "dask-worker", address, "--nworkers", "1"]
    if os.geteuid() == 0:
        for folder in CLASS_FOLDERS:
            os.makedirs(folder, exist_ok=True)
        hide = " && ".join(f"mount -t tmpfs -o size=1m tmpfs {shlex.quote(f)}"
                           for f in CLASS_FOLDERS)  # fmt: skip
        worker = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                  f'{hide} && exec "$@"', "sh", *worker]  # fmt: skip
    return subprocess.Popen(worker, cwd=machine, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip


def test_dask_workers_that_cannot_see_the_course_give_plain_nbgraders_gradebook(
    plain, plain_outputs
):
    """A `dask scheduler` and two workers started from a copy of the course package, which see
    no folder of the class (as root: empty tmpfs over each): every submission travels to them as
    bytes and comes back graded; the gradebook, scores and outputs are plain nbgrader's. Their
    class folders are gone once a worker starts after them (one killed leaves its own behind)."""
    from dask.distributed import Client

    def where_the_class_is():  # in a worker (nested: sent by value, not imported from tests/)
        """Its class folder for part one, and the folder of its user's class folders."""
        from grading.scale import remote

        return remote.private_class("attention"), remote.classes_folder()

    machine, port = worker_machine(), free_port()
    dask = os.path.join(os.path.dirname(sys.executable), "dask")
    address = f"tcp://127.0.0.1:{port}"
    processes = [start([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                        "--no-dashboard"])]  # fmt: skip
    try:
        processes += [start_blind_worker(machine, address) for _ in range(2)]
        with Client(address) as client:
            client.wait_for_workers(2, timeout=120)
            roots = client.run(lambda: __import__("grading.paths", fromlist=["ROOT"]).ROOT)
            assert set(roots.values()) == {machine}
            if os.geteuid() == 0:
                seen = client.run(lambda folders: [os.listdir(f) for f in folders], CLASS_FOLDERS)
                assert all(not any(listing) for listing in seen.values()), seen
        outcomes = farm.autograde(list(CLASS), scheduler=address, force=True)
        with Client(address) as client:
            kept = list(client.run(where_the_class_is).values())
        for process in reversed(processes):
            stop(process)  # the whole group: its worker processes are killed, not closed
        # A killed worker leaves its class folder, which the next worker to start removes (no
        # living process holds its lock): one started here, for a scheduler that is gone, has to.
        processes = [start_blind_worker(machine, address)]
        left = [folder for folder, _ in kept if os.path.exists(folder)]
        deadline = time.monotonic() + 120
        while left and time.monotonic() < deadline:
            time.sleep(0.5)
            left = [folder for folder in left if os.path.exists(folder)]
    finally:
        for process in reversed(processes):
            stop(process)
        shutil.rmtree(machine, ignore_errors=True)
    assert len(kept) == 2 and all(os.path.dirname(folder) == mine for folder, mine in kept)
    assert left == []
    assert sorted(o.student for o in outcomes if o.ok) == sorted(CLASS)
    assert scores() == plain
    assert graded_outputs() == plain_outputs


def test_a_postgresql_gradebook_gives_plain_nbgraders_scores(plain, monkeypatch):
    """Release and parallel autograde on a real PostgreSQL server: the same scores as SQLite, and
    the formgrader, reading that server, shows the course's parts and those scores (through its
    API, and in chromium: test-artifacts/formgrader-postgres-*.png)."""
    folder = tempfile.mkdtemp(prefix="attention-pg-")  # pytest's tmp_path is closed to `postgres`
    os.chmod(folder, 0o755)
    url = postgres.start(folder, free_port())
    try:
        monkeypatch.setenv("DB_URL", url)
        course.release()  # registers the assignment in the PostgreSQL gradebook
        outcomes = farm.autograde(list(CLASS), jobs=2, force=True)
        assert sorted(o.student for o in outcomes if o.ok) == sorted(CLASS)
        assert scores() == plain
        with formgrader(env=dict(os.environ, DB_URL=url)) as (base, token, api):  # same server
            assert sorted(a["name"] for a in api("assignments")) == sorted(PARTS)
            shown = {s["student"]: s for s in api("submissions/attention")}
            seen = formgrader_page.look(base, token, "attention", "formgrader-postgres")
        for student, cells in plain.items():
            assert shown[student]["autograded"], student
            assert shown[student]["score"] == pytest.approx(sum(cells.values())), student
            top = shown[student]["max_score"]
            assert seen[2][student] == f"{sum(cells.values()):g} / {top:g}", student
        assert seen[0] == set(PARTS) and not seen[1]
    finally:
        postgres.stop(folder)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="about workers root started")
def test_a_dask_worker_run_by_root_refuses_to_grade():
    """A Dask worker runs whatever its scheduler sends: one running as root grades nothing, and a
    local cluster is not started as root (make autograde hands over first)."""
    with pytest.raises(PermissionError, match="must not run as root"):
        remote.grade_package(remote.pack("correct", "attention"))
    with pytest.raises(PermissionError, match="must not run as root"):
        farm.grade_on_cluster(["correct"], "local", progress=lambda outcome: None)
