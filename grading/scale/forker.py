"""The program inside a submission's warm sandbox: ipykernel imported once, one fork per kernel.

Started by scale.warm_kernels as `python -c <this file's text>` inside the sandbox (the course is
not visible there, so it imports nothing of it). It answers one JSON line on stdout for each JSON
line on stdin:

    {"op": "spawn", "argv": ["-f", "/tmp/…/kernel.json", …], "env": {…},
     "handed_in": "copy-…", "keep": ["/tmp/attn-warm-…", …]}              ->  {"pid": 12}
    {"op": "poll", "pid": 12}                                   ->  {"status": null | exit code}
    {"op": "signal", "pid": 12, "signal": 9}                    ->  {"sent": true | false}
    {"op": "reap"}                                              ->  {"reaped": 3}

A spawned kernel is what `python -m ipykernel_launcher <argv>` would be, started by fork after the
imports instead of from scratch: its own session and process group, stdin, stdout and stderr on
/dev/null (learner code's to write; cells' output comes back through the kernel protocol), the
working folder's entry dropped from sys.path while ipykernel loads (IPython puts it back), and a
freshly seeded `random`. Before it starts, the scratch folders are emptied (but for the bound
folders in "keep") and /submission is filled from the staged copy /handed-in/<handed_in>, as a
kernel started from scratch finds them. (The grading server has ended
every process of the kernel before: nothing can write there while this runs.)
"""

import json
import os
import sys
import traceback

if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]  # as ipykernel_launcher does: no learner's file shadows what the kernel loads

import ctypes  # noqa: E402
import importlib  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import stat  # noqa: E402

from ipykernel import kernelapp  # noqa: E402

# What a kernel imports while it starts and runs its first cell (measured: debugpy through
# ipykernel.debugger is most of it); importing it here, once per submission, is what makes a
# forked kernel cheap. Only libraries of the course's environment: nothing of the submission.
PRELOADED = ("IPython", "ipykernel.ipkernel", "ipykernel.debugger", "sqlite3", "tornado.queues",
             "tornado.platform.asyncio", "IPython.core.completerlib", "IPython.core.debugger",
             "IPython.core.logger", "IPython.core.oinspect", "IPython.extensions.storemagic",
             "IPython.utils.wildcard", "faulthandler")  # fmt: skip
for module in PRELOADED:
    try:
        importlib.import_module(module)
    except ImportError:
        pass  # the kernel would not find it either
try:  # the regular expressions IPython compiles for a kernel's first cell, compiled once here
    from IPython.core.inputtransformer2 import TransformerManager

    TransformerManager().transform_cell("x = 1\n")
except ImportError:
    pass

SITE = os.path.dirname(os.path.dirname(kernelapp.__file__))
LAUNCHER = os.path.join(SITE, "ipykernel_launcher.py")  # what sys.argv[0] is in a kernel


WORKDIR, HANDED_IN = "/submission", "/handed-in"  # as grading.machine.sandbox binds them
SCRATCH = ("/tmp", "/var/tmp", "/dev/shm", WORKDIR)


def set_dumpable(flag):
    """prctl(PR_SET_DUMPABLE): 0 and no process of this uid can ptrace or read this one."""
    ctypes.CDLL(None, use_errno=True).prctl(4, int(flag), 0, 0, 0)


def leftovers(keep):
    """What the scratch folders hold but for bound folders in keep and the folders to them."""
    return [
        os.path.join(folder, name)
        for folder in SCRATCH
        for name in os.listdir(folder)
        if not any(
            k == os.path.join(folder, name) or k.startswith(os.path.join(folder, name) + "/")
            for k in keep
        )  # fmt: skip
    ]


def wipe(keep):
    """Empty the scratch folders (but for keep); what a kernel left there may resist."""
    for path in leftovers(keep):
        try:
            remove(path)
        except OSError:
            pass  # checked below: a folder that will not empty ends this sandbox


