"""Grading without root: the course user, its subordinate uids and its delegated cgroups.

Set-up needs root (it creates an account); the checks then run as the course user itself, under
the system's python3 (tests/fixtures/as_course_user/), as an instructor's grading would.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import nbformat
import pytest

from grading import cli, course_user, verdicts
from grading.judge import attention
from grading.machine import cgroups, sandbox
from grading.paths import ROOT, masters

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="set-up creates an account: root only")

SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's: any account can run it (a venv's base may not)


def test_setup_makes_the_course_user_once_and_leaves_it_as_it_is():
    """Set-up twice: one account with no login, the sandbox uids granted once, cgroups given."""
    first = course_user.setup()
    again = course_user.setup()
    assert (first.pw_uid, first.pw_gid) == (again.pw_uid, again.pw_gid)
    assert first.pw_uid != 0 and first.pw_shell.endswith("nologin")
    assert course_user.missing() == []
    for path in ("/etc/subuid", "/etc/subgid"):
        with open(path) as f:
            mine = [line for line in f if line.startswith(f"{course_user.USER}:")]
        assert len(mine) == 1, mine
    for root in cgroups.ROOTS:
        assert os.stat(os.path.join(root, cgroups.PARENT)).st_uid == first.pw_uid
    assert cli.main(["course-user", "check"]) == 0


def test_set_up_waits_for_another_set_up_in_progress():
    """Two grading commands started at once on a new machine would both create the account: a
    set-up waits while another process holds SETUP_LOCK, and goes on once it is let go."""
    import fcntl
    import time

    course_user.setup()
    lock = os.open(course_user.SETUP_LOCK, os.O_RDWR)
    fcntl.flock(lock, fcntl.LOCK_EX)  # another set-up in progress
    code = "from grading import course_user; course_user.setup(); print('set up')"
    env = dict(os.environ, PYTHONPATH=ROOT)
    waiting = subprocess.Popen(
        [sys.executable, "-c", code], cwd=ROOT, text=True, stdout=subprocess.PIPE, env=env
    )
    try:
        time.sleep(3)
        assert waiting.poll() is None  # still waiting for the lock
    finally:
        os.close(lock)
    assert waiting.wait(timeout=60) == 0 and waiting.stdout.read() == "set up\n"


# An instructor's new class (ATTENTION_COURSE): part one released into it, registered in its own
# gradebook, and ana's correct submission; the course's release/ and class are not touched.
INSTRUCTOR = (
    "from grading import classroom, paths; from grading.authoring import course; "
    "classroom.write_submission('ana', released=course.release(into=paths.COURSE))"
)


def run_as_course_user(script, *args):
    """Run a script of tests/fixtures/as_course_user/ as the course user; its JSON answer."""
    user = course_user.setup()
    command = [
        "setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "--",
        "env", "-i", f"PYTHONPATH={ROOT}", "PATH=/usr/bin:/bin", "HOME=/nonexistent",
        SYSTEM_PYTHON, "-B", os.path.join(ROOT, "tests", "fixtures", "as_course_user", script),
        *args,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd="/")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_course_user_runs_the_courses_python():
    """The course's venv (made from .python/, machine/interpreter.py) runs as the course user,
    nbgrader and all: no part of it lies under a home folder it cannot enter."""
    user = course_user.setup()
    code = "import json, sys, nbgrader, sqlalchemy; print(json.dumps([sys.version, sys.prefix]))"
    command = [
        "setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "--",
        "env", "-i", "PATH=/usr/bin:/bin", "HOME=/nonexistent", sys.executable, "-I", "-c", code,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd="/")
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == [sys.version, sys.prefix]


@pytest.fixture(scope="module")
def answer():
    """What the course user's sandboxes are (one run for every check below)."""
    user = course_user.setup()
    work = tempfile.mkdtemp(prefix="attn-course-user-")
    try:
        os.chown(work, user.pw_uid, user.pw_gid)
        yield run_as_course_user("sandbox_uids.py", work), user
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_the_course_user_grades_with_sandboxes_under_uids_of_their_own(answer):
    """Unprivileged, the grader maps one of its subordinate uids into each sandbox: every learner
    process runs under it on the host, never under the grader's uid, and the claim is held."""
    seen, user = answer
    assert seen["grader"] == user.pw_uid
    assert seen["mode"] == "mapped" and seen["problem"] is None
    assert seen["claim"]["held"] and seen["claim"]["uid"] in sandbox.SANDBOX_UIDS
    learner = set(seen["detached"]["uids"]) - {user.pw_uid}  # bubblewrap itself is the grader's
    assert learner == {seen["claim"]["uid"]}


