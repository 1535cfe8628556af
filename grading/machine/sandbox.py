"""The sandbox every piece of learner code runs in while grading: bubblewrap plus resource limits.

One command builds it (`wrap`). Inside:
- only the system (/usr, /etc and the /bin, /lib links) and the Python environment exist, all
  read-only; /tmp, /var/tmp and /dev/shm are private and empty. The course root, the gradebook,
  `grading/`, the reference `model.py` (and any other copy of it on the machine), other
  submissions and everyone's home folders do not exist;
- no host folder is writable but a kernel's own socket folder (sealed once the kernel listens,
  see `seal`). A kernel works in /submission, a private tmpfs of SCRATCH_BYTES filled from a
  read-only copy of the submission (/handed-in): nothing a learner process writes reaches the
  host, and the host never reads what it wrote. /tmp, /var/tmp and /dev/shm are private tmpfs of
  TMP_BYTES each; the judge's worker gets no /submission at all. No network, its own
  pid/ipc/uts namespaces, a clean environment;
- limits: address space, processes, CPU seconds, file size and open files (prlimit); a uid of its
  own (`sandbox_uid`), so the process limit bites and nothing on the host is its to write; and a
  cgroup of its own (machine.cgroups), so every process it starts is ended and the end confirmed.

How the sandbox gets its own uid depends on who grades (`uid_mode`):
- "root": setpriv drops it to one of SANDBOX_UIDS on the host;
- "mapped": an unprivileged grader (the course user, see grading.course_user) with a range of
  subordinate uids (/etc/subuid, /etc/subgid) maps one of them into a user namespace of its own
  (unshare and newuidmap), where bubblewrap sets up as that namespace's root and setpriv drops to
  the mapped uid. The grader owns the namespace, so it can still end every process in it;
- "own": without subordinate uids, bubblewrap's user namespace runs it under the grader's uid.

Where bubblewrap cannot run, grading refuses (`require`) unless the instructor sets
ATTENTION_UNSAFE_NO_SANDBOX=1, which every judged record then states.
"""

import atexit
import functools
import glob
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import sys
import sysconfig
import tempfile

from grading.machine import system

UNSAFE_FLAG = "ATTENTION_UNSAFE_NO_SANDBOX"
MEMORY_BYTES = 1 << 30  # 1 GiB of address space for the judge's worker
KERNEL_MEMORY_BYTES = 2 << 30  # an idle ipykernel maps about 0.6 GiB before running a cell
PROCESSES = 64  # threads count too: an ipykernel runs about ten
CPU_SECONDS = 600
FILE_BYTES = 64 << 20  # no single file larger than 64 MiB
OPEN_FILES = 256
SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"]
SCRATCH = ["/tmp", "/var/tmp", "/dev/shm"]
WORKDIR = "/submission"  # the kernel's private working folder: no instructor path leaks
HANDED_IN = "/handed-in"  # read-only: the staged copies of the submission a kernel starts from
SCRATCH_BYTES = 200 << 20  # the working folder's size: the submission and what the kernel writes
TMP_BYTES = 64 << 20  # each of /tmp, /var/tmp, /dev/shm (a tmpfs is memory; unbounded it is RAM)
SANDBOX_UIDS = range(61000, 65000)  # unprivileged uids no account uses; one per grading process
CLAIM = "\0attention-sandbox-uid-{}"  # an abstract socket name: held while its grader lives


