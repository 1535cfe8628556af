"""Grading on machines that share no folder with the course: what a Dask task carries and returns.

    the course's machine                      a Dask worker (the course package and the sandbox)
    pack(student): its files as bytes  ───▶   grade_package(package): the submission written into a
                                              class folder of the worker's own, graded there by
                                              nbgrader's Autograde (sandboxed kernels, the judge)
    the grading servers (server.py)    ◀───   the graded notebooks and the judge's records
    run nbgrader's Autograde again, running nothing and judging nothing: each cell's outputs and
    the judge's records are the worker's (preprocess.FromWorker), and the gradebook, autograded/
    and judged/ are written on the course's machine only.

A worker needs no path of the course's machine, no gradebook and no DB_URL: its class folder is
a private work folder in /tmp/attention-worker-<uid>/ (classes_folder), with a SQLite gradebook
that knows the assignment (nbgrader's generate_assignment, once per worker process and part).
docs/large-classes.md has the set-up.
"""

import functools
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading

from grading import course_user
from grading.machine import files
from grading.parts import PARTS
from grading.paths import ROOT, STUDENT_ID
from grading.scale.server import Server, digest_of, entries, submission_folder

MAX_PACKAGE_BYTES = 64 << 20  # a submission is about 0.5 MiB; anything near this is not one
ROOT_WORKER = (
    "a Dask worker must not run as root (it runs whatever its scheduler sends): start it as the "
    "course user, or grade with make autograde, which hands itself over (docs/large-classes.md)"
)


class CannotShip(Exception):
    """A submission that cannot travel to a worker (too large), said in one line."""


# ── the course's machine ──


def pack(student, assignment, execute=True):
    """A submission as one task's data: its regular files' bytes (links and special files stay
    behind: intake would remove them), its digest, and the lane (execute or not)."""
    listed = list(entries(student, assignment))
    folder = submission_folder(student, assignment)
    shipped, size = [], 0
    for relative, kind, _ in listed:
        if kind == "file":
            try:  # read once, and no further than a task carries
                data = files.read_regular(os.path.join(folder, relative), MAX_PACKAGE_BYTES - size)
            except files.TooLarge:
                raise CannotShip(f"more than {MAX_PACKAGE_BYTES // 2**20} MiB of files: more "
                                 "than a Dask task carries") from None  # fmt: skip
            size += len(data)
            shipped.append([relative, data])
    return {"student": student, "assignment": assignment, "execute": bool(execute),
            "digest": digest_of(listed), "course": course_version(), "files": shipped}  # fmt: skip


# What decides a grade, the same on every machine: (file or folder, the kinds of file counted)
GRADING_FILES = [("grader_config.py", ".py"), ("model.py", ".py"), ("xslm", ".py"),
                 ("grading", ".py"), ("checkpoints", (".py", ".json", ".txt")),
                 ("notebooks/masters", ".ipynb")]  # fmt: skip


@functools.cache
def course_version():
    """sha256 over the files that decide a grade (GRADING_FILES): a worker whose course differs
    from the course machine's (another commit) refuses to grade, rather than grade otherwise."""
    paths = []
    for top, kinds in GRADING_FILES:
        where = os.path.join(ROOT, top)
        walked = [(ROOT, [], [top])] if os.path.isfile(where) else os.walk(where)
        for here, folders, names in walked:
            folders[:] = [f for f in folders if not f.startswith((".", "__"))]  # caches
            paths += [os.path.join(here, n) for n in names if n.endswith(kinds)]
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(os.path.relpath(path, ROOT).encode() + b"\0")
        with open(path, "rb") as f:
            digest.update(hashlib.sha256(f.read()).digest())
    return digest.hexdigest()


# ── the worker ──


def checked_path(relative):
    """A file's path inside the submission folder, as its parts; ValueError for anything that
    could lead outside it (absolute, .., empty parts, a NUL)."""
    parts = relative.split("/") if isinstance(relative, str) else []
    if not parts or "\0" in relative or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"not a path inside a submission: {relative!r}")
    return parts


