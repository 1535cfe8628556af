"""The course user: the unprivileged account grading runs as, set up by root once per boot.

    python -m grading course-user setup      # as root: what `make course-user` runs
    python -m grading course-user check      # as anyone: what is set up, and what is missing
    python -m grading course-user reach      # as root: can it enter the course? (make test asks)

Set-up makes, when they are missing:
- the system account USER (no login, no home) and its group;
- its subordinate ids, SANDBOX_UIDS in /etc/subuid and /etc/subgid, so each of its sandboxes runs
  under a uid of its own (grading.machine.sandbox, "mapped"); newuidmap (Debian's uidmap) maps them;
- this course's parent cgroup in each hierarchy, given to USER (machine.cgroups.delegate), so
  its sandboxes' processes are capped, frozen and ended without root. cgroups live in memory:
  set-up runs again after a reboot.

Everything is idempotent and changes nothing that is already right.

Root never grades. A grading command started as root (`make autograde`, `make feedback`,
`make grades`, `make collect`, `nbgrader autograde`, `generate_feedback` and `zip_collect`, a
grading server) hands itself over to the course user first (`command`, `become`): set-up as
above, then `give_class` makes what grading writes in the class (GIVEN: downloaded/, submitted/,
autograded/, judged/, feedback/, records/) the course user's, and the command runs under setpriv
with `environment()`, its output relayed by root's process (`handed_over`).
"""

import codecs
import ctypes
import fcntl
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading

from grading import paths
from grading.machine import cgroups, sandbox
from grading.nbgrader import records
from grading.scale import postgres

USER = "attention-grader"