class SandboxTampered(RuntimeError):
    """Something in a sandbox's socket folder is not what a kernel makes there (a link, say)."""


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create its namespaces here; the message says why."""


def unsafe():
    """Whether the instructor set ATTENTION_UNSAFE_NO_SANDBOX=1 (limits only, no bubblewrap)."""
    return os.environ.get(UNSAFE_FLAG) == "1"


def as_root():
    """Whether grading runs as root (then setpriv drops the sandbox to a uid of its own)."""
    return os.geteuid() == 0


def subordinate_ids(path, user=None):
    """The ids /etc/subuid or /etc/subgid grants this user (by name or uid), as one range."""
    user = user or pwd.getpwuid(os.getuid())
    try:
        with open(path, encoding="utf-8") as f:
            lines = [line.strip().split(":") for line in f]
    except OSError:
        return range(0)
    for fields in lines:
        if len(fields) == 3 and fields[0] in (user.pw_name, str(user.pw_uid)):
            if fields[1].isdigit() and fields[2].isdigit():
                return range(int(fields[1]), int(fields[1]) + int(fields[2]))
    return range(0)


@functools.cache
def uid_mode():
    """How a sandbox gets a uid of its own: root, mapped or own (see the module's text)."""
    if as_root():
        return "root"
    if shutil.which("newuidmap") and shutil.which("newgidmap") and uid_range():
        return "mapped"
    return "own"


@functools.cache
def uid_range():
    """The uids sandboxes may take: SANDBOX_UIDS as root, else this user's subordinate ids
    (the same number serves as uid and gid, so only ids granted as both are used)."""
    if as_root():
        return SANDBOX_UIDS
    uids, gids = subordinate_ids("/etc/subuid"), subordinate_ids("/etc/subgid")
    return range(max(uids.start, gids.start), min(uids.stop, gids.stop))


def own_uid():
    """Whether sandboxes run under a uid that is not the grader's (root or mapped)."""
    return uid_mode() != "own"


# Run first as the namespace's root: no user namespace can be made inside it any more, so learner
# code cannot become root of a nested one (and reach the kernel's namespaced interfaces as root).
NO_NESTED_NAMESPACES = 'echo 0 > /proc/sys/user/max_user_namespaces || exit 125; exec "$@"'


def namespace_root():
    """As an unprivileged grader: a prefix that runs a command as root of a new user namespace
    where only the grader (as root) and the sandbox uid exist, and none can be nested."""
    if uid_mode() != "mapped":
        return []
    uid = sandbox_uid()
    mapping = [f"--map-users={uid},{uid},1", f"--map-groups={uid},{uid},1", "--map-root-user"]
    return ["unshare", *mapping, "--", "/bin/sh", "-c", NO_NESTED_NAMESPACES, "namespace"]


STDLIB_PYTHON = os.path.realpath(sys.executable)  # the interpreter itself, outside any venv
PYTHON_BASE, PYTHON_VENV = "/opt/python", "/opt/venv"  # where they appear inside: no host path


def system_owned(path):
    """Whether path lies in the system trees every sandbox sees anyway (Debian's /usr python)."""
    return any(path == s or path.startswith(s + "/") for s in SYSTEM)


def base_inside():
    """Where the interpreter's installation appears inside (its own path if it is the system's)."""
    return sys.base_prefix if system_owned(sys.base_prefix) else PYTHON_BASE


def inside(host_python):
    """The path inside a sandbox of the venv's python or the bare interpreter (else unchanged)."""
    if host_python == sys.executable and sys.prefix != sys.base_prefix:
        return f"{PYTHON_VENV}/bin/python"
    if host_python in (sys.executable, STDLIB_PYTHON):
        return os.path.join(base_inside(), os.path.relpath(STDLIB_PYTHON, sys.base_prefix))
    return host_python


def python_binds(stdlib_only=False):
    """[(host folder or file, where inside)] of the Python the sandbox runs, at neutral paths.

    The venv appears at /opt/venv with its own pyvenv.cfg and bin/ made for the inside (they point
    at /opt/python, not at the instructor's installation); stdlib_only: the bare interpreter only.
    """
    binds = [] if system_owned(sys.base_prefix) else [(sys.base_prefix, PYTHON_BASE)]
    if not stdlib_only and sys.prefix != sys.base_prefix:
        overlay = venv_overlay()
        binds += [
            (sys.prefix, PYTHON_VENV),
            (os.path.join(overlay, "pyvenv.cfg"), f"{PYTHON_VENV}/pyvenv.cfg"),
            (os.path.join(overlay, "bin"), f"{PYTHON_VENV}/bin"),
        ]
    return binds


@functools.cache
def venv_overlay():
    """A host folder (this process's, removed at exit) with the venv's pyvenv.cfg and bin/ as
    they must read inside the sandbox."""
    sweep_overlays()
    folder = tempfile.mkdtemp(prefix=f"{OVERLAY_PREFIX}{os.getpid()}-")
    os.chmod(folder, 0o755)
    atexit.register(shutil.rmtree, folder, True)
    version = ".".join(map(str, sys.version_info[:3]))
    with open(os.path.join(folder, "pyvenv.cfg"), "w") as f:
        f.write(f"home = {base_inside()}/bin\ninclude-system-site-packages = false\n"
                f"version = {version}\n")  # fmt: skip
    os.mkdir(os.path.join(folder, "bin"), 0o755)
    for name in ("python", "python3", f"python{sys.version_info[0]}.{sys.version_info[1]}"):
        os.symlink(inside(STDLIB_PYTHON), os.path.join(folder, "bin", name))
    return folder


OVERLAY_PREFIX = "attn-python-"  # then the pid of the process that made it


def sweep_overlays():
    """Remove this user's overlays whose process has ended: one killed by a signal (a grading
    server the farm stopped) runs no atexit handler. Only folders this uid owns, never a link."""
    top = tempfile.gettempdir()
    for name in os.listdir(top):
        pid = name[len(OVERLAY_PREFIX) :].partition("-")[0]
        if not name.startswith(OVERLAY_PREFIX) or not pid.isdigit():
            continue
        path = os.path.join(top, name)
        try:
            info = os.lstat(path)
        except FileNotFoundError:  # another process swept it first
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)