def test_the_course_user_ends_a_detached_process_and_confirms_it(answer):
    """Its delegated cgroups work without root: the double fork ends and its group is gone."""
    seen, _ = answer
    assert seen["groups"] is True
    assert seen["detached"]["ready"] == "ready" and seen["detached"]["members"] >= 4, seen
    assert seen["detached"]["left"] == [] and seen["detached"]["removed"]


def test_the_course_user_opens_and_seals_a_socket_folder(answer):
    """Before the kernel listens the folder is the sandbox uid's; sealed, it is the grader's
    again (0711), and learner code can no longer add a name to it."""
    seen, user = answer
    sealed = seen["sealed"]
    assert sealed["opened_to"] == seen["claim"]["uid"]
    assert sealed["sealed_to"] == user.pw_uid and sealed["mode"] == "0o711"
    assert sealed["said"] == ["PermissionError", "listening", "PermissionError"]
    assert sealed["names"] == ["kernel.json", "shell"]
    assert sealed["connection_file"] == user.pw_uid  # the host's throughout: never writable inside
    assert sealed["planted"].startswith("refused: the kernel's socket folder held 'kernel.json'")


def test_learner_code_cannot_nest_a_user_namespace_nor_dump_core(answer):
    """Inside, `unshare --user` fails (the namespace allows none nested), and no core is dumped."""
    seen, _ = answer
    code, core = seen["nested"].split(" ", 1)
    assert code != "0" and core == "(0, 0)"


def test_a_slip_that_binds_a_graders_folder_still_cannot_write_it(answer):
    """Even a writable bind of the grader's own folder is not the sandbox uid's to write."""
    seen, _ = answer
    assert seen["slip"] == {"said": "PermissionError", "names": []}


def test_set_up_is_refused_without_root():
    """Not root: set-up says it needs root and changes nothing."""
    user = course_user.setup()
    command = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
               "--", SYSTEM_PYTHON, "-m", "grading", "course-user", "setup"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": ROOT, "PATH": "/usr/bin:/bin"})  # fmt: skip
    assert done.returncode != 0 and "needs root" in done.stderr


def judged(command, folder, **kw):
    """The judge's report on folder, without its timing line."""
    done = subprocess.run([*command, "-m", "grading", "judge", folder], capture_output=True,
                          text=True, timeout=300, cwd="/", **kw)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if not line.startswith("judged in")]


def test_the_judge_run_as_the_course_user_gives_the_verdicts_it_gives_here():
    """The reference's model.py and outputs, judged by the judge command as the course user (its
    worker under a mapped uid) and here, in this root process (its worker under a uid of its
    own): the same report, line by line, every check passing."""
    user = course_user.setup()
    folder = tempfile.mkdtemp(prefix="attn-judged-")
    try:
        shutil.copy(os.path.join(ROOT, "model.py"), folder)
        shutil.copytree(os.path.join(ROOT, "outputs"), os.path.join(folder, "outputs"))
        for here, _, files in os.walk(folder):
            for name in [here, *(os.path.join(here, f) for f in files)]:
                os.chown(name, user.pw_uid, user.pw_gid)
        as_user = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}",
                   "--clear-groups", "--", SYSTEM_PYTHON, "-B"]  # fmt: skip
        env = {"PYTHONPATH": ROOT, "PATH": "/usr/bin:/bin"}
        theirs = judged(as_user, folder, env=env)
        said = verdicts.lines(*attention.judge_folder(folder))
        ours = "".join(f"{line}\n" for line in said).splitlines()  # as print() writes them
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert theirs == ours
    assert not any("✗" in line for line in theirs) and sum("✓" in line for line in theirs) > 50


