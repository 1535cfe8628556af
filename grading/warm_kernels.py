"""Warm kernels: one sandbox per submission, in which each notebook's kernel is forked, not started.

Starting an ipykernel from scratch costs about 0.65 CPU seconds, most of it importing IPython and
ipykernel; a submission has eight notebooks, so that is about 5 of the 7 CPU seconds grading one
takes. The grading servers (grading.farm) therefore start, for each submission, one sandbox
exactly like a kernel's (grading.sandbox: the same binds, uid, limits and environment) running
grading/forker.py, which imports ipykernel once and then forks a fresh kernel for each notebook
(about 0.2 CPU seconds each). Each notebook still gets a new process with nothing of the previous
notebook's in it; jupyter_client drives it through a Popen-like handle (`ForkedKernel`).

Plain `nbgrader autograde` keeps starting kernels from scratch (SandboxedExecute.warm_kernels is
off by default): it is the reference the farm's results are compared with, cell by cell.

The forker runs learner code's parent, so everything it says is checked: a reply that is not the
one expected, or none within REPLY_SECONDS, ends the sandbox and the notebook falls back to a
kernel started from scratch.
"""

import atexit
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from grading import sandbox

FORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "forker.py")
REPLY_SECONDS = 30  # a fork and its reply take milliseconds; a silent forker is broken
LONGEST_REPLY = 4096  # bytes: a longer line is not a reply the forker would write


class ForkerGone(RuntimeError):
    """The forker died, stopped answering or answered nonsense; its sandbox has been ended."""


class Forker:
    """One submission's warm sandbox: the forker process and the runtime folder its kernels use."""

    def __init__(self, writable, env):
        self.writable = writable
        self.runtime = tempfile.mkdtemp(prefix="attn-warm-")
        sandbox.hand_over(self.runtime)
        with open(FORKER, encoding="utf-8") as f:
            source = f.read()
        self.process = subprocess.Popen(
            sandbox.wrap(
                [sys.executable, "-c", source],
                writable=writable,
                extra_binds=[self.runtime],
                env=env,
                memory=sandbox.KERNEL_MEMORY_BYTES,
            ),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.lock = threading.Lock()
        self.pending = b""
        self.kernels = 0
        try:
            self.expect(self.read_reply(), "ready")
        except ForkerGone:
            shutil.rmtree(self.runtime, ignore_errors=True)
            raise

    def connection_paths(self):
        """(connection file, ipc prefix) for the next kernel: new names, so no stale socket."""
        self.kernels += 1
        return (
            os.path.join(self.runtime, f"kernel-{self.kernels}.json"),
            os.path.join(self.runtime, f"ipc-{self.kernels}"),
        )

    def read_reply(self):
        """The next line the forker writes, as JSON; ForkerGone after REPLY_SECONDS or on junk."""
        deadline = time.monotonic() + REPLY_SECONDS
        out = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or len(self.pending) > LONGEST_REPLY:
                self.fail("no reply")
            if not select.select([out], [], [], left)[0]:
                continue
            chunk = os.read(out, LONGEST_REPLY)
            if not chunk:
                self.fail("it ended")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        try:
            reply = json.loads(line)
        except ValueError:
            self.fail("a reply that is not JSON")
        if not isinstance(reply, dict):
            self.fail("a reply that is not an object")
        return reply

    def expect(self, reply, key):
        """The value of key in reply, or ForkerGone."""
        if key not in reply:
            self.fail(f"a reply without {key!r}")
        return reply[key]

    def ask(self, key, **request):
        """Send one request; the reply's value for key."""
        with self.lock:
            if self.process.poll() is not None:
                self.fail("it ended")
            try:
                self.process.stdin.write(json.dumps(request).encode() + b"\n")
                self.process.stdin.flush()
            except OSError:
                self.fail("it stopped reading")
            return self.expect(self.read_reply(), key)

    def spawn(self, argv, env=None):
        """A new kernel forked with ipykernel_launcher's arguments argv and env's variables set."""
        pid = self.ask("pid", op="spawn", argv=list(argv), env=dict(env or {}))
        if not isinstance(pid, int) or pid <= 1:
            self.fail("a pid that is not one")
        return ForkedKernel(self, pid)

    def fail(self, why):
        """End the sandbox and say why (the runtime folder stays: a cold kernel may use it now)."""
        self.stop()
        raise ForkerGone(f"the warm kernel sandbox gave {why}")

    def stop(self):
        """End the sandbox: every process in it."""
        sandbox.end(self.process)

    def close(self):
        """End the sandbox and remove the runtime folder (once the submission is graded)."""
        self.stop()
        shutil.rmtree(self.runtime, ignore_errors=True)


class ForkedKernel:
    """The Popen-like handle jupyter_client's LocalProvisioner polls, signals and waits on."""

    stdin = stdout = stderr = None

    def __init__(self, forker, pid):
        self.forker, self.pid = forker, pid
        self.returncode = None

    def poll(self):
        """None while the kernel runs, else its exit code (-9 when its sandbox is gone)."""
        if self.returncode is None:
            try:
                status = self.forker.ask("status", op="poll", pid=self.pid)
            except ForkerGone:
                status = -signal.SIGKILL
            if status is not None and not isinstance(status, int):
                status = -signal.SIGKILL
            self.returncode = status
        return self.returncode

    def wait(self, timeout=None):
        """Block until the kernel ends; its exit code."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired("forked kernel", timeout)
            time.sleep(0.05)
        return self.returncode

    def send_signal(self, number):
        """Signal the kernel's process group inside the sandbox.

        Not SIGINT: an interrupt never reaches a kernel started from scratch in its sandbox
        (bubblewrap's --new-session), so a cell that runs past its timeout ends that notebook's
        run; a forked kernel must do the same, or its feedback would differ.
        """
        if number == signal.SIGINT:
            return
        if self.poll() is None:
            try:
                self.forker.ask("sent", op="signal", pid=self.pid, signal=int(number))
            except ForkerGone:
                pass  # the sandbox, and the kernel with it, is gone

    def kill(self):
        """SIGKILL."""
        self.send_signal(signal.SIGKILL)

    def terminate(self):
        """SIGTERM."""
        self.send_signal(signal.SIGTERM)


_current = {}  # writable folder -> its Forker: a grading server grades one submission at a time


def forker_for(writable, env):
    """The warm sandbox for this folder, started on first use; any other one is ended first."""
    if writable not in _current:
        close()
        _current[writable] = Forker(writable, env)
    forker = _current[writable]
    if forker.process.poll() is not None:
        forker.close()
        _current[writable] = forker = Forker(writable, env)
    return forker


def close():
    """End every warm sandbox (after each submission, and when the server exits)."""
    while _current:
        _current.popitem()[1].close()


atexit.register(close)
