"""Grading many submissions at once: warm workers on this machine, or a Dask cluster.

    make autograde JOBS=N | SCHEDULER=tcp://host:8786 | SCHEDULER=local   (grading.classroom)

A grading server (`python -m grading serve`) imports nbgrader and the course once, then
autogrades one submission per request, in its own process, with nbgrader's own Autograde converter
(so the sandboxed kernel, the judge and the gradebook work exactly as with `nbgrader autograde`),
its kernels forked in one warm sandbox per submission (grading.scale.warm_kernels).
Locally, N servers take submissions from one queue; on a Dask cluster each task hands one
submission to a server on the worker's machine. A server that dies is replaced and its submission
tried once more (so is one whose server says nothing for ATTENTION_SUBMISSION_SECONDS); a
submission whose record says it was graded (and unchanged since) is skipped unless --force. The
gradebook is SQLite with a long lock timeout by default (writers wait for each other, none
fails), or PostgreSQL via DB_URL.
"""

import functools
import hashlib
import json
import logging
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from grading import course_user
from grading.authoring import course
from grading.nbgrader import records
from grading.parts import ASSIGNMENT, suffix
from grading.paths import GRADER_CONFIG, JUDGED, ROOT, SUBMITTED, db_url
from grading.scale import warm_kernels

ATTEMPTS = 2  # a submission whose server died is tried once more, then reported
SUBMISSION_SECONDS = 900  # one submission takes about 10 s; a server silent this long is stuck


def submission_seconds():
    """How long a server may take over one submission (ATTENTION_SUBMISSION_SECONDS overrides)."""
    return float(os.environ.get("ATTENTION_SUBMISSION_SECONDS") or SUBMISSION_SECONDS)


@dataclass(frozen=True)
class Outcome:
    """What grading one submission came to."""

    student: str
    """The student id (a folder of submitted/)."""
    ok: bool
    """nbgrader graded it (its cells may still score 0)."""
    error: str = ""
    """Why it could not be graded, in one line; "" when ok."""
    attempts: int = 1
    """How many servers it took."""


# ── what "already graded" means ──


def submission_digest(student, assignment=ASSIGNMENT):
    """sha256 over the paths and contents of a submission's files (a link counts as its target's
    name): a resubmission that changes any byte is graded again, whatever its timestamps say."""
    digest = hashlib.sha256()
    folder = os.path.join(SUBMITTED, student, assignment)
    for here, _, files in sorted(os.walk(folder)):
        for name in sorted(files):
            path = os.path.join(here, name)
            digest.update(os.path.relpath(path, folder).encode() + b"\0")
            if os.path.islink(path) or not os.path.isfile(path):
                digest.update(os.readlink(path).encode() if os.path.islink(path) else b"special")
            else:
                with open(path, "rb") as f:
                    digest.update(hashlib.sha256(f.read()).digest())
    return digest.hexdigest()


def marker(student, assignment=ASSIGNMENT):
    """judged/<student>/graded.json (graded-xslm.json for part two): a grading ran to its end."""
    return os.path.join(JUDGED, student, f"graded{suffix(assignment)}.json")


def is_graded(student, assignment=ASSIGNMENT):
    """True when this submission, as it is now, was graded to the end by an earlier run."""
    try:
        with open(marker(student, assignment), encoding="utf-8") as f:
            return json.load(f).get("digest") == submission_digest(student, assignment)
    except (OSError, ValueError):
        return False


