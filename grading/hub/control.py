"""Start and stop the course's hub: `python -m grading hub start|stop [--port N]`.

    make hub         # as root: the accounts, then the hub in the background on 127.0.0.1:8000
    make hub-stop    # the hub, its proxy and every server it started; says that nothing is left

The hub's files (its log, pid, database and passwords) are in grading.hub.STATE.
"""

import dbm
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import bcrypt

from grading import course_user, hub, paths
from grading.hub import accounts, exchange, formgrader, lti, privacy
from grading.hub.exchange import store
from grading.parts import PARTS

PID = os.path.join(hub.STATE, "hub.pid")
LOG = os.path.join(hub.STATE, "hub.log")
PORT_FILE = os.path.join(hub.STATE, "port")
ACCOUNTS = os.path.join(hub.STATE, "accounts")  # every account the hub was started with
EVER = os.path.join(hub.STATE, "accounts-ever")  # every account of any class this hub served
PROXY_PID = os.path.join(hub.STATE, "proxy.pid")
PASSWORDS = os.path.join(hub.STATE, "passwords")
INITIAL = os.path.join(hub.STATE, "initial-passwords")  # name<TAB>password, as make hub gave them
STARTUP_SECONDS = 90
STOP_SECONDS = 30


def start(port, edition):
    """As root: the class's accounts, then the hub in the background; returns once it answers."""
    if os.geteuid() != 0:
        raise SystemExit("make hub needs root: it makes the learners' accounts and starts their "
                         "servers as them")  # fmt: skip
    running = hub_pid()
    if running:
        print(f"The hub is already running (pid {running}) at {address(read(PORT_FILE))}; "
              "make hub-stop stops it.")  # fmt: skip
        return 0
    registration = lti.settings()  # all of the LMS's registration, or none of it
    os.makedirs(hub.STATE, mode=0o700, exist_ok=True)
    os.chmod(hub.STATE, 0o700)
    users = [accounts.make(name) for name in hub.everyone()]
    why = course_user.unreachable(users[0])
    if why:
        raise SystemExit(why)
    write(ACCOUNTS, "\n".join(user.pw_name for user in users))
    former = remember_accounts()
    build_releases(edition)  # before the class is given to the course user: the gradebook too
    formgrader.prepare()  # the course user owns the class before its service grades there
    privacy.lock(users[0])  # the instructor's files of the checkout shut to the class while it runs
    given = seed_passwords()
    child = launch(port, edition, former)
    write(PID, str(child.pid))
    write(PORT_FILE, str(port))
    if not answers(port, child):
        print(f"The hub did not start; the end of its log ({LOG}):", file=sys.stderr)
        print(tail(LOG), file=sys.stderr)
        stop()
        return 1
    print(f"The hub answers at {address(port)}")
    if registration:
        print(f"Logins come from the LMS ({registration['issuer']}), as the class's accounts "
              f"only; register there {address(port)}hub/lti13/oauth_login (login initiation) "
              f"and {address(port)}hub/lti13/oauth_callback (redirect): docs/hub.md")  # fmt: skip
    elif hub.demo():
        print("The demo class; its logins (user / password):")
        for name in hub.everyone():
            print(f"  {name:<12} {hub.demo_password(name)}")
    elif given:
        print(f"Initial passwords of {len(given)} new accounts: {INITIAL} (only root reads it); "
              f"each changes theirs at {address(port)}hub/auth/change-password")  # fmt: skip
    print(f"Instructors grade at {address(port)}{formgrader.PREFIX.lstrip('/')}formgrader/ "
          f"(the formgrader, run as {course_user.USER}).")  # fmt: skip
    print(f"During a lab, instructors see the room at {address(port)}services/lab-view/ "
          "(the live lab view: docs/hub.md).")  # fmt: skip
    if not store.released():
        print("Nothing is released to the learners yet: Release a part in the formgrader, or run "
              "nbgrader release_assignment attention (docs/hub.md).")  # fmt: skip
    print("make hub-stop stops it and every server it started (docs/hub.md).")
    return 0


def build_releases(edition):
    """The student edition of each part, in English and in the hub's edition, built when missing
    (make release's work): what the exchange releases, and learners' workspaces are made of."""
    from grading.authoring import course

    for part in PARTS:
        for code in dict.fromkeys(["en", edition]):
            if not os.path.isdir(paths.release(part, code)):
                course.release(code, part)