@pytest.mark.slow
def test_the_course_user_grades_a_class_as_make_autograde_does():
    """An instructor's class in a folder the course user owns (records/ included): the course
    user runs `make autograde`'s command (two grading servers, warm kernels) and `make grades`'.
    The correct submission gets full marks with no problem noted, in the gradebook and in
    grades.csv, and every file grading left in the class is the course user's. Grading leaves
    nothing in the temporary folder (IPython, with no home, would leave a folder per notebook)."""
    import csv
    import glob

    import nbformat

    user = course_user.setup()
    folder, scratch = tempfile.mkdtemp(prefix="attn-class-"), tempfile.mkdtemp(prefix="attn-tmp-")
    os.chown(scratch, user.pw_uid, user.pw_gid)
    env = {"PATH": f"{os.path.dirname(sys.executable)}:/usr/bin:/bin", "HOME": "/nonexistent",
           "ATTENTION_COURSE": folder}  # fmt: skip
    try:
        subprocess.run([sys.executable, "-c", INSTRUCTOR], cwd=ROOT, env=env, check=True,
                       capture_output=True, timeout=600)  # fmt: skip
        for here, folders, files in os.walk(folder):
            for name in [here, *(os.path.join(here, f) for f in folders + files)]:
                os.chown(name, user.pw_uid, user.pw_gid, follow_symlinks=False)
        as_user = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}",
                   "--clear-groups", "--", "env", "-i", *(f"{k}={v}" for k, v in env.items()),
                   f"TMPDIR={scratch}", sys.executable, "-m", "grading"]  # fmt: skip
        for command in (["autograde", "--jobs", "2"], ["grades"]):
            done = subprocess.run(as_user + command, cwd=ROOT, capture_output=True, text=True,
                                  timeout=900)  # fmt: skip
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        with open(os.path.join(folder, "records", "grades.csv"), newline="") as f:
            (row,) = list(csv.DictReader(f))
        books = sorted(glob.glob(os.path.join(masters("attention"), "*.ipynb")))
        full = sum(
            cell.metadata.get("nbgrader", {}).get("points", 0)
            for path in books
            for cell in nbformat.read(path, as_version=4).cells
        )
        assert full > 30 and float(row["max"]) == pytest.approx(full)
        assert (row["student"], float(row["total"]), row["problems"]) == (
            "ana",
            pytest.approx(full),
            "",
        )
        strangers = [
            os.path.join(here, name)
            for here, folders, files in os.walk(folder)
            for name in folders + files
            if os.lstat(os.path.join(here, name)).st_uid != user.pw_uid
        ]
        assert strangers == []
        assert os.listdir(scratch) == []
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)


def class_folder():
    """A class folder as an instructor keeps one: root's, and every account may enter it."""
    folder = tempfile.mkdtemp(prefix="attn-class-")
    os.chmod(folder, 0o755)
    return folder


def test_handing_the_class_over_follows_no_link():
    """hand_tree makes a folder the course user's (0700), with every file and folder in it, but a
    link planted there (to a root-only file outside, to a folder outside) is never followed, a
    hard link to a root-only file is left root's, and neither a link nor a FIFO is opened as a
    folder."""
    user = course_user.setup()
    top, outside = class_folder(), class_folder()
    try:
        secret = os.path.join(outside, "root-only")
        with open(secret, "w") as f:
            f.write("nobody's but root's\n")
        os.chmod(secret, 0o600)
        os.makedirs(os.path.join(top, "judged", "ana"))
        with open(os.path.join(top, "judged", "ana", "nbgrader.json"), "w") as f:
            f.write("[]")
        os.symlink(secret, os.path.join(top, "judged", "ana", "link-to-file"))
        os.symlink(outside, os.path.join(top, "judged", "link-to-folder"))
        os.link(secret, os.path.join(top, "judged", "ana", "hard-link"))  # another name of it
        os.mkfifo(os.path.join(top, "judged", "ana", "fifo"))
        course_user.hand_tree(os.path.join(top, "judged"), user, mode=0o700)
        judged = os.path.join(top, "judged")
        inside = [
            os.path.join(here, name)
            for here, folders, files in os.walk(judged)
            for name in [here, *folders, *files]
        ]
        owners = {p: os.lstat(p).st_uid for p in inside}
        assert owners.pop(os.path.join(judged, "ana", "hard-link")) == 0  # left as it is
        assert set(owners.values()) == {user.pw_uid}
        assert [(os.stat(p).st_uid, oct(os.stat(p).st_mode & 0o777)) for p in (secret, outside)] \
            == [(0, "0o600"), (0, "0o755")]  # fmt: skip
        assert oct(os.stat(judged).st_mode & 0o777) == "0o700"
        for not_a_folder in ("link-to-folder", "ana/fifo"):  # opened as folders, never followed
            with pytest.raises(OSError):
                course_user.hand_tree(os.path.join(judged, not_a_folder), user)
    finally:
        shutil.rmtree(top)
        shutil.rmtree(outside)


