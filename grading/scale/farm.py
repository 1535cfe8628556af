"""Grading many submissions at once: warm workers on this machine, or a Dask cluster.

    make autograde JOBS=N | SCHEDULER=tcp://host:8786 | SCHEDULER=local   (grading.classroom)

A grading server (`python -m grading serve`) imports nbgrader and the course once, then
autogrades one submission per request, in its own process, with nbgrader's own Autograde converter
(so the sandboxed kernel, the judge and the gradebook work exactly as with `nbgrader autograde`),
its kernels forked in one warm sandbox per submission (grading.scale.warm_kernels).
Locally, N servers take submissions from one queue. On a Dask cluster each task carries one
submission's files to a worker, which grades it in a class folder of its own and sends back what
grading made of it (grading.scale.remote); N servers here record that, running nothing: the
workers share no folder with the course. A server that dies is replaced and its submission
tried once more (so is one whose server says nothing for ATTENTION_SUBMISSION_SECONDS); a
submission whose record says it was graded (and unchanged since) is skipped unless --force. The
gradebook is SQLite with a long lock timeout by default (writers wait for each other, none
fails), or PostgreSQL via DB_URL.
"""

import functools
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
from grading.paths import GRADER_CONFIG, JUDGED, ROOT, db_url
from grading.scale import remote, warm_kernels

ATTEMPTS = 2  # a submission whose server died is tried once more, then reported
WINDOW = 4  # Dask tasks out at once per worker thread
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
    cpu: float = 0.0
    """CPU seconds its grading server spent on it here (its sandboxes' not counted)."""


# ── what "already graded" means ──


def submission_digest(student, assignment=ASSIGNMENT):
    """sha256 over the paths and contents of a submission's files (a link counts as its target's
    name): a resubmission that changes any byte is graded again, whatever its timestamps say."""
    return remote.digest_of(remote.entries(student, assignment))


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


@functools.cache
def bookkeeping_config():
    """The configuration for a submission a Dask worker graded (grading.scale.remote): nothing
    runs and nothing is judged here; FromWorker gives every cell the worker's outputs and writes
    the judge's records; the gradebook, late penalties and autograded/ are nbgrader's as always."""
    import copy

    from grading.nbgrader import preprocess

    config = copy.deepcopy(nbgrader_config())
    steps = config.Autograde.autograde_preprocessors
    skipped = (preprocess.SandboxedExecute, preprocess.HandedInOutputs)
    config.Autograde.autograde_preprocessors = [
        preprocess.FromWorker if step is preprocess.JudgeCells else step
        for step in steps
        if step not in skipped
    ]
    return config


def autograde_one(student, assignment=ASSIGNMENT, graded_elsewhere=None):
    """nbgrader's Autograde for one student, in this process; raises when nbgrader gives up.

    graded_elsewhere: what a Dask worker made of it (grading.scale.remote), to be recorded here.
    """
    from nbgrader.converters import Autograde
    from nbgrader.coursedir import CourseDirectory

    from grading.nbgrader import preprocess

    config = nbgrader_config() if graded_elsewhere is None else bookkeeping_config()
    coursedir = CourseDirectory(config=config)
    coursedir.assignment_id, coursedir.student_id = assignment, student
    converter = Autograde(coursedir=coursedir, config=config)
    converter.force = True
    digest = submission_digest(student, assignment)
    if graded_elsewhere is not None:
        if graded_elsewhere["digest"] != digest:
            raise RuntimeError("the submission changed while a Dask worker graded it: grade again")
        preprocess.FromWorker.graded = graded_elsewhere
    try:
        converter.start()  # nbgrader raises NbGraderException when a notebook could not be graded
    finally:
        warm_kernels.close()  # nothing of this submission's sandbox outlives its grading
        preprocess.FromWorker.graded = None
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
    """Answer {"student": id, "assignment": name} lines (with "graded_elsewhere": a Dask worker's
    results, to record) with {"student", "ok", "error"} lines until stdin closes."""
    records.one_engine_per_gradebook()
    errors = ErrorLog()
    root = logging.getLogger()
    root.handlers[:] = [errors]  # nbgrader's progress lines would flood the pipes otherwise
    root.setLevel(logging.ERROR)
    for line in lines:
        request = json.loads(line)
        student = request["student"]
        errors.lines.clear()
        started = time.process_time()
        try:
            autograde_one(student, request.get("assignment", ASSIGNMENT),
                          request.get("graded_elsewhere"))  # fmt: skip
            answer = {"student": student, "ok": True, "error": ""}
        except BaseException as err:  # nbgrader's own failure, or anything under it
            why = errors.lines[0] if errors.lines else f"{type(err).__name__}: {err}"
            answer = {"student": student, "ok": False, "error": why}
        answer["cpu"] = time.process_time() - started
        reply.write(json.dumps(answer) + "\n")
        reply.flush()


SERVER = ["-m", "grading", "serve"]  # a grading server's command, after the interpreter