def remember_accounts():
    """Add this class's accounts to EVER (every account any start of this hub had); the ones
    this class no longer has."""
    ever = set(read(EVER).split()) | set(hub.everyone())
    write(EVER, "\n".join(sorted(ever)))
    return sorted(ever - set(hub.everyone()))


def launch(port, edition, former=()):
    """jupyterhub -f the course's config, in a session of its own, its output in LOG; former:
    accounts of earlier classes, which the hub blocks (ATTENTION_HUB_FORMER)."""
    env = {"PATH": f"{hub.VENV_BIN}:/usr/local/bin:/usr/bin:/usr/sbin:/bin:/sbin",
           "PYTHONPATH": paths.ROOT, "LANG": "C.UTF-8", "HOME": "/root",
           "ATTENTION_HUB_PORT": str(port), "ATTENTION_HUB_EDITION": edition,
           "ATTENTION_HUB_API_PORT": str(free_port()),
           "ATTENTION_HUB_PROXY_PORT": str(free_port()),
           "ATTENTION_HUB_EXCHANGE_PORT": str(free_port()),
           "ATTENTION_HUB_FORMGRADER_PORT": str(free_port()),
           "ATTENTION_HUB_LABVIEW_PORT": str(free_port())}  # fmt: skip
    env.update({k: v for k, v in os.environ.items() if k.startswith("ATTENTION_HUB_")})
    env["ATTENTION_HUB_FORMER"] = " ".join(former)
    if os.environ.get("DB_URL"):  # the formgrader grades into the gradebook make autograde uses
        env["DB_URL"] = os.environ["DB_URL"]
    with open(LOG, "ab") as log:
        return subprocess.Popen(
            [os.path.join(hub.VENV_BIN, "jupyterhub"), "-f", hub.CONFIG], cwd=hub.STATE, env=env,
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip


def seed_passwords():
    """Every account of the class has a password before anyone can log in (the first-use
    authenticator would take the first one tried as an account's own): the demo's its printed
    one, always; a named class's a random one, written to INITIAL for the instructor to hand
    out, also where an account still holds its demo password from an earlier demo. Returns the
    names given one now."""
    given = {}
    with dbm.open(PASSWORDS, "c", 0o600) as kept:
        for name in hub.everyone():
            held = kept.get(name.encode())
            if hub.demo():
                password = hub.demo_password(name)  # what make hub prints, whatever came before
            elif held is None or demo_password_held(name, held):
                password = secrets.token_urlsafe(12)
                given[name] = password
            else:
                password = None  # the account's own, chosen or handed out before
            if password:
                kept[name] = bcrypt.hashpw(password.encode(), bcrypt.gensalt())
    if given:
        fd = os.open(INITIAL, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as f:
            f.writelines(f"{name}\t{password}\n" for name, password in given.items())
    return list(given)


def demo_password_held(name, held):
    """Whether a demo account's stored hash is still its demo password."""
    return name in hub.LEARNERS + hub.INSTRUCTORS and bcrypt.checkpw(
        hub.demo_password(name).encode(), held
    )


def initial_password(name):
    """The last initial password make hub gave name (INITIAL), or None."""
    given = [line.split("\t") for line in read(INITIAL).splitlines() if "\t" in line]
    return next((password for who, password in reversed(given) if who == name), None)


def answers(port, child):
    """Whether the hub answers on port within STARTUP_SECONDS, while child lives."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline and child.poll() is None:
        try:
            with urllib.request.urlopen(f"{address(port)}hub/api", timeout=5) as reply:
                if reply.status == 200:
                    return True
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    return False


def stop():
    """End the hub (it stops its servers and proxy), then whatever of its is left; 0 when
    nothing is, 1 (saying what) when something outlived it."""
    if os.geteuid() != 0:
        raise SystemExit("make hub-stop needs root: the hub and its learners' servers are root's "
                         "and the learners'")  # fmt: skip
    pid = hub_pid()
    if pid:
        os.kill(pid, signal.SIGTERM)
        if not ended([pid], STOP_SECONDS):
            os.kill(pid, signal.SIGKILL)
            ended([pid], 5)
        print(f"Stopped the hub (pid {pid}).")
    else:
        print("The hub was not running.")
    left = leftovers()
    for pid in left:  # what the hub did not stop: its accounts' processes and its proxy
        print(f"Ending what the hub left: pid {pid} ({cmdline(pid)[:80]})")
        kill(pid)
    left = [pid for pid in left if not ended([pid], 5)]
    for name in (PID, PORT_FILE):
        if os.path.exists(name):
            os.remove(name)
    if left:  # the checkout stays shut to the class while anything of theirs may run
        print(f"Still running after make hub-stop: {sorted(left)}", file=sys.stderr)
        return 1
    print("Nothing of the hub is left running: no hub, no proxy, no formgrader, no exchange, "
          "no learner's process.")  # fmt: skip
    privacy.unlock()  # no learner process is left to read what the lock kept from them
    return 0


def leftovers():
    """The pids of the hub's proxy, of every process of the hub's accounts and of its formgrader
    (only that of the course user's: make autograde may be running beside the hub)."""
    uids = accounts.uids(read(ACCOUNTS).split())
    live = processes()
    left = [pid for pid, uid in live if uid in uids] + services(live)
    proxy = int(read(PROXY_PID) or 0)
    if proxy and "configurable-http-proxy" in cmdline(proxy):
        left.append(proxy)
    return left


def services(live, names=(formgrader.NAME, exchange.SERVICE)):
    """Those of live's (pid, real uid) that are this checkout's hub's services (the formgrader,
    the exchange): the course user's processes whose environment names one (a sandbox of theirs
    starts from an empty one and ends with it), run from this checkout's .venv (another
    checkout's hub, on the same machine and as the same user, has services of its own)."""
    user = course_user.account()
    if user is None:
        return []
    markers = {f"JUPYTERHUB_SERVICE_NAME={name}".encode() for name in names}
    ours = os.path.join(paths.ROOT, ".venv", "")
    return [pid for pid, uid in live
            if uid == user.pw_uid and markers & set(environ(pid).split(b"\0"))
            and ours in cmdline(pid)]  # fmt: skip


def environ(pid):
    """/proc/<pid>/environ as it is (b'' once the process is gone)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f.read()
    except OSError:
        return b""


def processes():
    """(pid, real uid) of every live process."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            status = proc_status(int(name))
            if status and status.get("State", "Z")[0] != "Z":
                found.append((int(name), int(status["Uid"].split()[0])))
    return found


def proc_status(pid):
    """/proc/<pid>/status as {field: value}; {} once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
    except OSError:
        return {}


def ended(pids, seconds):
    """Whether every one of pids has ended (or is a zombie) within seconds."""
    deadline = time.monotonic() + seconds
    while True:
        alive = [p for p in pids if proc_status(p).get("State", "Z")[0] != "Z"]
        if not alive or time.monotonic() > deadline:
            return not alive
        time.sleep(0.2)


def kill(pid):
    """SIGKILL pid, if it is still there."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def hub_pid():
    """The running hub's pid, from PID, or None."""
    pid = int(read(PID) or 0)
    return pid if pid and "jupyterhub" in cmdline(pid) else None


def cmdline(pid):
    """pid's command line, spaces between its words ('' once it has ended)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def free_port():
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def address(port):
    """The hub's address for learners."""
    return f"http://127.0.0.1:{port}/"


def read(path):
    """A file of STATE's, stripped; '' when it is missing."""
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def write(path, text):
    """Write a small file of STATE's (root's own folder)."""
    with open(path, "w") as f:
        f.write(text + "\n")


def tail(path, lines=40):
    """The last lines of a file."""
    return "\n".join(read(path).splitlines()[-lines:])


def arguments(parser, command):
    """`python -m grading hub start|stop [--port N] [--edition CODE]`."""
    parser.add_argument("action", choices=["start", "stop"], help="start (make hub) or stop")
    parser.add_argument("--port", type=int, default=hub.PORT, help=f"default {hub.PORT}")
    parser.add_argument("--edition", default="en", help="the learners' edition: en, ko or ja")


def main(args):
    """Start or stop the hub."""
    return start(args.port, args.edition) if args.action == "start" else stop()