def remove(path):
    """Remove a file or a whole tree, even one a kernel chmodded to 000 (it is this uid's)."""
    if not stat.S_ISDIR(os.lstat(path).st_mode):
        os.unlink(path)
        return
    os.chmod(path, 0o700)
    for name in os.listdir(path):
        remove(os.path.join(path, name))
    os.rmdir(path)


def fill(handed_in):
    """Copy the staged submission into the working folder, writable, and go there."""
    source = os.path.join(HANDED_IN, os.path.basename(handed_in))
    for here, _, files in os.walk(source):
        target = os.path.join(WORKDIR, os.path.relpath(here, source))
        os.makedirs(target, exist_ok=True)
        for name in files:
            shutil.copyfile(os.path.join(here, name), os.path.join(target, name))
    os.chdir(WORKDIR)


def become_kernel(argv, env, handed_in):
    """In the forked child: a fresh folder, detached from the forker's pipes, then the kernel."""
    code = 1
    try:
        set_dumpable(1)  # a kernel, as one started from scratch (the forker itself is not)
        fill(handed_in)
        os.setsid()
        os.environ.update(env)
        quiet = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # 2 too: the forker's stderr is the grader's, never learner code's
            os.dup2(quiet, fd)
        os.close(quiet)
        random.seed()  # a fork inherits the forker's random state; a new kernel draws its own
        sys.argv = [LAUNCHER, *argv]
        kernelapp.IPKernelApp.launch_instance(argv=list(argv))
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def spawn(argv, env, handed_in, keep):
    """Fork one kernel; its pid as this sandbox sees it.

    First the scratch folders are emptied (every process of the previous kernel has been ended by
    then). If anything stays (a tree too deep, names too long), no kernel is forked: the grading
    server then starts one from scratch, in a new sandbox, as it does for any forker that fails.
    """
    try:
        wipe(keep)
        left = leftovers(keep)
    except BaseException as err:  # RecursionError on a deep tree, too
        return {"error": f"the scratch folders could not be emptied ({type(err).__name__})"}
    if left:
        return {"error": f"the scratch folders could not be emptied ({len(left)} left)"}
    pid = os.fork()
    if pid == 0:
        become_kernel(argv, env, handed_in)
    return {"pid": pid}


def poll(pid):
    """None while the kernel runs, else its exit code (negative: the signal that ended it)."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return {"status": 0}  # reaped before: it has ended
    if done == 0:
        return {"status": None}
    return {"status": os.waitstatus_to_exitcode(status)}


def reap():
    """Collect every child that has ended (a kernel can make processes the forker's children)."""
    count = 0
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        count += 1
    return {"reaped": count}


def send(pid, number):
    """Signal the kernel's process group (the kernel and whatever it started)."""
    for target in (lambda: os.killpg(pid, number), lambda: os.kill(pid, number)):
        try:
            target()
            return {"sent": True}
        except OSError:
            continue
    return {"sent": False}


def answer(request):
    """The reply to one request."""
    op = request.get("op")
    if op == "spawn":
        env = {str(k): str(v) for k, v in request.get("env", {}).items()}
        keep = [str(k) for k in request.get("keep", [])]
        return spawn([str(a) for a in request["argv"]], env, str(request["handed_in"]), keep)
    if op == "poll":
        return poll(int(request["pid"]))
    if op == "signal":
        return send(int(request["pid"]), int(request["signal"]))
    if op == "reap":
        return reap()
    return {"error": f"unknown op {op!r}"}


def serve(requests, replies):
    """Answer requests until the grading server closes the pipe (not dumpable: a kernel of this
    uid can neither ptrace this process nor read its memory)."""
    set_dumpable(0)
    replies.write(json.dumps({"ready": os.getpid()}) + "\n")
    replies.flush()
    for line in requests:
        try:
            reply = answer(json.loads(line))
        except (ValueError, KeyError, TypeError, OSError) as err:  # OSError: fork at the limit
            reply = {"error": f"{type(err).__name__}: {err}"}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout)
