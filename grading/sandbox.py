"""The sandbox every piece of learner code runs in while grading: bubblewrap plus resource limits.

One command builds it (`wrap`). Inside:
- only the system (/usr, /etc and the /bin, /lib links) and the Python environment exist, all
  read-only; /tmp, /var/tmp and /dev/shm are private and empty. The course root, the gradebook,
  `grading/`, the reference `model.py` (and any other copy of it on the machine), other
  submissions and everyone's home folders do not exist;
- write access to one folder at most (the kernel's own autograded folder, seen inside as
  /tmp/submission; the judge's worker gets none), a private /tmp, no network, its own pid/ipc/uts
  namespaces, a clean environment;
- limits: address space, processes, CPU seconds, file size and open files (prlimit), and, when
  grading runs as root, an unprivileged uid of its own (setpriv), so the process limit bites.

Where bubblewrap cannot run, grading refuses (`require`) unless the instructor sets
ATTENTION_UNSAFE_NO_SANDBOX=1, which every judged record then states.
"""

import fcntl
import functools
import os
import shutil
import signal
import subprocess
import sys

from grading import system

UNSAFE_FLAG = "ATTENTION_UNSAFE_NO_SANDBOX"
MEMORY_BYTES = 1 << 30  # 1 GiB of address space for the judge's worker
KERNEL_MEMORY_BYTES = 2 << 30  # an idle ipykernel maps about 0.6 GiB before running a cell
PROCESSES = 64  # threads count too: an ipykernel runs about ten
CPU_SECONDS = 600
FILE_BYTES = 64 << 20  # no single file larger than 64 MiB
OPEN_FILES = 256
SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"]
SCRATCH = ["/tmp", "/var/tmp", "/dev/shm"]
WORKDIR = "/tmp/submission"  # where the writable folder appears inside: no instructor path leaks
SANDBOX_UIDS = range(61000, 65000)  # unprivileged uids no account uses; one per grading process
UID_CLAIMS = "/run/attention-sandbox-uids"  # root's: sandbox uids are used only as root


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create its namespaces here; the message says why."""


def unsafe():
    """Whether the instructor set ATTENTION_UNSAFE_NO_SANDBOX=1 (limits only, no bubblewrap)."""
    return os.environ.get(UNSAFE_FLAG) == "1"


def as_root():
    """Whether grading runs as root (then setpriv drops the sandbox to a uid of its own)."""
    return os.geteuid() == 0


def python_home():
    """The folders the grading Python needs: the venv and the interpreter it points at."""
    folders = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    return sorted(f for f in folders if f)


def user_processes():
    """How many processes (threads included) this uid runs now.

    The process limit counts them all.
    """
    count = 0
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
            if int(fields["Uid"].split()[0]) == os.getuid():
                count += int(fields["Threads"])
        except (OSError, ValueError, KeyError):
            continue
    return count


def limits(memory):
    """prlimit arguments: the resource limits of one sandboxed process tree."""
    processes = PROCESSES if as_root() else user_processes() + PROCESSES
    return [
        "prlimit",
        f"--as={memory}",
        f"--nproc={processes}",
        f"--cpu={CPU_SECONDS}",
        f"--fsize={FILE_BYTES}",
        f"--nofile={OPEN_FILES}",
        "--",
    ]


@functools.cache
def sandbox_uid():
    """This grading process's own sandbox uid, claimed with a lock it holds until it exits.

    The process limit counts per uid, and two grading processes (parallel grading) sharing one
    would share it: each claims a uid no other live grading process on this machine holds.
    """
    os.makedirs(UID_CLAIMS, mode=0o700, exist_ok=True)
    start = os.getpid() % len(SANDBOX_UIDS)
    for k in range(len(SANDBOX_UIDS)):
        uid = SANDBOX_UIDS[(start + k) % len(SANDBOX_UIDS)]
        claim = os.open(os.path.join(UID_CLAIMS, str(uid)), os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(claim, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(claim)
            continue
        _claims.append(claim)  # kept open: the lock (the claim) ends with this process
        return uid
    raise SandboxUnavailable(f"all {len(SANDBOX_UIDS)} sandbox uids are claimed by other graders")


_claims = []


def drop_to_sandbox_uid():
    """setpriv arguments: become the sandbox's own unprivileged uid, with no capabilities left."""
    return [
        "setpriv",
        f"--reuid={sandbox_uid()}",
        f"--regid={sandbox_uid()}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
    ]


def parents_to_create(folder, bound):
    """--dir arguments for folder's parents that no bound tree provides.

    They are made 0755 (bwrap would make them 0700).
    """
    cmd, parts = [], folder.strip("/").split("/")
    for k in range(1, len(parts)):
        parent = "/" + "/".join(parts[:k])
        if parent not in SCRATCH and not any(
            parent == b or parent.startswith(b.rstrip("/") + "/") for b in bound
        ):
            cmd += ["--perms", "0755", "--dir", parent]
    return cmd