def unpack(package, course):
    """Write the package's files into course/submitted/<student>/<assignment>/, made afresh
    (nothing of an earlier task's submission is left); its folder."""
    student, assignment = package["student"], package["assignment"]
    if not isinstance(student, str) or not STUDENT_ID.fullmatch(student):
        raise ValueError(f"not a student id: {student!r}")
    if assignment not in PARTS:
        raise ValueError(f"not a part of this course: {assignment!r}")
    forget(course, student)
    folder = os.path.join(course, "submitted", student, assignment)
    os.makedirs(folder, mode=0o700)
    for relative, payload in package["files"]:
        parts = checked_path(relative)
        os.makedirs(os.path.join(folder, *parts[:-1]), mode=0o700, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        with os.fdopen(os.open(os.path.join(folder, *parts), flags, 0o600), "wb") as f:
            f.write(payload)
    return folder


def classes_folder():
    """This user's folder of worker class folders, /tmp/attention-worker-<uid>: made private the
    first time, and refused unless it still is (a folder someone else made at that name would be
    theirs to read, and every submission a worker grades passes through it)."""
    path = os.path.join(tempfile.gettempdir(), f"attention-worker-{os.geteuid()}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    seen = os.lstat(path)
    if not stat.S_ISDIR(seen.st_mode) or seen.st_uid != os.geteuid() or seen.st_mode & 0o077:
        raise RuntimeError(f"{path} is not a folder of this user's that only it may enter: "
                           "remove it, then start the worker again")  # fmt: skip
    return path


def class_workspace():
    """Dask's work folders (distributed.diskutils) in classes_folder(): one lock per folder."""
    from distributed.diskutils import WorkSpace

    return WorkSpace(classes_folder())


def clear_leftovers():
    """Remove the class folders that worker processes killed before they could close left
    behind (no living process holds their lock); the paths removed."""
    return class_workspace()._purge_leftovers()  # what new_work_dir runs first


@functools.cache
def private_class(assignment):
    """This worker process's class folder, its gradebook knowing the assignment: nbgrader's
    generate_assignment from the masters, released into the folder.

    The folder is a work folder of Dask's (distributed.diskutils), locked while this process
    lives and removed when it exits; a worker killed instead leaves it, and the next worker
    process to make its own removes every folder whose lock no living process holds.
    """
    workdir = class_workspace().new_work_dir(prefix="class-")  # leftovers go first
    _WORK_FOLDERS.append(workdir)  # held, so its lock is, until this process exits
    course = workdir.dir_path
    env = course_environment(course, execute=True)
    release = os.path.join(course, "release")
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force",
         f"--CourseDirectory.release_directory={release}"],  # fmt: skip
        cwd=ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"nbgrader could not register {assignment}: {done.stderr[-500:]}")
    return course


def course_environment(course, execute):
    """The environment of nbgrader and the grading server in a worker's class folder: that
    folder as the class, its own SQLite gradebook (never a DB_URL the worker's machine may have).
    A worker is never root (grade_package refuses), so this is its own user's environment."""
    from grading.authoring import course as authoring

    env = {k: v for k, v in authoring.tool_environment().items() if k != "DB_URL"}
    env.update(ATTENTION_COURSE=course, ATTENTION_EXECUTE="1" if execute else "0")
    return env


def graded_files(course, student, assignment):
    """{"notebooks": {name: text}, "records": {name: text}}: what the worker's grading made of
    one submission (the autograded notebooks, the judge's record of each)."""
    folder = os.path.join(course, "autograded", student, assignment)
    found = {"notebooks": {}, "records": {}}
    names = sorted(n for n in os.listdir(folder) if n.endswith(".ipynb")) if os.path.isdir(
        folder) else []  # fmt: skip
    for name in names:
        found["notebooks"][name] = read_text(os.path.join(folder, name))
        record = os.path.join(course, "judged", student, name[: -len(".ipynb")] + ".json")
        if os.path.isfile(record):
            found["records"][name] = read_text(record)
    return found


def read_text(path):
    """A regular file's text, not following a link (written by nbgrader and the judge)."""
    return files.read_regular(path, MAX_PACKAGE_BYTES).decode("utf-8")


def forget(course, student):
    """Remove everything of one student from a worker's class folder (submission and results)."""
    for kind in ("submitted", "autograded", "judged", "feedback"):
        shutil.rmtree(os.path.join(course, kind, student), ignore_errors=True)


