"""The sandbox every piece of learner code runs in while grading: bubblewrap plus resource limits.

One command builds it (`wrap`). Inside:
- the whole system read-only, with the course root, /tmp, /var/tmp and /dev/shm hidden (empty);
  only the Python environment is bound back, read-only, so the gradebook, `grading/`, the
  reference `model.py`, other submissions and the instructor's files are invisible;
- write access to one folder at most (the kernel's own autograded folder, seen inside as
  /tmp/submission; the judge's worker gets none), a private /tmp, no network, its own pid/ipc/uts
  namespaces, a clean environment;
- limits: address space, processes, CPU seconds, file size and open files (prlimit), and, when
  grading runs as root, an unprivileged uid of its own (setpriv), so the process limit bites.

Where bubblewrap cannot run, grading refuses (`require`) unless the instructor sets
ATTENTION_UNSAFE_NO_SANDBOX=1, which every judged record then states.
"""
import functools
import os
import shutil
import subprocess
import sys

from grading.reference import ROOT

UNSAFE_FLAG = "ATTENTION_UNSAFE_NO_SANDBOX"
MEMORY_BYTES = 1 << 30            # 1 GiB of address space for the judge's worker
KERNEL_MEMORY_BYTES = 2 << 30     # an idle ipykernel maps about 0.6 GiB before running a cell
PROCESSES = 64                    # threads count too: an ipykernel runs about ten
CPU_SECONDS = 600
FILE_BYTES = 64 << 20             # no single file larger than 64 MiB
OPEN_FILES = 256
SCRATCH = ["/tmp", "/var/tmp", "/dev/shm"]
WORKDIR = "/tmp/submission"       # where the writable folder appears inside: no instructor path leaks
HIDDEN = [ROOT] + SCRATCH
SANDBOX_UID = 61000 + os.getpid() % 4000   # one uid per grading process: the process limit is per uid


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create its namespaces here; the message says why."""


def unsafe():
    return os.environ.get(UNSAFE_FLAG) == "1"


def as_root():
    return os.geteuid() == 0


def python_home():
    """The folders the grading Python needs: the environment (venv) and the interpreter it points at."""
    folders = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    return sorted(f for f in folders if f)


def user_processes():
    """How many processes (threads included) this uid runs now: the process limit counts them all."""
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
    return ["prlimit", f"--as={memory}", f"--nproc={processes}", f"--cpu={CPU_SECONDS}",
            f"--fsize={FILE_BYTES}", f"--nofile={OPEN_FILES}", "--"]


def drop_to_sandbox_uid():
    """setpriv arguments: become the sandbox's own unprivileged uid, with no capabilities left."""
    return ["setpriv", f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--"]


def traversable_parents(folder, hidden):
    """--dir arguments that recreate folder's parents inside a hidden tree as 0755 (bwrap makes 0700)."""
    cmd, parts = [], folder.strip("/").split("/")
    for k in range(1, len(parts)):
        parent = "/" + "/".join(parts[:k])
        if any(parent.startswith(h.rstrip("/") + "/") for h in hidden):
            cmd += ["--perms", "0755", "--dir", parent]
    return cmd


def bwrap(writable=None, env=None, extra_binds=()):
    """bubblewrap arguments: read-only system, hidden course root and home, at most one writable folder.

    As root, bubblewrap sets up the mounts itself and setpriv then drops to the sandbox uid on the
    host (a uid of our own, so the process limit counts only the sandbox). As another user,
    bubblewrap makes a user namespace and needs no privilege at all.
    """
    cmd = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    hidden = HIDDEN + [os.path.expanduser("~")]
    for folder in hidden:   # scratch folders stay writable for everyone, as on the host; the rest read-only
        cmd += ["--perms", "1777" if folder in SCRATCH else "0755", "--tmpfs", folder]
    for folder in python_home():
        cmd += traversable_parents(folder, hidden) + ["--ro-bind", folder, folder]
    for folder in extra_binds:
        cmd += traversable_parents(folder, hidden) + ["--bind", folder, folder]
    if writable:
        cmd += ["--bind", writable, WORKDIR, "--chdir", WORKDIR]
    else:
        cmd += ["--chdir", "/tmp"]
    cmd += (["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
            if as_root() else ["--unshare-all"])
    cmd += ["--die-with-parent", "--new-session", "--clearenv"]
    for key, value in {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", **(env or {})}.items():
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
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (Debian: apt-get install bubblewrap)"
    for tool in ("prlimit", "setpriv"):
        if shutil.which(tool) is None:
            return f"{tool} (util-linux) is not installed"
    try:
        done = subprocess.run(wrap([sys.executable, "-I", "-S", "-c", "print('sandboxed')"]),
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"bubblewrap could not start: {err}"
    if done.returncode != 0 or done.stdout.strip() != "sandboxed":
        return f"bubblewrap could not start a sandbox here: {done.stderr.strip()[-300:] or done.returncode}"
    return None


def require():
    """Raise SandboxUnavailable unless the sandbox works here or the instructor chose to grade unsafely."""
    if unsafe():
        return
    why = problem()
    if why:
        raise SandboxUnavailable(
            f"grading refused: {why}. Learner code must not run unconfined. Fix the machine, or set "
            f"{UNSAFE_FLAG}=1 (make autograde UNSAFE=1) to grade without the sandbox; grades.csv will say so.")


def hand_over(folder):
    """Give the sandbox uid ownership of a folder or file (the kernel writes there); return the old owner."""
    st = os.stat(folder)
    if as_root() and not unsafe():
        chown_tree(folder, SANDBOX_UID, SANDBOX_UID)
    return st.st_uid, st.st_gid


def chown_tree(folder, uid, gid):
    os.lchown(folder, uid, gid)
    for here, dirs, files in os.walk(folder):
        for name in [here] + [os.path.join(here, n) for n in dirs + files]:
            os.lchown(name, uid, gid)