def system_binds():
    """The system, read-only: only these trees exist inside.

    Merged-/usr symlinks are recreated as links.
    """
    cmd, bound = [], []
    for path in SYSTEM:
        if os.path.islink(path):
            cmd += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            cmd += ["--ro-bind", path, path]
            bound.append(path)
    return cmd, bound


def bwrap(writable=None, env=None, extra_binds=()):
    """bubblewrap arguments: only the system and Python environment, read-only; one writable folder.

    Nothing else of the machine exists inside: not the course root, not /home or /root, not /work,
    /srv or /opt (unless the Python environment lives there), so no copy of the reference anywhere
    on disk can be read. As root, bubblewrap sets up the mounts and setpriv then drops to the
    sandbox uid on the host (a uid of our own, so the process limit counts only the sandbox). As
    another user, bubblewrap makes a user namespace and needs no privilege at all.
    """
    cmd, bound = system_binds()
    cmd = [system.program("bwrap")] + cmd + ["--dev", "/dev", "--proc", "/proc"]
    for folder in SCRATCH:  # private and empty, writable by anyone, as on the host (a folder bound
        cmd += ["--perms", "1777", "--tmpfs", folder]  # under one gets its parents made 0755 below)
    for folder in python_home():
        cmd += parents_to_create(folder, bound) + ["--ro-bind", folder, folder]
        bound.append(folder)
    for folder in extra_binds:
        cmd += parents_to_create(folder, bound) + ["--bind", folder, folder]
        bound.append(folder)
    if writable:
        cmd += ["--bind", writable, WORKDIR, "--chdir", WORKDIR]
    else:
        cmd += ["--chdir", "/tmp"]
    cmd += (
        ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        if as_root()
        else ["--unshare-all"]
    )
    cmd += ["--die-with-parent", "--new-session", "--clearenv"]
    for key, value in {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        **(env or {}),
    }.items():
        cmd += ["--setenv", key, value]
    return cmd + ["--"]


def wrap(argv, writable=None, env=None, memory=MEMORY_BYTES, extra_binds=()):
    """The full command that runs argv sandboxed (or, with the unsafe flag, only under limits)."""
    if unsafe():
        return limits(memory) + list(argv)
    box = bwrap(writable, env, extra_binds)
    if as_root():
        return box + drop_to_sandbox_uid() + limits(memory) + list(argv)
    return limits(memory) + box + list(argv)


@functools.lru_cache(maxsize=1)
def problem():
    """None when the sandbox works on this machine, else a sentence saying why not."""
    if shutil.which(system.program("bwrap")) is None:
        return "bubblewrap is not installed (Debian: apt-get install bubblewrap)"
    for tool in ("prlimit", "setpriv"):
        if shutil.which(tool) is None:
            return f"{tool} (util-linux) is not installed"
    try:
        done = subprocess.run(
            wrap([sys.executable, "-I", "-S", "-c", "print('sandboxed')"]),
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"bubblewrap could not start: {err}"
    if done.returncode != 0 or done.stdout.strip() != "sandboxed":
        return (
            "bubblewrap could not start a sandbox here: "
            f"{done.stderr.strip()[-300:] or done.returncode}"
        )
    return None


def require():
    """Raise SandboxUnavailable unless the sandbox works or the instructor chose unsafe grading."""
    if unsafe():
        return
    why = problem()
    if why:
        raise SandboxUnavailable(
            f"grading refused: {why}. Learner code must not run unconfined. "
            f"Fix the machine, or set {UNSAFE_FLAG}=1 (make autograde UNSAFE=1) "
            "to grade without the sandbox; grades.csv will say so."
        )


def hand_over(folder):
    """Give the sandbox uid ownership of a folder or file (the kernel writes there).

    Return the old owner.
    """
    st = os.stat(folder)
    if as_root() and not unsafe():
        chown_tree(folder, sandbox_uid(), sandbox_uid())
    return st.st_uid, st.st_gid


def chown_tree(folder, uid, gid):
    """lchown folder and everything under it to uid:gid (links themselves, never their targets)."""
    os.lchown(folder, uid, gid)
    for here, dirs, files in os.walk(folder):
        for name in [here] + [os.path.join(here, n) for n in dirs + files]:
            os.lchown(name, uid, gid)


def end(process):
    """Stop a sandboxed process tree (its process group when it leads one; bubblewrap's pid
    namespace takes everything inside with it) and close its pipes."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            process.kill()
    process.wait()
    for pipe in (process.stdin, process.stdout):
        try:
            if pipe:
                pipe.close()
        except OSError:
            pass