def test_the_course_users_environment_keeps_the_class_and_none_of_roots_secrets(monkeypatch):
    """Root's home, PATH and any other variable stay behind; the class, the gradebook's URL and
    the sandbox's options go along, and a passfile's password becomes PGPASSWORD."""
    from grading.scale import postgres

    folder = class_folder()
    try:
        postgres._write_private(postgres.passfile(folder), "127.0.0.1:*:*:postgres:s3cret\n")
        monkeypatch.setenv("DB_URL", postgres.url(55432, folder))
        monkeypatch.setenv("ROOTS_TOKEN", "do-not-pass")
        monkeypatch.setenv("ATTENTION_UNSAFE_NO_SANDBOX", "0")
        monkeypatch.setenv("PATH", f"/root/.private-bin:{os.environ['PATH']}")
        env = course_user.environment()
    finally:
        shutil.rmtree(folder)
    assert "ROOTS_TOKEN" not in env and env["HOME"] == "/nonexistent"
    assert env["PGPASSWORD"] == "s3cret" and env["DB_URL"] == postgres.url(55432, folder)
    assert env["ATTENTION_UNSAFE_NO_SANDBOX"] == "0" and env["PYTHONPATH"] == ROOT
    assert "/root/.private-bin" not in env["PATH"].split(":")
    assert env["PATH"].split(":")[0] == os.path.dirname(sys.executable)  # the course's tools


def root_runs(command, folder, **kw):
    """A course command run by root in the class folder, as the Makefile runs it."""
    env = dict(os.environ, ATTENTION_COURSE=folder, PYTHONPATH=ROOT,
               PATH=f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}")  # fmt: skip
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=900, **kw)  # fmt: skip


@pytest.mark.slow
def test_root_hands_grading_over_to_the_course_user():
    """make autograde, make feedback, make grades and plain `nbgrader autograde`, started by
    root in an instructor's class: each hands itself over, no process of theirs stays root, the
    sandboxes run under sandbox uids, the correct submission gets full marks, and everything
    grading wrote (a stale file of an older root run included) is the course user's, as is
    submitted/, which intake repairs in place: it noticed the link handed in, and removed it."""
    import csv

    from tests.fixtures import processes

    user = course_user.setup()
    folder = class_folder()
    try:
        env = dict(os.environ, ATTENTION_COURSE=folder, PYTHONPATH=ROOT)
        made = subprocess.run([sys.executable, "-c", INSTRUCTOR], cwd=ROOT, timeout=600,
                              capture_output=True, text=True, env=env)  # fmt: skip
        assert made.returncode == 0, made.stderr[-2000:]
        os.symlink(os.path.join(ROOT, "grading", "judge", "attention_hidden.py"),
                   os.path.join(folder, "submitted", "ana", "attention", "notes.py"))  # fmt: skip
        os.makedirs(os.path.join(folder, "judged", "ana"))
        with open(os.path.join(folder, "judged", "ana", "nbgrader.json"), "w") as f:
            f.write("[]")  # what an older version's root run left
        owners = processes.Owners(os.getpid())
        said = []
        commands = [
            ["grading", "autograde", "--jobs", "2"],
            ["nbgrader", "autograde", "attention", "--force"],
            ["grading", "feedback"],
            ["grading", "grades"],
        ]
        for command in commands:
            done = root_runs(command, folder)
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
            said.append(done.stderr)
            if len(said) == 1:  # make autograde's intake: the link handed in, noticed and removed
                assert "ana: notes.py was a link or special file" in done.stdout, done.stdout
        owners.stop()
        assert all(f"grading runs as {course_user.USER}, not root" in s for s in said)
        assert owners.still_root() == {}
        assert owners.raised() <= {"newuidmap", "newgidmap"}  # the system's, for mapped uids
        assert user.pw_uid in owners.accounts()
        assert owners.accounts() - {user.pw_uid} <= set(sandbox.SANDBOX_UIDS)
        assert owners.accounts() - {user.pw_uid}, "no sandbox was seen"
        with open(os.path.join(folder, "records", "grades.csv"), newline="") as f:
            (row,) = list(csv.DictReader(f))
        assert (row["student"], row["problems"]) == ("ana", "")  # graded again, with no link
        assert not os.path.lexists(
            os.path.join(folder, "submitted", "ana", "attention", "notes.py")
        )
        assert float(row["total"]) == pytest.approx(float(row["max"])) and float(row["max"]) > 30
        for top in ("submitted", "autograded", "judged", "feedback", "records"):
            for here, folders, files in os.walk(os.path.join(folder, top)):
                for name in [here, *(os.path.join(here, n) for n in folders + files)]:
                    assert os.lstat(name).st_uid == user.pw_uid, name
        assert os.path.isfile(os.path.join(folder, "feedback", "ana", "attention",
                                           "01-softmax.html"))  # fmt: skip
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_judge_command_started_by_root_runs_as_the_course_user_and_prints_no_escapes():
    """`python -m grading judge` hands itself over like autograde, and an escape sequence in a
    learner's exception message reaches root's terminal as plain text."""
    course_user.setup()
    folder = class_folder()
    try:
        model = open(os.path.join(ROOT, "model.py"), encoding="utf-8").read()
        escape = (
            '    raise ValueError("\\x1b]52;c;Y2xpcA==\\x07 oops")\n'  # OSC 52: a clipboard write
        )
        model = model.replace("    top = max(xs)", escape + "    top = max(xs)", 1)
        os.makedirs(os.path.join(folder, "ana"))
        with open(os.path.join(folder, "ana", "model.py"), "w", encoding="utf-8") as f:
            f.write(model)
        done = root_runs(["grading", "judge", os.path.join(folder, "ana")], folder)
        assert done.returncode == 0, done.stderr[-2000:]
        assert f"grading runs as {course_user.USER}, not root" in done.stderr
        assert "[FAIL] step01-softmax-checks" in done.stdout and "oops" in done.stdout
        assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_root_is_told_why_when_the_course_user_cannot_reach_the_class():
    """A class inside a folder only root may enter: make autograde stops before grading anything
    and says which folder, its mode and the command that opens it."""
    closed = tempfile.mkdtemp(prefix="attn-closed-")  # 0700, root's
    folder = os.path.join(closed, "class")
    os.makedirs(os.path.join(folder, "submitted", "ana", "attention"))
    try:
        done = root_runs(["grading", "autograde"], folder)
        assert done.returncode != 0
        assert f"cannot reach the class at {folder}" in done.stderr
        assert (
            f"{closed} (mode 0700, root's)" in done.stderr and f"chmod o+x {closed}" in done.stderr
        )
        assert not os.path.exists(os.path.join(folder, "autograded"))
    finally:
        shutil.rmtree(closed)


