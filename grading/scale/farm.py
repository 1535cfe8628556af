"""Grading many submissions at once: grading servers on this machine, or a Dask cluster.

    make autograde JOBS=N | SCHEDULER=tcp://host:8786 | SCHEDULER=local   (grading.classroom)

Locally, N grading servers (grading.scale.server) take submissions from one queue. On a Dask
cluster each task carries one submission's files to a worker, which grades it in a class folder
of its own and sends back what grading made of it (grading.scale.remote); N servers here record
that, running nothing: the workers share no folder with the course. A server that dies is
replaced and its submission tried once more (so is one whose server says nothing for
ATTENTION_SUBMISSION_SECONDS); a submission whose record says it was graded (and unchanged since)
is skipped unless --force. The gradebook is SQLite with a long lock timeout by default (writers
wait for each other, none fails), or PostgreSQL via DB_URL.
"""

import os
import queue
import sys
import threading
from dataclasses import dataclass

from grading.parts import ASSIGNMENT
from grading.scale import remote
from grading.scale.server import Server, is_graded, students_in_gradebook

ATTEMPTS = 2  # a submission whose server died is tried once more, then reported
WINDOW = 4  # Dask tasks out at once per worker thread


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


# ── many at once ──


class Lanes:
    """`jobs` grading servers on this machine, taking submissions from one queue until close().

    A server that dies or hangs on a submission is replaced, and the submission tried once more
    on the new one; then it is reported.
    """

    def __init__(self, jobs, progress, assignment=ASSIGNMENT, waiting=0):
        # waiting > 0: put() blocks while that many wait, so results arriving faster than they
        # are recorded wait in Dask, not in this machine's memory
        self.todo, self.outcomes, self.lock = queue.Queue(waiting), [], threading.Lock()
        self.progress, self.assignment = progress, assignment
        self.threads = [threading.Thread(target=self.lane, daemon=True) for _ in range(jobs)]
        for t in self.threads:
            t.start()

    def put(self, student, graded_elsewhere=None):
        """Grade one more submission (or record what a Dask worker made of it)."""
        self.queue((student, graded_elsewhere))

    def queue(self, item):
        """Put item in the queue, waiting for room while a lane is there to make it."""
        while any(t.is_alive() for t in self.threads):
            try:
                return self.todo.put(item, timeout=0.2)
            except queue.Full:
                continue
        raise RuntimeError("no grading server is left to take submissions")

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
                attempt, ok, error = 0, None, ""
                while ok is None and attempt < ATTEMPTS:
                    attempt += 1
                    try:
                        ok, error = server.grade(student, self.assignment, graded_elsewhere)
                    except Exception as err:  # an answer that is not one: as if it died
                        ok, error = None, f"{type(err).__name__}: {err}"
                    if ok is None:  # it died or hung on this one: a fresh server, one more try
                        server.stop()
                        server = Server()
                if graded_elsewhere is not None and not graded_elsewhere["ok"]:
                    ok, error = False, graded_elsewhere["error"]  # the worker's own reason
                self.report(Outcome(student, bool(ok), error, attempt, server.cpu))
        finally:
            server.stop()

    def close(self):
        """Let every lane finish what is queued, then end; [Outcome] of all of it."""
        for _ in self.threads:
            if any(t.is_alive() for t in self.threads):
                self.queue(None)
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
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(students)))
    lanes = Lanes(jobs, progress, assignment, waiting=2 * jobs)
    try:
        with Client(scheduler) as client:
            waiting, running = iter(students), {}
            done = as_completed()

            def send_next():
                """Send the next submission that can travel; a file it cannot is reported."""
                for student in waiting:
                    try:
                        package = remote.pack(student, assignment, execute)
                    except Exception as err:  # one unreadable submission stops no one else
                        lanes.report(Outcome(student, False, f"not sent to a worker: {err}"))
                        continue
                    key = f"grade-{assignment}-{student}-{package['digest'][:16]}"
                    future = client.submit(remote.grade_package, package, key=key,
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