def students_in_gradebook(assignment=ASSIGNMENT):
    """The students the gradebook holds a submission of this assignment for."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url()) as gb:
        try:
            return {sub.student_id for sub in gb.assignment_submissions(assignment)}
        except MissingEntry:
            return set()


def mark_graded(student, digest, assignment=ASSIGNMENT):
    """Written last, after nbgrader finished: an interrupted grading leaves no marker."""
    os.makedirs(os.path.dirname(marker(student, assignment)), exist_ok=True)
    with open(marker(student, assignment), "w", encoding="utf-8") as f:
        json.dump({"digest": digest, "when": time.time()}, f)


# ── the grading server: one process, nbgrader imported once ──


@functools.cache
def nbgrader_config():
    """The course's nbgrader configuration, built once per grading server.

    grader_config.py is read as nbgrader reads it, as a configuration file: the package never
    imports it.
    """
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader(GRADER_CONFIG).load_config()
    config.SandboxedExecute.warm_kernels = True  # one warm sandbox per submission (warm_kernels)
    return config


def autograde_one(student, assignment=ASSIGNMENT):
    """nbgrader's Autograde for one student, in this process; raises when nbgrader gives up."""
    from nbgrader.converters import Autograde
    from nbgrader.coursedir import CourseDirectory

    config = nbgrader_config()
    coursedir = CourseDirectory(config=config)
    coursedir.assignment_id, coursedir.student_id = assignment, student
    converter = Autograde(coursedir=coursedir, config=config)
    converter.force = True
    digest = submission_digest(student, assignment)
    try:
        converter.start()  # nbgrader raises NbGraderException when a notebook could not be graded
    finally:
        warm_kernels.close()  # nothing of this submission's sandbox outlives its grading
    mark_graded(student, digest, assignment)


class ErrorLog(logging.Handler):
    """Keeps the ERROR lines nbgrader logs while it grades: the first one says why it gave up."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.lines = []

    def emit(self, record):
        """Keep the first line of one error."""
        self.lines.append(record.getMessage().strip().splitlines()[0][:200])


def serve(lines=sys.stdin, reply=sys.stdout):
    """Answer {"student": id, "assignment": name} lines with {"student", "ok", "error"} lines
    until stdin closes."""
    records.one_engine_per_gradebook()
    errors = ErrorLog()
    root = logging.getLogger()
    root.handlers[:] = [errors]  # nbgrader's progress lines would flood the pipes otherwise
    root.setLevel(logging.ERROR)
    for line in lines:
        request = json.loads(line)
        student = request["student"]
        errors.lines.clear()
        try:
            autograde_one(student, request.get("assignment", ASSIGNMENT))
            answer = {"student": student, "ok": True, "error": ""}
        except BaseException as err:  # nbgrader's own failure, or anything under it
            why = errors.lines[0] if errors.lines else f"{type(err).__name__}: {err}"
            answer = {"student": student, "ok": False, "error": why}
        reply.write(json.dumps(answer) + "\n")
        reply.flush()


SERVER = ["-m", "grading", "serve"]  # a grading server's command, after the interpreter


class Server:
    """One grading server process and its pipes: the course user's, never root's."""

    def __init__(self):
        self.process = subprocess.Popen(
            course_user.command([sys.executable, *SERVER]),
            cwd=ROOT,
            env=course_user.environment(course.tool_environment()),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,  # its kernels and judges die with it on stop()
        )

    def grade(self, student, assignment=ASSIGNMENT):
        """(ok, error) for one submission; ok is None when the server died or hung on it."""
        deadline = submission_seconds()
        try:
            request = {"student": student, "assignment": assignment}
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            if not select.select([self.process.stdout], [], [], deadline)[0]:
                self.stop()
                return None, f"no answer in {deadline:.0f} s: the grading process was stopped"
            line = self.process.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            return None, f"the grading process died (exit {self.process.wait()})"
        answer = json.loads(line)
        return answer["ok"], answer["error"]

    def stop(self):
        """End the server and everything it started."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()


# ── many at once ──


def grade_locally(students, jobs, progress, assignment=ASSIGNMENT):
    """Grade with `jobs` servers sharing one queue; a dead server is replaced."""
    todo = queue.Queue()
    for student in students:
        todo.put((student, 1))
    outcomes, lock = [], threading.Lock()

    def lane():
        server = Server()
        try:
            while True:
                try:
                    student, attempt = todo.get_nowait()
                except queue.Empty:
                    return
                ok, error = server.grade(student, assignment)
                if ok is None:  # the server died on it: a fresh server, and one more try
                    server.stop()
                    server = Server()
                    if attempt < ATTEMPTS:
                        todo.put((student, attempt + 1))
                        continue
                    ok = False
                outcome = Outcome(student, ok, error, attempt)
                with lock:
                    outcomes.append(outcome)
                    progress(outcome)
        finally:
            server.stop()

    lanes = [threading.Thread(target=lane, daemon=True) for _ in range(min(jobs, len(students)))]
    for t in lanes:
        t.start()
    for t in lanes:
        while t.is_alive():
            t.join(0.2)  # short joins keep Ctrl-C deliverable to this thread
    return outcomes