def alive(pid):
    """Whether a process of that pid exists (of any user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_overlay():
    """Remove this process's venv overlay now, if it made one: atexit does not run for a process
    that ends with os._exit (course_user.become)."""
    if venv_overlay.cache_info().currsize:
        shutil.rmtree(venv_overlay(), ignore_errors=True)
        venv_overlay.cache_clear()


def package_folders():
    """Where third-party packages live outside the venv, as paths inside the sandbox: the base
    Python's site-packages and the system's dist-packages (a Debian python3-numpy is there)."""
    found = {sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})[k]
             for k in ("purelib", "platlib")}  # fmt: skip
    for pattern in ("/usr/lib/python3*/*-packages", "/usr/local/lib/python3*/*-packages",
                    "/usr/lib/python3/dist-packages", "/usr/share/python-wheels",
                    "/usr/lib/python3*/ensurepip/_bundled",  # pip's wheel is importable code
                    sys.base_prefix + "/lib/python3*/ensurepip/_bundled"):  # fmt: skip
        found.update(glob.glob(pattern))
    moved = {base_inside() + f[len(sys.base_prefix):] if f.startswith(sys.base_prefix + "/") else f
             for f in found if os.path.isdir(f)}  # fmt: skip
    return sorted(moved)  # as they appear inside


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
    processes = PROCESSES if own_uid() else user_processes() + PROCESSES
    return [
        "prlimit",
        f"--as={memory}",
        f"--nproc={processes}",
        f"--cpu={CPU_SECONDS}",
        f"--fsize={FILE_BYTES}",
        f"--nofile={OPEN_FILES}",
        "--core=0",  # no core dump: a piped core_pattern would hand learner memory to a host helper
        "--",
    ]


@functools.cache
def sandbox_uid():
    """This grading process's own sandbox uid, claimed until it exits.

    The process limit counts per uid, and two grading processes (parallel grading) sharing one
    would share it: each claims a uid no other live grading process on this machine holds. The
    claim is an abstract socket bound in the host's network namespace (sandboxes have their own),
    so it needs no folder and ends with its process.
    """
    span = uid_range()
    start = os.getpid() % len(span)
    for k in range(len(span)):
        uid = span[(start + k) % len(span)]
        claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            claim.bind(CLAIM.format(uid))
        except OSError:
            claim.close()
            continue
        _claims.append(claim)  # kept open: the claim ends with this process
        return uid
    raise SandboxUnavailable(f"all {len(span)} sandbox uids are claimed by other graders")


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


def bwrap(handed_in=None, env=None, extra_binds=(), stdlib_only=False):
    """bubblewrap arguments: only the system and Python environment, read-only; private tmpfs.

    Nothing else of the machine exists inside: not the course root, not /home or /root, not /work,
    /srv or /opt (unless the Python environment lives there), so no copy of the reference anywhere
    on disk can be read. With handed_in (a folder of staged copies, see `stage`), it is bound
    read-only at /handed-in and the working folder /submission is an empty tmpfs of
    SCRATCH_BYTES. extra_binds are the only writable host folders (a kernel's sockets). With
    stdlib_only, Python's standard library is all there is: no venv, and every site-packages or
    dist-packages folder is an empty read-only tmpfs. With a uid of its own (`uid_mode`),
    bubblewrap sets up the mounts as root (the host's, or the grader's user namespace's) and
    setpriv then drops to the sandbox uid. Otherwise bubblewrap makes a user namespace and needs
    no privilege at all.
    """
    cmd, bound = system_binds()
    cmd = [system.program("bwrap")] + cmd + ["--dev", "/dev", "--proc", "/proc"]
    for folder in SCRATCH:  # private, empty and bounded, writable by anyone, as on the host (a
        cmd += ["--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", folder]  # folder bound
    for host, there in python_binds(stdlib_only):  # (under one, parents are made 0755 below)
        cmd += parents_to_create(there, bound) + ["--ro-bind", host, there]
        bound.append(there)
    if stdlib_only:
        for folder in package_folders():
            cmd += ["--size", "4096", "--tmpfs", folder, "--remount-ro", folder]
    for folder in extra_binds:
        cmd += parents_to_create(folder, bound) + ["--bind", folder, folder]
        bound.append(folder)
    if handed_in:
        cmd += ["--ro-bind", handed_in, HANDED_IN]
        cmd += ["--perms", "0777", "--size", str(SCRATCH_BYTES), "--tmpfs", WORKDIR]
        cmd += ["--chdir", WORKDIR]
    else:
        cmd += ["--chdir", "/tmp"]
    cmd += ["--remount-ro", "/"]  # bubblewrap's own root tmpfs: no unbounded place to write
    cmd += (
        ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        if own_uid()  # bubblewrap runs as root (of the host, or of the grader's user namespace)
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


def wrap(
    argv, handed_in=None, env=None, memory=MEMORY_BYTES, extra_binds=(), group=None,
    stdlib_only=False,
):  # fmt: skip
    """The full command that runs argv sandboxed (or, with the unsafe flag, only under limits).

    With a group (machine.cgroups.Group), the sandbox starts inside it: every process it ever
    starts can be frozen, ended and counted.
    """
    if unsafe():
        return limits(memory) + list(argv)
    box = bwrap(handed_in, env, extra_binds, stdlib_only)
    argv = [inside(a) for a in argv]  # the interpreter at its neutral path
    joined = group.join_command() if group is not None else []
    if own_uid():
        box = namespace_root() + box + drop_to_sandbox_uid()
        return joined + box + limits(memory) + list(argv)
    return joined + limits(memory) + box + list(argv)


def filled(argv, name, quiet=True):
    """argv run after /submission is filled from the staged copy /handed-in/<name>.

    The copy is made inside the sandbox, by the sandbox's uid (staged files are 0644, so the copies
    are the learner's to change): the host never writes where learner code can.
    """
    source = f"{HANDED_IN}/{name}/."
    fill = f'cp -R "{source}" {WORKDIR}/ && exec "$@"' + (" > /dev/null" if quiet else "")
    return ["/bin/sh", "-c", fill, "kernel", *argv]  # a kernel's start-up banner is noise


def stage(source, parent):
    """Copy the regular files and folders of source into a new folder under parent; its name.

    parent is the host's, never writable by a sandbox; links and special files are left out, and
    nothing is followed (O_NOFOLLOW), so a copy can only hold what source's files hold.
    """
    folder = tempfile.mkdtemp(prefix="copy-", dir=parent)
    os.chmod(folder, 0o755)
    for here, dirs, files in os.walk(source):
        target = os.path.join(folder, os.path.relpath(here, source))
        os.makedirs(target, mode=0o755, exist_ok=True)
        dirs[:] = [d for d in dirs if stat.S_ISDIR(os.lstat(os.path.join(here, d)).st_mode)]
        for name in files:
            copy_regular(os.path.join(here, name), os.path.join(target, name))
    return os.path.basename(folder)


def copy_regular(source, target):
    """Copy one regular file, refusing links and special files (they are skipped)."""
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return  # a link (ELOOP), or gone
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return
        with open(target, "xb") as out:
            shutil.copyfileobj(f, out)
    os.chmod(target, 0o644)


@functools.lru_cache(maxsize=1)
def problem():
    """None when the sandbox works on this machine, else a sentence saying why not."""
    if shutil.which(system.program("bwrap")) is None:
        return "bubblewrap is not installed (Debian: apt-get install bubblewrap)"
    for tool in ("prlimit", "setpriv", "unshare"):
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


def socket_folder(parent):
    """A new folder under parent for one kernel's connection file and sockets; the host's, 0700.

    parent is the host's too (0711: a sandbox can pass through it, never add or rename a name).
    """
    return tempfile.mkdtemp(prefix="kernel-", dir=parent)


def open_to_sandbox(folder, connection_file):
    """Let the sandbox uid read the connection file and bind its sockets in folder.

    Called before the kernel starts, while no learner process can be alive; `seal` takes the
    folder back once the kernel listens. The connection file stays the host's, readable only
    (ipykernel reads it and, its ports being set, never writes it): no learner process can hold
    it open for writing, before the seal or after. (Under the grader's own uid there is nothing
    to do.) The folder is 0711 meanwhile: the grader, even unprivileged, can look up the names
    of the sockets it waits for, and list nothing.
    """
    if own_uid() and not unsafe():
        os.chmod(connection_file, 0o644, follow_symlinks=False)
        os.chmod(folder, 0o711, follow_symlinks=False)  # the grader looks up the socket names
        give([folder], to_sandbox=True)


def seal(folder):
    """The kernel listens: the folder is the host's again, 0711, and so are its sockets.

    From now on learner code can neither add, rename nor remove a name in it, so nothing the host
    later connects to or removes there can have been planted. Before this, only ipykernel's start
    ran (python -P: the working folder cannot shadow a module it imports).
    """
    if own_uid() and not unsafe():
        give([folder], to_sandbox=False)
        if os.lstat(folder).st_uid != os.getuid():
            raise SandboxTampered("the kernel's socket folder could not be taken back")
        os.chmod(folder, 0o711, follow_symlinks=False)
        sockets = []
        for name in os.listdir(folder):  # what the kernel made before the seal: sockets, and
            found = os.lstat(os.path.join(folder, name))  # the host's own connection file
            ours = stat.S_ISREG(found.st_mode) and found.st_uid == os.getuid()
            if stat.S_ISSOCK(found.st_mode):
                sockets.append(os.path.join(folder, name))
            elif not (ours and found.st_nlink == 1):
                raise SandboxTampered(f"the kernel's socket folder held {name!r}, not a socket")
        if sockets:  # the grader's, to connect to without root; no name here can change now
            give(sockets, to_sandbox=False)
            for path in sockets:  # whatever mode the kernel bound them with: the grader's alone
                os.chmod(path, 0o600, follow_symlinks=False)


def give(paths, to_sandbox):
    """chown paths (never following a link) to the sandbox uid, or back to the grader.

    An unprivileged grader cannot chown to another uid itself: it does so as root of a user
    namespace that maps only itself (as 0) and the sandbox uid (`namespace_root`).
    """
    uid = sandbox_uid()
    if as_root():
        for path in paths:
            owner = (uid, uid) if to_sandbox else (os.getuid(), os.getgid())
            os.chown(path, *owner, follow_symlinks=False)
        return
    owner = f"{uid}:{uid}" if to_sandbox else "0:0"  # ids as the namespace sees them
    done = subprocess.run(namespace_root() + ["chown", "-h", owner, "--", *paths],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    if done.returncode != 0:
        raise SandboxTampered(f"chown in the sandbox's namespace failed: {done.stderr[-300:]}")


def private_folder(prefix):
    """A new host folder (0711) that sandboxes may pass through but never write in."""
    folder = tempfile.mkdtemp(prefix=prefix)
    os.chmod(folder, 0o711)
    return folder


def end(process, group=None):
    """Stop a sandboxed process tree and close its pipes; with its group, confirm the end.

    Its process group goes when it leads one; bubblewrap's pid namespace takes everything inside
    with it. The group (machine.cgroups) makes that certain: every member is frozen, killed and
    counted gone, double forks and setsid included, before this returns.
    """
    try:
        end_process(process)
    finally:
        if group is not None:
            try:
                group.remove()
            except (OSError, RuntimeError) as stuck:  # cgroups.GroupStuck: said, never fatal
                print(f"warning: a sandbox's processes did not end: {stuck}", file=sys.stderr)


def end_process(process):
    """Kill a sandbox's first process (its group, if it leads one) and close its pipes."""
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
