"""The sandbox learner code runs in:
nothing of the course visible, nothing of the host writable, no network, limits, and every
process it starts ended and counted gone.
"""

import os
import socket
import subprocess
import sys
import sysconfig
import textwrap
import time

import pytest

from grading.machine import cgroups, sandbox
from grading.paths import ROOT
from tests.fixtures import processes
from tests.fixtures.processes import identities, survivors

pytestmark = pytest.mark.skipif(sandbox.unsafe(), reason="graded without the sandbox on purpose")


def run_inside(code, handed_in=None, timeout=60):
    """Run Python code in the sandbox (given a folder of staged copies, in /submission, filled
    from the one copy there, as a kernel is); (exit code, stdout)."""
    argv = [sys.executable, "-I", "-S", "-c", textwrap.dedent(code)]
    if handed_in:
        argv = sandbox.filled(argv, os.listdir(handed_in)[0], quiet=False)
    done = subprocess.run(
        sandbox.wrap(argv, handed_in=handed_in),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return done.returncode, done.stdout.strip()


def test_sandbox_works_on_this_machine():
    """bubblewrap, prlimit and setpriv are installed and a sandbox starts (CI installs them)."""
    assert sandbox.problem() is None


def test_the_sandbox_runs_the_graders_own_python():
    """Inside, the interpreter is the grader's, patch release and all (not the system's libpython
    under the grader's standard library), from its neutral path."""
    code, out = run_inside("import sys; print(repr((sys.version, sys.base_prefix)))")
    assert code == 0 and eval(out) == (sys.version, sandbox.base_inside())


def test_course_root_home_and_tmp_are_hidden(tmp_path):
    """The gradebook, grading/, the reference (any copy of it) and the submissions are not there."""
    copy = tmp_path / "elsewhere" / "model.py"  # a second copy of the reference, outside the course
    copy.parent.mkdir()
    copy.write_text("secret")
    paths = [
        os.path.join(ROOT, "model.py"),
        os.path.join(ROOT, "grading", "judge", "attention_hidden.py"),
        str(copy),
        os.path.join(ROOT, "records", "gradebook.db"),
        os.path.expanduser("~/.bashrc"),
        "/srv",
        "/home",
        "/root",
        sys.prefix,
        sys.base_prefix if not sandbox.system_owned(sys.base_prefix) else "/nonexistent",
    ]
    code, out = run_inside(f"""
        import os, sys
        print(repr(([p for p in {paths!r} if os.path.exists(p)],
                    os.listdir('/tmp'), os.listdir('/'), os.listdir('/opt'), sys.executable)))
    """)
    assert code == 0
    present, tmp, top, opt, executable = eval(out)
    assert present == []
    assert tmp == []  # private and empty
    assert set(opt) <= {"python", "venv"}  # the Python environment, at neutral paths
    assert executable.startswith(("/opt/", "/usr/"))
    assert set(top) <= {
        "usr",
        "bin",
        "sbin",
        "lib",
        "lib32",
        "lib64",
        "libx32",
        "etc",
        "dev",
        "proc",
        "tmp",
        "var",
        "opt",
    }


def staged(tmp_path):
    """A submission folder staged as grading stages it; the host folder of copies."""
    submission = tmp_path / "submission"
    (submission / "outputs").mkdir(parents=True)
    (submission / "model.py").write_text("ANSWER = 42\n")
    os.symlink("/etc/passwd", submission / "outputs" / "link")  # a link is never staged
    copies = sandbox.private_folder("attn-test-")
    sandbox.stage(str(submission), copies)
    return submission, copies


def test_no_host_folder_is_writable_and_the_working_folder_is_private(tmp_path):
    """The kernel's folder is a private copy: writes land there, never on the host; the staged
    copy is read-only; the course, the folder beside it and / refuse every write."""
    submission, copies = staged(tmp_path)
    code, out = run_inside(
        f"""
        import os
        results = []
        for path in [{os.path.join(ROOT, "HOSTILE-sandbox-canary")!r},
                     {str(tmp_path / "HOSTILE-next-to")!r}, '/HOSTILE-root',
                     '/etc/HOSTILE-sandbox-canary', '/handed-in/HOSTILE-copy', 'inside.txt']:
            try:
                open(path, 'w').write('x')
                results.append(True)
            except OSError:
                results.append(False)
        print(results, os.getcwd(), open('model.py').read().strip(), os.listdir('outputs'))
    """,
        handed_in=copies,
    )
    assert code == 0, out
    assert out == "[False, False, False, False, False, True] /submission ANSWER = 42 []"
    assert not os.path.exists(submission / "inside.txt")
    assert sorted(os.listdir(submission)) == ["model.py", "outputs"]  # untouched
    assert not os.path.exists(os.path.join(ROOT, "HOSTILE-sandbox-canary"))


def test_the_private_folders_are_bounded(tmp_path):
    """/submission holds SCRATCH_BYTES at most and /tmp TMP_BYTES: a disk filler fills memory it
    was given, not the host's disk."""
    _, copies = staged(tmp_path)
    code, out = run_inside(
        """
        import os
        written = {}
        for place in ('/submission', '/tmp', '/dev/shm'):
            written[place] = 0
            try:
                for k in range(64):
                    with open(os.path.join(place, f'fill-{k}'), 'wb') as f:
                        for _ in range(32):
                            f.write(bytes(1 << 20))
                            written[place] += 1
            except OSError:
                pass
        print(written)
    """,
        handed_in=copies,
        timeout=120,
    )
    written = eval(out)
    assert written["/submission"] <= sandbox.SCRATCH_BYTES >> 20
    assert (
        written["/tmp"] <= sandbox.TMP_BYTES >> 20
        and written["/dev/shm"] <= sandbox.TMP_BYTES >> 20
    )


def test_staging_copies_only_regular_files(tmp_path):
    """A link in the submission (to anything) is left out of the copy, and never followed."""
    submission, copies = staged(tmp_path)
    (name,) = os.listdir(copies)
    copy = os.path.join(copies, name)
    assert sorted(os.listdir(copy)) == ["model.py", "outputs"]
    assert os.listdir(os.path.join(copy, "outputs")) == []


DETACHED = """
import os, signal, sys, time
if os.fork() != 0:
    while True:
        time.sleep(0.1)  # the sandbox's first process stays, as a warm forker does
for _ in range(2):
    if os.fork() != 0:
        os._exit(0)  # the parent goes: the grandchild is orphaned, in a session of its own
    os.setsid()
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
while True:
    time.sleep(0.1)
"""


def detached_sandbox():
    """DETACHED running in a sandbox of its own group: (group, first process, the group's pids
    once bubblewrap outside and in, the first process and the grandchild are all there)."""
    group = cgroups.new_group(sandbox.PROCESSES)
    process = subprocess.Popen(
        sandbox.wrap([sys.executable, "-I", "-S", "-c", DETACHED], group=group),
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while len(group.members()) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    return group, process, group.members()


def test_a_process_that_is_exiting_or_a_zombie_no_longer_runs():
    """What the end's confirmation counts (tests/fixtures/processes.py): this process runs; a
    child that has ended is not running, reaped or not; and a process inside the kernel's exit
    (PF_EXITING, which a busy machine can leave visible for a while after the process has left
    its cgroups) is not running either, whatever its state letter."""
    assert processes.alive(os.getpid())
    child = subprocess.Popen(["true"])
    deadline = time.monotonic() + 30
    while processes.alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.01)  # unreaped: a zombie until wait() below
    assert not processes.alive(child.pid)
    child.wait()
    assert not processes.alive(child.pid)
    with open("/proc/self/stat") as f:
        line = f.read()
    head, tail = line.rsplit(")", 1)
    fields = tail.split()
    assert processes.running(line)
    exiting = fields[:6] + [str(int(fields[6]) | processes.PF_EXITING)] + fields[7:]
    assert not processes.running(head + ") " + " ".join(exiting))
    assert not processes.running(head + ") " + " ".join(["Z", *fields[1:]]))


@pytest.mark.skipif(os.geteuid() != 0, reason="a child of another account needs root")
def test_a_snapshot_gives_each_process_its_own_parent_and_uids_whatever_its_name():
    """What Owners samples (tests/fixtures/processes.py): a child that runs as nobody and names
    itself like a line of /proc/<pid>/status is seen with its real parent, name and uids."""
    fake = "Uid:\t0\t0\t0\t0"[:15]
    script = f"open('/proc/self/comm', 'w').write({fake!r}); print('named', flush=True); input()"
    child = subprocess.Popen([sys.executable, "-c", script], user="nobody", text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # fmt: skip
    try:
        assert child.stdout.readline() == "named\n"
        parent, (name, *uids) = processes.snapshot()[child.pid]
        nobody = int(subprocess.check_output(["id", "-u", "nobody"], text=True))
        assert (parent, name, uids) == (os.getpid(), fake, [nobody] * 4)
    finally:
        child.kill()
        child.wait()


@pytest.mark.skipif(not cgroups.Group.available(), reason="cgroups need root and cgroup v1")
def test_a_detached_process_is_ended_and_the_end_confirmed():
    """A double fork with setsid, ignoring SIGTERM and SIGHUP, survives its sandbox's first
    process; ending the sandbox with its cgroup ends it too, and the group is empty."""
    group, process, members = detached_sandbox()
    assert len(members) >= 4  # bubblewrap outside and in, the first process, the grandchild
    seen = identities(members)
    sandbox.end(process, group)
    assert survivors(seen) == []
    assert not any(os.path.exists(folder) for folder in group.folders)


@pytest.mark.skipif(not cgroups.Group.available(), reason="cgroups need root and cgroup v1")
def test_groups_left_by_a_dead_grader_are_swept():
    """A grader killed mid-way leaves empty groups; the next group made removes them."""
    dead = subprocess.Popen(["true"])
    dead.wait()  # its pid is a grading process that is gone
    left = [os.path.join(root, cgroups.PARENT, f"{dead.pid}-left") for root in cgroups.ROOTS]
    for folder in left:
        os.makedirs(folder, exist_ok=True)
    cgroups.new_group(8).remove()
    assert not any(os.path.exists(folder) for folder in left)


@pytest.mark.skipif(not cgroups.Group.available(), reason="cgroups need root and cgroup v1")
def test_a_group_caps_its_processes():
    """pids.max: a fork loop inside one sandbox stops at the group's cap."""
    group = cgroups.new_group(8)
    done = subprocess.run(
        sandbox.wrap(
            [
                sys.executable,
                "-I",
                "-S",
                "-c",
                textwrap.dedent("""
                import os, time
                started = 0
                try:
                    for _ in range(50):
                        if os.fork() == 0:
                            time.sleep(5); os._exit(0)
                        started += 1
                except OSError:
                    pass
                print(started)
            """),
            ],
            group=group,
        ),
        capture_output=True,
        text=True,
        timeout=60,
    )
    group.remove()
    assert int(done.stdout.split()[-1]) < 8


def test_the_judges_worker_has_the_standard_library_only():
    """No venv and no site-packages or dist-packages to be found, even by putting the venv's on
    sys.path: a package (traitlets, installed in this venv) cannot be imported in any spelling."""
    packages = sysconfig.get_paths()["purelib"]
    done = subprocess.run(
        sandbox.wrap(
            [
                sandbox.STDLIB_PYTHON,
                "-I",
                "-S",
                "-c",
                textwrap.dedent(f"""
                import glob, os, sys
                sys.path.append({packages!r})
                found = []
                for name in ("statistics", "traitlets", "tra" + "itlets"):
                    try:
                        __import__(name); found.append(name)
                    except ImportError:
                        pass
                candidates = sys.path + glob.glob(sys.base_prefix + "/lib/python3*/*-packages")
                for usr in ("/usr", "/usr/local"):
                    candidates += glob.glob(usr + "/lib/python3*/*-packages")
                places = [p for p in candidates
                          if p.endswith("-packages") and os.path.isdir(p) and os.listdir(p)]
                print(found, os.path.exists({sys.prefix!r}), places)
            """),
            ],
            stdlib_only=True,
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip() == "['statistics'] False []", done.stdout + done.stderr


def test_no_network():
    """Not even loopback: a server listening on the host cannot be reached."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    code, out = run_inside(f"""
        import socket
        try:
            socket.create_connection(('127.0.0.1', {port}), timeout=2); print('connected')
        except OSError as err:
            print('refused')
    """)
    server.close()
    assert (code, out) == (0, "refused")


def test_memory_limit():
    """3 GiB cannot be allocated."""
    code, out = run_inside("""
        try:
            block = bytearray(3 << 30); print('allocated')
        except MemoryError:
            print('refused')
    """)
    assert out == "refused"


def test_process_limit():
    """Forty sleeping children cannot all start: the process limit stops the fork."""
    code, out = run_inside(f"""
        import os, time
        started = 0
        try:
            for _ in range({sandbox.PROCESSES + 10}):
                if os.fork() == 0:
                    time.sleep(5); os._exit(0)
                started += 1
        except OSError:
            pass
        print(started)
    """)
    assert int(out.splitlines()[-1]) < sandbox.PROCESSES


def test_grading_refuses_without_bubblewrap(monkeypatch):
    """Where bubblewrap is missing, grading refuses with the reason,
    unless the unsafe flag is set.
    """
    sandbox.problem.cache_clear()
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    try:
        with pytest.raises(sandbox.SandboxUnavailable, match="bubblewrap is not installed"):
            sandbox.require()
        monkeypatch.setenv(sandbox.UNSAFE_FLAG, "1")
        sandbox.require()
    finally:
        sandbox.problem.cache_clear()


def test_an_environment_under_tmp_still_works(tmp_path):
    """A course cloned under /tmp (as CI does)
    has its venv under the sandbox's private /tmp: still reachable.
    """
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    probe = (
        "from grading.machine import sandbox; import subprocess, sys; "
        "print(sandbox.problem()); "
        "print(subprocess.run(sandbox.wrap([sys.executable, '-I', '-S', '-c', "
        '\'import os; open("/tmp/w", "w"); print("ok")\']), capture_output=True, text=True).stdout)'
    )
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", probe],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
        timeout=120,
    )
    assert done.stdout.split() == ["None", "ok"], done.stdout + done.stderr


@pytest.mark.skipif(not sandbox.own_uid(), reason="sandboxes here run under the grader's own uid")
def test_two_grading_processes_never_share_a_sandbox_uid():
    """Another process starting its search where this one did still gets a uid of its own."""
    mine = sandbox.sandbox_uid()
    theirs = subprocess.run(
        [sys.executable, "-c",
         f"import os; os.getpid = lambda: {os.getpid()}\n"  # the same starting point as ours
         "from grading.machine import sandbox; print(sandbox.sandbox_uid())"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert int(theirs) != mine
    assert int(theirs) in sandbox.uid_range()


@pytest.mark.skipif(not cgroups.Group.available(), reason="cgroups need root and cgroup v1")
def test_a_group_that_will_not_freeze_is_ended_all_the_same(monkeypatch):
    """A process can hold the freezer off (asleep in userfaultfd): the members are killed anyway,
    in passes, and the end is still confirmed."""
    group, process, members = detached_sandbox()
    real = cgroups.Group.set_state

    def stuck(self, state):
        if state == "FROZEN":
            raise cgroups.GroupStuck("held off")
        real(self, state)

    monkeypatch.setattr(cgroups.Group, "set_state", stuck)
    seen = identities(members)
    sandbox.end(process, group)
    assert survivors(seen) == []


def test_an_overlay_left_by_a_process_that_ended_is_swept(tmp_path, monkeypatch):
    """A grading server ended by a signal runs no atexit handler: the next process of the same
    user removes its overlay, and leaves a living process's alone."""
    monkeypatch.setattr(sandbox.tempfile, "gettempdir", lambda: str(tmp_path))
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    dead = tmp_path / f"{sandbox.OVERLAY_PREFIX}{ended.stdout.strip()}-x1"
    living = tmp_path / f"{sandbox.OVERLAY_PREFIX}{os.getpid()}-x2"
    other = tmp_path / f"{sandbox.OVERLAY_PREFIX}notapid"
    for folder in (dead, living, other):
        (folder / "bin").mkdir(parents=True)
    sandbox.sweep_overlays()
    assert not dead.exists() and living.exists() and other.exists()