def account(name=USER):
    """The course user's pwd entry, or None when it does not exist."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


def granted(user, path):
    """Whether /etc/subuid or /etc/subgid (path) grants user all of SANDBOX_UIDS."""
    ids = sandbox.subordinate_ids(path, user)
    first, last = sandbox.SANDBOX_UIDS[0], sandbox.SANDBOX_UIDS[-1]
    return first in ids and last in ids


def missing(name=USER):
    """What set-up would still do, in words (empty when all is set)."""
    user, gaps = account(name), []
    if user is None:
        return [f"the account {name}"]
    for path, what in (("/etc/subuid", "subordinate uids"), ("/etc/subgid", "subordinate gids")):
        if not granted(user, path):
            gaps.append(f"{name}'s {what} {sandbox.SANDBOX_UIDS[0]}-{sandbox.SANDBOX_UIDS[-1]}")
    for tool in ("newuidmap", "newgidmap"):
        if shutil.which(tool) is None:
            gaps.append(f"{tool} (Debian package uidmap)")
    for root in cgroups.ROOTS:
        folder = os.path.join(root, cgroups.PARENT)
        if os.path.isdir(root) and (
            not os.path.isdir(folder) or os.stat(folder).st_uid != user.pw_uid
        ):
            gaps.append(f"the cgroup {folder}, given to {name}")
    return gaps


def run(argv):
    """Run one of the system's account tools; its error, if any, stops set-up."""
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def setup(name=USER):
    """As root: make the course user, its subordinate ids and its cgroups; the user's entry.
    One process at a time (SETUP_LOCK): two grading commands started at once on a new machine
    would otherwise both create the account, and the second would fail."""
    if os.geteuid() != 0:
        raise SystemExit("grading.course_user setup needs root (it creates an account)")
    lock = os.open(SETUP_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return set_up(name)
    finally:
        os.close(lock)  # and with it the lock


SETUP_LOCK = "/run/attention-course-user.lock"  # in root's own /run: no account can plant a link


def set_up(name):
    """setup's work, under its lock."""
    if account(name) is None:
        print(f"Creating the course user {name} (a system account: no login, no home)", flush=True)
        run(["useradd", "--system", "--user-group", "--no-create-home", "--home-dir",
             "/nonexistent", "--shell", "/usr/sbin/nologin", name])  # fmt: skip
    user = account(name)
    span = f"{sandbox.SANDBOX_UIDS[0]}-{sandbox.SANDBOX_UIDS[-1]}"
    if not (granted(user, "/etc/subuid") and granted(user, "/etc/subgid")):
        print(f"Granting {name} the sandbox uids {span} (/etc/subuid, /etc/subgid)", flush=True)
        run(["usermod", "--add-subuids", span, "--add-subgids", span, name])
    if all(os.path.isdir(root) for root in cgroups.ROOTS):
        cgroups.delegate(user)
    return user


# ── root hands grading over ──

# What grading writes in the class, made the course user's before it runs: `make collect` unpacks
# the hand-in zips (downloaded/) into submitted/, intake repairs the handed-in folders in place
# (grading.nbgrader.intake), nbgrader and the judge write the rest.
GIVEN = (paths.DOWNLOADED, paths.SUBMITTED, paths.AUTOGRADED, paths.JUDGED, paths.FEEDBACK,
         paths.RECORDS, paths.EXCHANGE)  # fmt: skip
DEEPEST = 64  # folders below a given one that are handed over; deeper ones are left as they are
# What a course user's process keeps of root's environment: the class and gradebook, libpq's own
# variables, the sandbox's options, the locale and the terminal; never root's home or anything else.
KEPT = {"DB_URL", "BWRAP", "LANG", "LANGUAGE", "TERM", "TZ", "COLUMNS", "PYTHONUNBUFFERED"}
KEPT_PREFIXES = ("ATTENTION_", "PG", "LC_", "DASK_")  # DASK_: its TLS settings, say
RELAY_NAME = b"attn-relay"  # what root's process, left relaying output, is called in ps -o comm


def environment(env=None):
    """The environment of a process grading starts: as root, the course user's (the course's
    tools and class, no home).

    A PostgreSQL DB_URL names a password file only its owner may read (grading.scale.postgres): its
    password is passed as PGPASSWORD, which only the course user's own processes can read (every
    sandbox starts from an empty environment). Anyone but root keeps env as it is.
    """
    env = os.environ if env is None else env
    if os.geteuid() != 0:
        return dict(env)
    kept = {k: v for k, v in env.items() if k in KEPT or k.startswith(KEPT_PREFIXES)}
    kept.update(
        PATH=f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin",
        PYTHONPATH=paths.ROOT,
        HOME="/nonexistent",
        ATTENTION_COURSE=paths.COURSE,
    )
    password = postgres.url_password(kept.get("DB_URL"))
    if password is not None and "PGPASSWORD" not in kept:
        kept["PGPASSWORD"] = password
    return kept


def prepare():
    """As root: the course user set up and given the class (stops, saying why, when it cannot
    be); its pwd entry. Run again, it changes nothing that is already right; one thread at a time
    (the farm's lanes each start a server)."""
    with PREPARING:
        user = setup()
        give_class(user)
        return user


PREPARING = threading.Lock()


def command(argv):
    """argv as grading runs it: as root, setpriv to the course user, prepared first; argv itself
    for anyone else."""
    if os.geteuid() != 0:
        return list(argv)
    user = prepare()
    ids = [f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
           "--inh-caps=-all", "--ambient-caps=-all"]  # fmt: skip
    return [shutil.which("setpriv") or "setpriv", *ids, "--", *argv]


def become(argv):
    """As root, run argv as the course user (handed_over) and end this process with its exit
    status; as anyone else, return at once."""
    if os.geteuid() != 0:
        return
    print(f"grading runs as {USER}, not root (docs/scoring-and-sandbox.md)", file=sys.stderr,
          flush=True)  # fmt: skip
    code = handed_over(argv)
    sys.stdout.flush()
    sandbox.remove_overlay()  # os._exit runs no atexit handler
    os._exit(code)


def handed_over(argv, pass_fds=()):
    """As root: argv run as the course user; its exit status (128 + n for signal n).

    It gets no terminal: a session of its own, no input, and its output relayed by this process
    with every control character but tab, newline and carriage return removed. So nothing the
    course user runs can type into root's terminal (TIOCSTI), read root's keys or send escapes.
    Ctrl-C here is passed on as SIGINT, so the command stops its servers as it does.
    """
    child = subprocess.Popen(command(argv), env=environment(), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True, pass_fds=pass_fds)  # fmt: skip
    name_this_process(RELAY_NAME)
    passed_on = {}
    if threading.current_thread() is threading.main_thread():  # TERM and HUP reach it too
        for sig in (signal.SIGTERM, signal.SIGHUP):
            passed_on[sig] = signal.signal(sig, lambda n, _: signal_group(child, n))
    pipes = ((child.stdout, sys.stdout), (child.stderr, sys.stderr))
    relays = [threading.Thread(target=relay, args=pair, daemon=True) for pair in pipes]
    for thread in relays:
        thread.start()
    while True:
        try:
            code = child.wait()
            break
        except KeyboardInterrupt:
            signal_group(child, signal.SIGINT)
    for sig, handler in passed_on.items():
        signal.signal(sig, handler)
    for thread in relays:
        thread.join(timeout=10)  # a process left holding the pipes cannot keep root waiting
    return code if code >= 0 else 128 - code


def signal_group(child, sig):
    """Send sig to the handed-over command's process group, unless it has ended."""
    if child.returncode is None:
        try:
            os.killpg(child.pid, sig)
        except ProcessLookupError:
            pass


def relay(pipe, out):
    """Copy what pipe says to out as text, with no control character but \t, \n and \r."""
    decoder, listening = codecs.getincrementaldecoder("utf-8")(errors="replace"), True
    while chunk := os.read(pipe.fileno(), 65536):
        if listening:  # once out fails (a closed pipe, `| head`), the rest is read and dropped
            try:
                out.write(CONTROL.sub("", decoder.decode(chunk)))
                out.flush()
            except (OSError, ValueError):
                listening = False
    pipe.close()


CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # C0 and C1, DEL, no \t\n\r


def name_this_process(name):
    """Set this process's name (/proc/<pid>/comm, 15 bytes) where Linux allows (prctl)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(15, ctypes.c_char_p(name[:15]), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the name is only a label


def give_class(user):
    """As root: what grading writes in the class made user's; stops, saying why, when user could
    not reach the code or the class."""
    why = unreachable(user)
    if why:
        raise SystemExit(why)
    records.settle()  # an older layout's gradebook into records/ first, as root can
    for folder in GIVEN:  # learners' work, verdicts and grades: the course user's and root's only
        os.makedirs(folder, mode=0o700, exist_ok=True)
        hand_tree(folder, user, mode=0o700)


def unreachable(user=None):
    """Why user (default: the course user, or an account yet to be made, which owns nothing) cannot
    enter the course's code or its class, in one sentence with the command that fixes it; None
    when it can."""
    user = user or account() or pwd.struct_passwd((USER, "x", -1, -1, "", "/nonexistent", ""))
    for path, what in ((paths.ROOT, "the course"), (paths.COURSE, "the class")):
        blocked = next((p for p in ancestry(path) if not allowed(os.stat(p), user, 0o1)), None)
        if blocked:
            fix = f"chmod o+x {blocked}, or put {what} where every account can reach it (/srv)"
            return refusal(user, f"cannot reach {what} at {path}", blocked, fix)
    return None


def refusal(user, what, example, fix):
    """Why grading cannot be handed over to user, with one example and the command that fixes it."""
    st = os.lstat(example)
    try:
        owner = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        owner = f"uid {st.st_uid}"
    return (f"grading runs as the course user {user.pw_name}, not root, and it {what}: for "
            f"instance {example} (mode {stat.S_IMODE(st.st_mode):04o}, {owner}'s). Let it, for "
            f"instance with: {fix}")  # fmt: skip


def ancestry(path):
    """path and every folder above it, / last."""
    path = os.path.abspath(path)
    while True:
        yield path
        if path == os.path.dirname(path):
            return
        path = os.path.dirname(path)


def allowed(st, user, bits):
    """Whether user has the permission bits (0o4 read, 0o1 enter, 0o5 both) on a file of stat st."""
    shift = 6 if st.st_uid == user.pw_uid else 3 if st.st_gid == user.pw_gid else 0
    return (st.st_mode >> shift) & bits == bits


def hand_tree(top, user, mode=None):
    """Make top and everything under it user's, following no link.

    It goes by folder descriptors: each folder is opened relative to its parent, refusing a link
    and anything but a folder (O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK: a FIFO put in a folder's place
    cannot block it), and each owner is changed relative to the folder it was found in. A file
    with other hard links is left as it is: its other names may be outside the class. With mode,
    top itself gets that mode.
    """
    ids = (user.pw_uid, user.pw_gid)
    opened = os.open(top, FOLDER_ONLY)
    try:
        if mode is not None:
            os.fchmod(opened, mode)
        give_folder(opened, ids, DEEPEST)
    finally:
        os.close(opened)


FOLDER_ONLY = os.O_RDONLY | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_NONBLOCK | os.O_CLOEXEC


def give_folder(fd, ids, depth):
    """hand_tree's step: the open folder fd and what it holds, made ids' (uid, gid), `depth`
    levels of folders down at most (a zip of a thousand nested folders cannot stop grading). An
    entry that changes meanwhile (a folder swapped for a link) is passed over, not followed."""
    st = os.fstat(fd)
    if (st.st_uid, st.st_gid) != ids:
        os.fchown(fd, *ids)
    for entry in os.scandir(fd):
        try:
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode) and depth > 0:
                inner = os.open(entry.name, FOLDER_ONLY, dir_fd=fd)
                try:
                    give_folder(inner, ids, depth - 1)
                finally:
                    os.close(inner)
            elif (
                not stat.S_ISDIR(st.st_mode) and (st.st_uid, st.st_gid) != ids and st.st_nlink == 1
            ):
                os.chown(entry.name, *ids, dir_fd=fd, follow_symlinks=False)
        except OSError:
            continue


def arguments(parser, command):
    """`python -m grading course-user setup|check [--user NAME]`."""
    parser.add_argument("action", choices=["setup", "check", "reach"],
                        help="setup (as root: what make course-user runs), check, or reach (can "
                             "the course user enter the course and its class? what make test and "
                             "every grading target ask first)")  # fmt: skip
    parser.add_argument("--user", default=USER, help=f"the account's name (default {USER})")


def main(args):
    """Set the course user up (setup), then say what is set up and what is missing; or (reach)
    stop with one sentence when, as root, grading could not be handed over for lack of a path."""
    if args.action == "reach":
        why = unreachable() if os.geteuid() == 0 else None  # anyone else grades as themselves
        if why:
            print(why, file=sys.stderr)
        return 1 if why else 0
    if args.action == "setup":
        setup(args.user)
    gaps = missing(args.user)
    for gap in gaps:
        print(f"missing: {gap}")
    if not gaps:
        print(f"The course user {args.user} is set up: grading can run without root.")
    return 1 if gaps else 0
