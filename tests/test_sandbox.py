"""The sandbox learner code runs in:
nothing of the course visible, nothing writable, no network, limits.
"""

import os
import socket
import subprocess
import sys
import textwrap

import pytest

from grading import sandbox
from grading.reference import ROOT

pytestmark = pytest.mark.skipif(sandbox.unsafe(), reason="graded without the sandbox on purpose")


def run_inside(code, writable=None, timeout=60):
    """Run Python code in the sandbox; (exit code, stdout)."""
    done = subprocess.run(
        sandbox.wrap([sys.executable, "-I", "-S", "-c", textwrap.dedent(code)], writable=writable),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return done.returncode, done.stdout.strip()


def test_sandbox_works_on_this_machine():
    """bubblewrap, prlimit and setpriv are installed and a sandbox starts (CI installs them)."""
    assert sandbox.problem() is None


def test_course_root_home_and_tmp_are_hidden(tmp_path):
    """The gradebook, grading/, the reference (any copy of it) and the submissions are not there."""
    copy = tmp_path / "elsewhere" / "model.py"  # a second copy of the reference, outside the course
    copy.parent.mkdir()
    copy.write_text("secret")
    paths = [
        os.path.join(ROOT, "model.py"),
        os.path.join(ROOT, "grading", "hidden.py"),
        str(copy),
        os.path.join(ROOT, "gradebook.db"),
        os.path.expanduser("~/.bashrc"),
        "/srv",
        "/home",
        "/opt",
    ]
    code, out = run_inside(f"""
        import os
        print(repr(([p for p in {paths!r} if os.path.exists(p)],
                    os.listdir('/tmp'), os.listdir('/'))))
    """)
    assert code == 0
    present, tmp, top = eval(out)
    assert present == []
    # /tmp holds at most the way to the Python environment (when it lives under /tmp), nothing else
    assert set(tmp) <= {p.split("/")[2] for p in sandbox.python_home() if p.startswith("/tmp/")}
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
    } | {p.split("/")[1] for p in sandbox.python_home()}


def test_nothing_is_writable_but_the_given_folder(tmp_path):
    """Writes outside the one writable folder fail; writes inside it land on the host."""
    target = tmp_path / "mine"
    target.mkdir()
    sandbox.hand_over(str(target))
    code, out = run_inside(
        f"""
        results = []
        for path in [{os.path.join(ROOT, "HOSTILE-sandbox-canary")!r},
                     {str(tmp_path / "HOSTILE-next-to")!r},
                     '/etc/HOSTILE-sandbox-canary', 'inside.txt']:
            try:
                open(path, 'w').write('x')
                results.append(True)
            except OSError:
                results.append(False)
        print(results)
    """,
        writable=str(target),
    )
    assert code == 0 and eval(out) == [False, False, False, True]  # inside.txt: the working folder
    assert (target / "inside.txt").exists()
    assert not os.path.exists(os.path.join(ROOT, "HOSTILE-sandbox-canary"))


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
        "from grading import sandbox; import subprocess, sys; "
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


@pytest.mark.skipif(not sandbox.as_root(), reason="sandbox uids are used only when grading as root")
def test_two_grading_processes_never_share_a_sandbox_uid():
    """Another process starting its search where this one did still gets a uid of its own."""
    mine = sandbox.sandbox_uid()
    theirs = subprocess.run(
        [sys.executable, "-c",
         f"import os; os.getpid = lambda: {os.getpid()}\n"  # the same starting point as ours
         "from grading import sandbox; print(sandbox.sandbox_uid())"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert int(theirs) != mine
    assert int(theirs) in sandbox.SANDBOX_UIDS