_SERVER = None  # the grading server of this Dask worker process, started by its first task
ROOT_WORKER = (
    "a Dask worker must not run as root (it runs whatever its scheduler sends): start it as the "
    "course user, or grade with make autograde, which hands itself over (docs/large-classes.md)"
)


def grade_on_worker(student, assignment=ASSIGNMENT):
    """A Dask task: one submission, graded by this worker machine's warm server."""
    global _SERVER
    if os.geteuid() == 0:  # anyone who reaches the scheduler runs code in its workers
        raise PermissionError(ROOT_WORKER)
    if _SERVER is None or _SERVER.process.poll() is not None:
        _SERVER = Server()
    ok, error = _SERVER.grade(student, assignment)
    if ok is None:
        _SERVER.stop()
        _SERVER = None
        raise RuntimeError(error)  # Dask retries the task once (retries=1), on a fresh server
    return Outcome(student, ok, error)


def grade_on_cluster(students, scheduler, progress, assignment=ASSIGNMENT):
    """Grade through Dask: `local` starts a cluster on this machine, else a scheduler address."""
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler == "local" and os.geteuid() == 0:
        raise PermissionError(ROOT_WORKER)
    if scheduler == "local":
        cluster = LocalCluster(n_workers=os.cpu_count(), threads_per_worker=1, processes=True)
        scheduler = cluster.scheduler_address
    outcomes = []
    with Client(scheduler) as client:
        futures = {client.submit(grade_on_worker, s, assignment, retries=ATTEMPTS - 1,
                                 pure=False): s for s in students}  # fmt: skip
        for future in as_completed(futures):
            try:
                outcome = future.result()
            except Exception as err:  # a task that failed on every attempt
                outcome = Outcome(futures[future], False, f"{type(err).__name__}: {err}")
            outcomes.append(outcome)
            progress(outcome)
    if cluster is not None:
        cluster.close()
    return outcomes


def autograde(students, jobs=None, scheduler=None, force=False, assignment=ASSIGNMENT):
    """Grade every submission not graded yet (or all with force); [Outcome], one per student."""
    from tqdm import tqdm

    in_gradebook = set() if force else students_in_gradebook(assignment)
    graded = {s for s in students if s in in_gradebook and is_graded(s, assignment)}
    todo = [s for s in students if force or s not in graded]
    skipped = len(students) - len(todo)
    if skipped:
        print(
            f"{skipped} submissions already graded and unchanged "
            "(make autograde FORCE=1, or --force, grades them again)"
        )
    if not todo:
        return []
    jobs = jobs or os.cpu_count() or 1
    where = f"Dask at {scheduler}" if scheduler else f"{jobs} local workers"
    bar = tqdm(total=len(todo), unit="submission", desc=f"autograde {assignment} ({where})",
               file=sys.stdout)  # fmt: skip
    failures = []

    def progress(outcome):
        bar.update(1)
        if not outcome.ok:
            failures.append(outcome)
            bar.write(f"  {outcome.student}: NOT graded ({outcome.error})")
        bar.set_postfix(failed=len(failures))

    try:
        if scheduler:
            return grade_on_cluster(todo, scheduler, progress, assignment)
        return grade_locally(todo, jobs, progress, assignment)
    finally:
        bar.close()


def arguments(parser, command):
    """`python -m grading serve`: no options."""


def main(args):
    """One grading server on stdin/stdout (make autograde starts them)."""
    replies, sys.stdout = sys.stdout, sys.stderr  # a stray print cannot break a reply line
    serve(reply=replies)