_WORK_FOLDERS = []  # this worker process's class folders (distributed.diskutils.WorkDir)
_SERVERS = {}  # (class folder, execute) -> this worker process's grading server for it
_ONE_AT_A_TIME = threading.Lock()  # a worker with several threads still grades one at a time


def grade_package(package):
    """A Dask task: one packed submission graded in this worker's own class folder; what the
    bookkeeping on the course's machine needs, or an exception (Dask tries once more)."""
    if os.geteuid() == 0:  # anyone who reaches the scheduler runs code in its workers
        raise PermissionError(ROOT_WORKER)
    if package.get("course") != course_version():
        raise RuntimeError("this worker's course is not the course machine's (another commit?): "
                           "give every machine the same commit")  # fmt: skip
    with _ONE_AT_A_TIME:
        course = private_class(package["assignment"])
        try:
            unpack(package, course)
            return graded_here(package, course)
        finally:
            forget(course, package["student"])  # nothing of a learner stays behind on a worker


def graded_here(package, course):
    """Grade an unpacked submission with this worker's server; what it made of it."""
    student, assignment = package["student"], package["assignment"]
    key = (course, package["execute"])
    server = _SERVERS.get(key)
    if server is None or server.process.poll() is not None:
        server = _SERVERS[key] = Server(course_environment(course, package["execute"]))
    ok, error = server.grade(student, assignment)
    if ok is None:
        server.stop()
        del _SERVERS[key]
        raise RuntimeError(error)
    try:
        graded = graded_files(course, student, assignment)
        size = sum(len(t) for found in graded.values() for t in found.values())
    except files.TooLarge:  # one file alone is larger than anything sent back
        size = MAX_PACKAGE_BYTES + 1
    if size > MAX_PACKAGE_BYTES:  # a kernel's endless output: not sent over the network
        ok, error = False, f"its graded notebooks hold {size / 2**20:.0f} MiB: not sent back"
        graded = {"notebooks": {}, "records": {}}
    return {"student": student, "assignment": assignment, "ok": ok, "error": error,
            "digest": package["digest"], **graded}  # fmt: skip


# ── `python -m grading dask-worker`: this machine as a worker of a course's Dask cluster ──

TLS_FLAGS = {  # passed on to `dask worker`, for a tls:// scheduler (docs/large-classes.md)
    "--tls-ca-file": "the certificate authority that signed every endpoint's certificate",
    "--tls-cert": "this worker's certificate",
    "--tls-key": "this worker's private key",
}


def arguments(parser, command):
    """The scheduler's address; how many worker processes."""
    parser.add_argument("scheduler", help="the Dask scheduler's address, e.g. tcp://10.0.0.1:8786")
    parser.add_argument(
        "--nworkers", type=int, default=os.cpu_count() or 1, metavar="N",
        help="worker processes, a submission at a time each (default: the cores)",
    )  # fmt: skip
    for flag, what in TLS_FLAGS.items():
        parser.add_argument(flag, metavar="PEM", help=what)


def main(args):
    """Start `dask worker` as the course user (root hands over), with the sandbox checked first;
    its class folders are private temporary folders, so it needs no path of the course's."""
    from grading.machine import sandbox

    course_user.become([sys.executable, "-m", "grading", "dask-worker", *args.argv])
    try:
        sandbox.require()
    except sandbox.SandboxUnavailable as err:
        raise SystemExit(str(err)) from None
    left = clear_leftovers()
    if left:
        print(f"removed {len(left)} class folder(s) that killed workers left", flush=True)
    dask = os.path.join(os.path.dirname(sys.executable), "dask")
    env = {k: v for k, v in os.environ.items() if k != "DB_URL"}  # a worker writes no gradebook
    env["PYTHONPATH"] = ROOT  # its tasks run this course package's grading.scale.remote
    argv = [dask, "worker", args.scheduler, "--nworkers", str(args.nworkers), "--nthreads", "1",
            "--no-dashboard", "--local-directory", tempfile.gettempdir()]  # fmt: skip
    for flag in TLS_FLAGS:
        value = getattr(args, flag[2:].replace("-", "_"))
        argv += [flag, os.path.abspath(value)] if value else []
    print(f"a Dask worker for {args.scheduler}: {args.nworkers} processes", flush=True)
    os.execve(dask, argv, env)
