"""Grading without root: the course user, its subordinate uids and its delegated cgroups.

Set-up needs root (it creates an account); the checks then run as the course user itself, under
the system's python3 (tests/as_course_user/), as an instructor's grading would.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from grading import cgroups, course_user, sandbox
from grading.paths import ROOT

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
    assert course_user.main(["check"]) == 0


def run_as_course_user(script, *args):
    """Run a script of tests/as_course_user/ as the course user; its JSON answer."""
    user = course_user.setup()
    command = [
        "setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "--",
        "env", "-i", f"PYTHONPATH={ROOT}", "PATH=/usr/bin:/bin", "HOME=/nonexistent",
        SYSTEM_PYTHON, "-B", os.path.join(ROOT, "tests", "as_course_user", script),
        *args,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd="/")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_course_user_runs_the_courses_python():
    """The course's venv (made from .python/, grading/interpreter.py) runs as the course user,
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
               "--", SYSTEM_PYTHON, "-m", "grading.course_user", "setup"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": ROOT, "PATH": "/usr/bin:/bin"})  # fmt: skip
    assert done.returncode != 0 and "needs root" in done.stderr


def judged(command, folder, **kw):
    """The judge's report on folder, without its timing line."""
    done = subprocess.run([*command, "-m", "grading.judge", folder], capture_output=True,
                          text=True, timeout=300, cwd="/", **kw)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if not line.startswith("judged in")]


def test_the_judge_run_as_the_course_user_gives_the_verdicts_it_gives_here():
    """The reference's model.py and outputs, judged as the course user (its worker under a mapped
    uid) and here: the same report, line by line, every check passing."""
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
        ours = judged([sys.executable], folder, env={**os.environ, "PYTHONPATH": ROOT})
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert theirs == ours
    assert not any("✗" in line for line in theirs) and sum("✓" in line for line in theirs) > 50


def test_the_course_user_grades_a_class_as_make_autograde_does():
    """An instructor's class in a folder the course user owns (records/ included): the course
    user runs `make autograde`'s command (two grading servers, warm kernels) and `make grades`'.
    The correct submission gets full marks with no problem noted, in the gradebook and in
    grades.csv, and every file grading left in the class is the course user's."""
    import csv
    import glob

    import nbformat

    user = course_user.setup()
    folder = tempfile.mkdtemp(prefix="attn-class-")
    env = {"PATH": f"{os.path.dirname(sys.executable)}:/usr/bin:/bin", "HOME": "/nonexistent",
           "ATTENTION_COURSE": folder}  # fmt: skip
    try:
        instructor = "from grading import classroom; classroom.start_over(); " \
                     "classroom.write_submission('ana')"  # fmt: skip
        subprocess.run([sys.executable, "-c", instructor], cwd=ROOT, env=env, check=True,
                       capture_output=True, timeout=600)  # fmt: skip
        for here, folders, files in os.walk(folder):
            for name in [here, *(os.path.join(here, f) for f in folders + files)]:
                os.chown(name, user.pw_uid, user.pw_gid, follow_symlinks=False)
        as_user = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}",
                   "--clear-groups", "--", "env", "-i", *(f"{k}={v}" for k, v in env.items()),
                   sys.executable, "-m", "grading.classroom"]  # fmt: skip
        for command in (["autograde", "--jobs", "2"], ["grades"]):
            done = subprocess.run(as_user + command, cwd=ROOT, capture_output=True, text=True,
                                  timeout=900)  # fmt: skip
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        with open(os.path.join(folder, "records", "grades.csv"), newline="") as f:
            (row,) = list(csv.DictReader(f))
        masters = sorted(glob.glob(os.path.join(ROOT, "notebooks", "attention", "*.ipynb")))
        full = sum(
            cell.metadata.get("nbgrader", {}).get("points", 0)
            for path in masters
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
    finally:
        shutil.rmtree(folder, ignore_errors=True)
