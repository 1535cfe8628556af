"""Run as the course user (tests/test_course_user.py): what its sandboxes are, as JSON on stdout.

Standard library and the course's grading package only, under the system's python3, which any
account can run.
"""

import json
import os
import socket
import subprocess
import sys
import time

from grading.machine import cgroups, sandbox
from tests.processes import alive

DETACHED = """
import os, signal, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        print("ready", flush=True)  # the grandchild is detached and deaf to the polite signals
        time.sleep(600)
    os._exit(0)
time.sleep(600)
"""

LISTEN_THEN_WRITE = """
import os, socket, sys, time
folder = sys.argv[1]
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(os.path.join(folder, "shell"))  # what a kernel does before the seal
try:
    open(os.path.join(folder, "kernel.json"), "a").close()  # an fd to write through later
    print("connection file opened", flush=True)
except OSError as err:
    print(type(err).__name__, flush=True)
print("listening", flush=True)
sys.stdin.readline()  # the host has sealed the folder
try:
    open(os.path.join(folder, "planted"), "w").close()
    print("planted", flush=True)
except OSError as err:
    print(type(err).__name__, flush=True)
"""

WRITE_INTO = """
import os, sys
try:
    open(os.path.join(sys.argv[1], "slip"), "w").close()
    print("written")
except OSError as err:
    print(type(err).__name__)
"""


def host_uid(pid):
    """The host uid a process runs under (None once it is gone)."""
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def detached():
    """A double-forked, setsid, SIGTERM-ignoring grandchild in a sandbox of its own group."""
    group = cgroups.new_group(sandbox.PROCESSES)
    argv = [sys.executable, "-I", "-S", "-c", DETACHED]
    process = subprocess.Popen(sandbox.wrap(argv, group=group), start_new_session=True,
                               stdout=subprocess.PIPE, text=True)  # fmt: skip
    ready = process.stdout.readline().strip()
    deadline = time.monotonic() + 30  # the middle child's exit may still be under way
    while len(group.members()) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    members = group.members()
    uids = sorted({host_uid(pid) for pid in members} - {None})
    sandbox.end(process, group)
    left = [pid for pid in members if alive(pid)]
    return {"uids": uids, "members": len(members), "left": left, "ready": ready,
            "removed": not any(os.path.exists(f) for f in group.folders)}  # fmt: skip


def opened_folder(parent):
    """A kernel's socket folder with its connection file, opened to the sandbox: (both paths)."""
    folder = sandbox.socket_folder(parent)
    connection = os.path.join(folder, "kernel.json")
    with open(connection, "w") as f:
        f.write("{}")
    sandbox.open_to_sandbox(folder, connection)
    return folder, connection


def sealed(parent):
    """A kernel's socket folder opened to the sandbox, bound into, then sealed."""
    folder, connection = opened_folder(parent)
    opened = os.lstat(folder).st_uid
    argv = [sys.executable, "-I", "-S", "-c", LISTEN_THEN_WRITE, folder]
    process = subprocess.Popen(
        sandbox.wrap(argv, extra_binds=[folder]),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    said = [process.stdout.readline().strip(), process.stdout.readline().strip()]
    sandbox.seal(folder)
    process.stdin.write("go\n")
    process.stdin.flush()
    said.append(process.stdout.readline().strip())
    sandbox.end(process)
    return {"opened_to": opened, "sealed_to": os.lstat(folder).st_uid,
            "mode": oct(os.lstat(folder).st_mode & 0o777), "said": said,
            "names": sorted(os.listdir(folder)),
            "connection_file": os.lstat(connection).st_uid,
            "planted": planted_connection_file(parent)}  # fmt: skip


REPLACE_CONNECTION_FILE = """
import os, sys
folder = sys.argv[1]
os.rename(os.path.join(folder, "kernel.json"), os.path.join(folder, "old.json"))
os.unlink(os.path.join(folder, "old.json"))
with open(os.path.join(folder, "kernel.json"), "w") as f:
    f.write("{}")
"""


def planted_connection_file(parent):
    """The sandbox replaces the connection file with one of its own before the seal."""
    folder, _ = opened_folder(parent)
    argv = [sys.executable, "-I", "-S", "-c", REPLACE_CONNECTION_FILE, folder]
    done = subprocess.run(sandbox.wrap(argv, extra_binds=[folder]), capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    try:
        sandbox.seal(folder)
        return f"sealed ({done.returncode}: {done.stderr[-200:]})"
    except sandbox.SandboxTampered as err:
        return f"refused: {err}"


def slip(parent):
    """A grader's folder bound writable by mistake: the sandbox's own uid still cannot write."""
    folder = os.path.join(parent, "graders")
    os.mkdir(folder, 0o755)
    argv = [sys.executable, "-I", "-S", "-c", WRITE_INTO, folder]
    done = subprocess.run(sandbox.wrap(argv, extra_binds=[folder]), capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    return {"said": done.stdout.strip(), "names": os.listdir(folder)}


NESTED = """
import resource, subprocess
nested = subprocess.run(["unshare", "--user", "--map-root-user", "true"], capture_output=True)
print(nested.returncode, resource.getrlimit(resource.RLIMIT_CORE))
"""


def nested():
    """Whether learner code can make a user namespace of its own; its core dump limit."""
    argv = [sys.executable, "-I", "-S", "-c", NESTED]
    done = subprocess.run(sandbox.wrap(argv), capture_output=True, text=True, timeout=60)
    return done.stdout.strip()


def claims():
    """The sandbox uid this process claimed, and whether the claim is really held."""
    uid = sandbox.sandbox_uid()
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.bind(sandbox.CLAIM.format(uid))
        held = False
    except OSError:
        held = True
    finally:
        probe.close()
    return {"uid": uid, "held": held}


if __name__ == "__main__":
    work = sys.argv[1]  # a folder of the course user's own
    print(json.dumps({
        "grader": os.getuid(),
        "mode": sandbox.uid_mode(),
        "groups": cgroups.Group.available(),
        "problem": sandbox.problem(),
        "claim": claims(),
        "detached": detached(),
        "sealed": sealed(work),
        "slip": slip(work),
        "nested": nested(),
    }))  # fmt: skip