@pytest.mark.parametrize("target", ["test", "autograde", "demo"])
def test_make_stops_at_once_where_the_course_user_cannot_reach_the_checkout(target):
    """A clone under a folder only root may enter: make test (and each target that grades) stops
    within seconds, before installing or running anything, with the one sentence that names the
    folder, its mode and the command that opens it. The clone holds what runs before pytest: the
    Makefile and the grading package (no .venv, so nothing could be reused from this checkout)."""
    closed = tempfile.mkdtemp(prefix="attn-closed-")  # 0700, root's
    clone = os.path.join(closed, "course")
    os.makedirs(clone)
    shutil.copy(os.path.join(ROOT, "Makefile"), clone)
    shutil.copytree(os.path.join(ROOT, "grading"), os.path.join(clone, "grading"),
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    try:
        env = dict(os.environ, PYTHON="/usr/bin/python3")  # a fresh machine's Python, no .venv
        done = subprocess.run(
            ["make", target], cwd=clone, capture_output=True, text=True, timeout=120, env=env
        )
        assert done.returncode != 0, done.stdout[-2000:]
        assert f"cannot reach the course at {clone}" in done.stderr
        assert (
            f"{closed} (mode 0700, root's)" in done.stderr and f"chmod o+x {closed}" in done.stderr
        )
        assert sorted(os.listdir(clone)) == ["Makefile", "grading"]  # no .venv, nothing installed
        assert "test session starts" not in done.stdout
    finally:
        shutil.rmtree(closed)


def test_an_autograde_still_running_as_root_stops_before_any_learner_code():
    """nbgrader's Autograde run in a root process that did not hand over (the formgrader's button
    in a server root started) fails at its first autograde preprocessor, before the sandboxed
    kernel; as the course user that preprocessor passes the notebook on untouched."""
    from traitlets.config import Config

    import grader_config
    from grading.nbgrader.preprocess import NotAsRoot, SandboxedExecute

    config = Config()
    grader_config.configure(config)  # run from pytest, it hands nothing over
    first, then = config.Autograde.autograde_preprocessors[:2]
    assert (first, then) == (NotAsRoot, SandboxedExecute)
    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('learner code')")])
    with pytest.raises(PermissionError, match="grading never runs as root"):
        NotAsRoot().preprocess(book, {})
    from grading.nbgrader import (
        intake,  # the hook runs first, and nbgrader logs an Exception and goes on
    )

    assert not issubclass(intake.NotAsRoot, Exception)
    with pytest.raises(intake.NotAsRoot, match="grading never runs as root"):
        intake.nbgrader_hook("attention", "ana", ["/nonexistent/ana/attention/01-softmax.ipynb"])
    user = course_user.setup()
    probe = "from grading.nbgrader.preprocess import NotAsRoot; print(NotAsRoot().preprocess(1, 2))"
    as_user = course_user.command([sys.executable, "-c", probe])
    done = subprocess.run(as_user, cwd=ROOT, env=course_user.environment(), capture_output=True,
                          text=True)  # fmt: skip
    assert done.returncode == 0 and done.stdout == "(1, 2)\n", done.stderr[-2000:]
    assert user.pw_uid != 0


def test_what_root_hands_over_gets_no_terminal_no_input_and_sends_no_control_characters():
    """Run from root's terminal (a pty here), the handed-over command has no controlling terminal
    (nothing to type into with TIOCSTI), reads nothing of root's, and what it prints reaches the
    terminal without escapes or bells: tab, newline and carriage return only."""
    import pty

    probe = (
        "import os, sys; stat = open('/proc/self/stat').read().rsplit(')', 1)[1].split(); "
        "print(os.getuid(), sys.stdin.read() == '', os.isatty(1), stat[4]); "
        "print('\\x1b]0;title\\x07\\x1b[2Jred\\tok\\r')"
    )
    pid, terminal = pty.fork()
    if pid == 0:  # root's side, on the terminal
        code = 1
        try:
            sys.stdout = open(1, "w", closefd=False)  # the terminal, not pytest's capture
            sys.stderr = open(2, "w", closefd=False)
            code = course_user.handed_over([sys.executable, "-c", probe])
        finally:
            sys.stdout.flush()
            os._exit(code)
    said = b""
    while True:
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # the terminal closed: the child has ended
            break
        if not chunk:
            break
        said += chunk
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, said
    lines = said.decode().replace("\r\n", "\n").splitlines()
    assert lines[0] == f"{course_user.account().pw_uid} True False 0"  # tty_nr 0: none
    assert lines[1] == "]0;title[2Jred\tok"
    assert "\x1b" not in said.decode() and "\x07" not in said.decode()


def test_a_thousand_nested_folders_cannot_stop_the_hand_over():
    """A hand-in zip may hold folders nested deeper than Python's recursion allows: the hand-over
    gives the first levels (course_user.DEEPEST) and leaves the rest as they are, not failing."""
    user = course_user.setup()
    top = class_folder()
    try:
        here = top
        for _ in range(1000):
            here = os.path.join(here, "d")
            os.mkdir(here)  # relative steps keep every path short enough for the system
        course_user.hand_tree(top, user)
        depth, here = 0, top
        while os.path.isdir(os.path.join(here, "d")) and os.lstat(here).st_uid == user.pw_uid:
            here, depth = os.path.join(here, "d"), depth + 1
        assert depth == course_user.DEEPEST + 1
    finally:
        subprocess.run(["rm", "-rf", top], check=True)


def test_the_relay_reads_everything_even_when_root_stops_reading():
    """`make grades | head`: once root's side of the output is closed, the relay keeps reading (and
    drops) what the course user's command still says, so that command never blocks on a pipe."""
    import io

    class Closed(io.StringIO):
        def write(self, text):
            raise BrokenPipeError

    import threading

    read, write = os.pipe()

    def say_a_lot():
        with os.fdopen(write, "wb") as w:
            w.write(b"x" * 300_000)  # more than a pipe holds: the writer needs the reader

    speaker = threading.Thread(target=say_a_lot)
    speaker.start()
    course_user.relay(os.fdopen(read, "rb"), Closed())
    speaker.join(timeout=30)
    assert not speaker.is_alive()