class Server:
    """One grading server process and its pipes: the course user's, never root's."""

    cpu = 0.0  # the CPU seconds the server said its last submission took

    def __init__(self, env=None):
        self.process = subprocess.Popen(
            course_user.command([sys.executable, *SERVER]),
            cwd=ROOT,
            env=env or course_user.environment(course.tool_environment()),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,  # its kernels and judges die with it on stop()
        )

    def grade(self, student, assignment=ASSIGNMENT, graded_elsewhere=None):
        """(ok, error) for one submission; ok is None when the server died or hung on it."""
        deadline = submission_seconds()
        request = {"student": student, "assignment": assignment}
        if graded_elsewhere is not None:
            request["graded_elsewhere"] = graded_elsewhere
        try:
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
        self.cpu = answer.get("cpu", 0.0)
        return answer["ok"], answer["error"]

    def stop(self):
        """End the server and everything it started."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()


# ── many at once ──


class Lanes:
    """`jobs` grading servers on this machine, taking submissions from one queue until close().

    A server that dies or hangs on a submission is replaced, and the submission tried once more
    on the new one; then it is reported.
    """

    def __init__(self, jobs, progress, assignment=ASSIGNMENT):
        self.todo, self.outcomes, self.lock = queue.Queue(), [], threading.Lock()
        self.progress, self.assignment = progress, assignment
        self.threads = [threading.Thread(target=self.lane, daemon=True) for _ in range(jobs)]
        for t in self.threads:
            t.start()

    def put(self, student, graded_elsewhere=None):
        """Grade one more submission (or record what a Dask worker made of it)."""
        self.todo.put((student, graded_elsewhere))

    def report(self, outcome):
        """One submission done, graded or not."""
        with self.lock:
            self.outcomes.append(outcome)
            self.progress(outcome)

    def lane(self):
        """One server's loop: a submission at a time, until the queue says stop (None)."""
        server = Server()
        try:
            while (item := self.todo.get()) is not None:
                student, graded_elsewhere = item
                attempt, ok = 0, None
                while ok is None and attempt < ATTEMPTS:
                    attempt += 1
                    ok, error = server.grade(student, self.assignment, graded_elsewhere)
                    if ok is None:  # it died or hung on this one: a fresh server, one more try
                        server.stop()
                        server = Server()
                self.report(Outcome(student, bool(ok), error, attempt, server.cpu))
        finally:
            server.stop()

    def close(self):
        """Let every lane finish what is queued, then end; [Outcome] of all of it."""
        for _ in self.threads:
            self.todo.put(None)
        for t in self.threads:
            while t.is_alive():
                t.join(0.2)  # short joins keep Ctrl-C deliverable to this thread
        return self.outcomes


def grade_locally(students, jobs, progress, assignment=ASSIGNMENT):
    """Grade with `jobs` servers sharing one queue; a dead server is replaced."""
    lanes = Lanes(min(jobs, len(students)), progress, assignment)
    for student in students:
        lanes.put(student)
    return lanes.close()


def grade_on_cluster(students, scheduler, progress, assignment=ASSIGNMENT, jobs=None,
                     execute=True):  # fmt: skip
    """Grade through Dask (`local`: a cluster on this machine, else a scheduler's address).

    Each task carries one submission's files to a worker (grading.scale.remote) and brings back
    what grading made of them; `jobs` servers here record each into the gradebook, autograded/
    and judged/ as it arrives. At most WINDOW tasks per worker thread are out at once, so a class
    of thousands is never all in memory.
    """
    from dask.distributed import Client, LocalCluster, as_completed

    if scheduler == "local" and os.geteuid() == 0:  # its workers would be root's
        raise PermissionError(remote.ROOT_WORKER)
    cluster = None
    if scheduler == "local":
        cluster = LocalCluster(n_workers=os.cpu_count(), threads_per_worker=1, processes=True)
        scheduler = cluster.scheduler_address
    lanes = Lanes(max(1, min(jobs or os.cpu_count() or 1, len(students))), progress, assignment)
    try:
        with Client(scheduler) as client:
            waiting, running = iter(students), {}
            done = as_completed()

            def send_next():
                """Send the next submission that can travel; a file it cannot is reported."""
                for student in waiting:
                    try:
                        package = remote.pack(student, assignment, execute)
                    except (OSError, remote.CannotShip) as err:
                        lanes.report(Outcome(student, False, f"not sent to a worker: {err}"))
                        continue
                    future = client.submit(remote.grade_package, package, key=f"grade-{student}",
                                           retries=ATTEMPTS - 1, pure=False)  # fmt: skip
                    running[future] = student
                    done.add(future)
                    return

            for _ in range(WINDOW * max(1, sum(client.nthreads().values()))):
                send_next()
            for future in done:
                student = running.pop(future)
                try:
                    graded = future.result()
                except Exception as err:  # failed on every attempt, or the worker refused it
                    lanes.report(Outcome(student, False, f"{type(err).__name__}: {err}"))
                else:
                    lanes.put(student, graded)
                send_next()
    finally:
        outcomes = lanes.close()
        if cluster is not None:
            cluster.close()
    return outcomes


def autograde(students, jobs=None, scheduler=None, force=False, assignment=ASSIGNMENT):
    """Grade every submission not graded yet (or all with force); [Outcome], one per student."""
    from tqdm import tqdm

    from grading.nbgrader.preprocess import executes

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
            return grade_on_cluster(todo, scheduler, progress, assignment, jobs, executes())
        return grade_locally(todo, jobs, progress, assignment)
    finally:
        bar.close()


def arguments(parser, command):
    """`python -m grading serve`: no options."""


def main(args):
    """One grading server on stdin/stdout (make autograde starts them)."""
    replies, sys.stdout = sys.stdout, sys.stderr  # a stray print cannot break a reply line
    serve(reply=replies)
