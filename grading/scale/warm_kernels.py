"""Warm kernels: one sandbox per submission, in which each notebook's kernel is forked, not started.

Starting an ipykernel from scratch costs about 0.65 CPU seconds, most of it importing IPython and
ipykernel; a submission has eight notebooks, so that is about 5 of the 7 CPU seconds grading one
takes. The grading servers (grading.scale.server) therefore start, for each submission, one sandbox
exactly like a kernel's (machine.sandbox: the same binds, uid, limits and environment) running
scale/forker.py, which imports ipykernel once and then forks a fresh kernel for each notebook
(about 0.2 CPU seconds each). Each notebook still gets a new process with nothing of the previous
notebook's in it; jupyter_client drives it through a Popen-like handle (`ForkedKernel`).

Plain `nbgrader autograde` keeps starting kernels from scratch (SandboxedExecute.warm_kernels is
off by default): it is the reference the farm's results are compared with, cell by cell.

The forker runs learner code's parent, so everything it says is checked: a reply that is not the
one expected, or none within REPLY_SECONDS, ends the sandbox and the notebook falls back to a
kernel started from scratch.

No learner process outlives its notebook: when a kernel ends, every process in the sandbox but
bubblewrap's and the forker's is frozen, killed and counted gone (machine.cgroups), and the next
kernel starts from a wiped /tmp and a fresh copy of the submission. Without cgroups (grading as
another user than root) the whole sandbox ends with each kernel instead.
"""

import atexit
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time

from grading.machine import cgroups, sandbox

FORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "forker.py")
REPLY_SECONDS = 30  # a fork and its reply take milliseconds; a silent forker is broken
LONGEST_REPLY = 4096  # bytes: a longer line is not a reply the forker would write


class ForkerGone(RuntimeError):
    """The forker died, stopped answering or answered nonsense; its sandbox has been ended."""


class Forker:
    """One submission's warm sandbox: the forker, its staged copies and its kernels' sockets."""

    def __init__(self, env):
        self.staging = sandbox.private_folder("attn-in-")  # read-only inside: /handed-in
        self.runtime = sandbox.private_folder("attn-warm-")  # one socket folder per kernel
        self.group = cgroups.new_group(sandbox.PROCESSES)
        with open(FORKER, encoding="utf-8") as f:
            source = f.read()
        self.process = subprocess.Popen(
            sandbox.wrap(
                [sys.executable, "-c", source],
                handed_in=self.staging,
                extra_binds=[self.runtime],
                env=env,
                memory=sandbox.KERNEL_MEMORY_BYTES,
                group=self.group,
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
            self.remove_folders()
            raise
        # Before any learner code: bubblewrap (outside, and its init inside) and the forker are
        # all the group holds. Exact host pids, so nothing a kernel starts can pass for one.
        self.own = self.group.members() if self.group is not None else set()

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

    def spawn(self, argv, env, handed_in):
        """A new kernel forked with ipykernel_launcher's arguments argv and env's variables set.

        It starts in /submission filled from the staged copy /handed-in/<handed_in>.
        """
        keep = [self.runtime]  # the bound folder the wipe of /tmp skips
        pid = self.ask(
            "pid", op="spawn", argv=list(argv), env=dict(env), handed_in=handed_in, keep=keep
        )
        if not isinstance(pid, int) or pid <= 1:
            self.fail("a pid that is not one")
        self.kernels += 1
        return ForkedKernel(self, pid)

    def end_learners(self):
        """End every process the kernels started, and confirm it; the forker stays.

        Kept: bubblewrap (outside and its init inside) and the forker, by the host pids the group
        held when the forker said it was ready. Without a cgroup the whole sandbox ends instead.
        """
        if self.group is None or self.process.poll() is not None:
            self.stop()
            return
        try:
            self.group.end(keep=self.own)
            self.ask("reaped", op="reap")  # zombies a kernel made the forker's children
        except (cgroups.GroupStuck, OSError, ForkerGone):
            self.stop()

    def fail(self, why):
        """End the sandbox and say why (the folders stay: a cold kernel may use them now)."""
        self.stop()
        raise ForkerGone(f"the warm kernel sandbox gave {why}")

    def stop(self):
        """End the sandbox: every process in it, confirmed by its cgroup."""
        sandbox.end(self.process, self.group)
        self.group = None

    def remove_folders(self):
        """Remove the staged copies and socket folders (the host's own; nothing learner-made)."""
        shutil.rmtree(self.staging, ignore_errors=True)
        shutil.rmtree(self.runtime, ignore_errors=True)

    def close(self):
        """End the sandbox and remove its folders (once the submission is graded)."""
        self.stop()
        self.remove_folders()


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
            if status is not None:
                self.forker.end_learners()  # nothing the kernel started outlives it
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


_current = {}  # submission folder -> its Forker: a grading server grades one submission at a time


def forker_for(submission, env):
    """The warm sandbox for this submission, started on first use; any other one is ended first."""
    if submission not in _current:
        close()
        _current[submission] = Forker(env)
    forker = _current[submission]
    if forker.process.poll() is not None:
        forker.close()
        _current[submission] = forker = Forker(env)
    return forker


def close():
    """End every warm sandbox (after each submission, and when the server exits)."""
    while _current:
        _current.popitem()[1].close()


atexit.register(close)
