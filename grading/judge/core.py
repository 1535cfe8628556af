"""The judge's core, shared by every part: sandboxed workers, the time budget, verdicts.

A judgement of one submission (one module per part: attention, xslm) reads the learner's files
as data, starts a `Worker` per checkpoint (a sandboxed process running grading/judge/worker.py),
and runs the checks here, in the judge's own process, against a `RemoteModel`: each call of a
learner function travels to the worker as JSON, and only JSON comes back. The reference, the
seeds and the comparison never share a process with learner code.

    python -m grading judge submitted/<student>/attention   # every verdict (grading/verdicts.py)
"""

import builtins
import hashlib
import json
import os
import select
import subprocess
import time
from dataclasses import dataclass, field

from checkpoints import i18n
from checkpoints.report import Check, Report
from checkpoints.sections import foreign_imports
from grading import parts
from grading.judge.reference import reference
from grading.machine import cgroups, files, sandbox

WORKER_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
CALL_SECONDS = 10.0  # one call of a learner function
SUBMISSION_SECONDS = 120.0  # all calls of one submission together
MAX_REPLY_BYTES = 32 << 20
MAX_FILE_BYTES = 1 << 20  # a learner's file and each artifact: larger files are not read
said = i18n.speaker("judge")  # locales/<edition>.json, section "judge"

EXCEPTIONS = {
    name: obj
    for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, Exception)
}


class WorkerFailed(Exception):
    """The worker died, stopped answering, or said something that is not the protocol."""


def learner_exception(message):
    """A learner's exception rebuilt from its name, as a real built-in class (`except` works)."""
    kind = EXCEPTIONS.get(
        message.get("raises") if isinstance(message.get("raises"), str) else None, Exception
    )
    text = message.get("message")
    error = kind(text if isinstance(text, str) else "")
    if isinstance(message.get("line"), int):
        error.model_line = message["line"]
    return error


class Worker:
    """One sandboxed process holding the learner's model.py, answering calls until closed."""

    def __init__(self, sections, oracles, budget, wait=True):
        """Start the sandboxed process and hand it the sections; wait: also wait until it has
        loaded them (else the first call or wait_loaded() does, so several can start at once)."""
        self.oracles, self.budget, self.buffer, self.dead = oracles, budget, b"", None
        self.names = self.broken = None
        with open(WORKER_SOURCE, encoding="utf-8") as f:
            program = f.read()
        self.group = cgroups.new_group(sandbox.PROCESSES)  # its end is confirmed in close()
        self.process = subprocess.Popen(
            sandbox.wrap(
                [sandbox.STDLIB_PYTHON, "-I", "-S", "-c", program],
                group=self.group,
                stdlib_only=True,  # the import rule, by construction: nothing but the stdlib
            ),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.send({"sections": sections, "oracles": sorted(oracles)})
        if wait:
            self.wait_loaded()

    def wait_loaded(self):
        """Wait (once) for the worker's word that it loaded the sections: its names and which
        sections raised."""
        if self.names is not None:
            return
        reply = self.receive()
        names, broken = reply.get("names"), reply.get("broken")
        self.broken = (
            {k: v for k, v in broken.items() if isinstance(v, str)}
            if isinstance(broken, dict)
            else {}
        )
        self.names = {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()

    def send(self, message):
        """Write message to the worker as one JSON line; a broken pipe fails the worker."""
        try:
            self.process.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            self.fail(said("worker_ended"))

    def receive(self, seconds=None):
        """The worker's next JSON object, within seconds and the budget; anything else fails it."""
        seconds = seconds or CALL_SECONDS
        start = time.monotonic()
        try:
            return self.read_message(seconds, start + min(seconds, self.budget.left()))
        finally:
            self.budget.spend(time.monotonic() - start)

    def read_message(self, seconds, deadline):
        """The next JSON object by deadline (seconds: the call's own limit, for the message)."""
        fd = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            wait = deadline - time.monotonic()
            if wait <= 0:
                self.fail(
                    said("call_timeout", seconds=f"{seconds:.0f}")
                    if self.budget.left() > 0
                    else said("time_ran_out", seconds=f"{SUBMISSION_SECONDS:.0f}")
                )
            if not select.select([fd], [], [], wait)[0]:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self.fail(said("worker_died"))
            self.buffer += chunk
            if len(self.buffer) > MAX_REPLY_BYTES:
                self.fail(said("too_much_output"))
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except (
            ValueError,
            RecursionError,
        ):  # not JSON, or nested deep enough to exhaust the parser
            self.fail(said("not_a_result"))
        if not isinstance(message, dict):
            self.fail(said("not_a_result"))
        return message

    def fail(self, why):
        """Close the worker, remember why (later calls are refused), and raise WorkerFailed(why)."""
        self.close()
        self.dead = why
        raise WorkerFailed(why)

    def call(self, name, args, kwargs, seconds=None):
        """Run one learner function on plain inputs; its value, or its exception as an object.

        seconds: how long the call may take (CALL_SECONDS unless a longer call is expected).
        """
        if self.dead:
            raise WorkerFailed(said("not_run", reason=self.dead))
        self.wait_loaded()
        self.send({"call": name, "args": args, "kwargs": kwargs})
        while True:
            message = self.receive(seconds)
            if "oracle" not in message:
                return learner_exception(message) if "raises" in message else message.get("value")
            self.send(self.answer_oracle(message))

    def answer_oracle(self, message):
        """An earlier step's function, computed by the reference on the worker's (plain) inputs."""
        name, args, kwargs = message.get("oracle"), message.get("args"), message.get("kwargs")
        if name not in self.oracles or not isinstance(args, list) or not isinstance(kwargs, dict):
            return {"raises": "RuntimeError", "message": "no such earlier step"}
        try:
            return {"value": getattr(reference(), name)(*args, **kwargs)}
        except (
            Exception
        ) as err:  # the learner passed inputs the reference rejects: same as theirs would
            return {
                "raises": type(err).__name__ if type(err).__name__ in EXCEPTIONS else "Exception",
                "message": str(err)[:200],
            }

    def close(self):
        """Kill the worker's process group (all it started goes too) and close its pipes."""
        sandbox.end(self.process, self.group)
        self.group = None


class Budget:
    """The time one submission may spend in learner code, all calls together.

    Only the time spent waiting for its workers counts: under nbgrader the judgement lives while
    the kernels run, and a kernel that loops until its cell times out must not eat the judge's
    time (the cells judged after it would fail with nothing wrong in them).
    """

    def __init__(self, seconds=SUBMISSION_SECONDS):
        self.remaining = seconds

    def left(self):
        """Seconds left for learner code in this submission, never below 0."""
        return max(0.0, self.remaining)

    def spend(self, seconds):
        """Charge time spent waiting for learner code."""
        self.remaining -= seconds


class RemoteModel:
    """Looks like the learner's model module to the checks; every function call goes to the worker.

    The functions named in `oracles` (the earlier steps) are the reference's own, called here.
    """

    def __init__(self, worker, oracles, broken):
        self._worker, self._oracles, self.BROKEN_SECTIONS = worker, oracles, broken

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._oracles:
            return getattr(reference(), name)
        if name not in self._worker.names:
            raise AttributeError(f"model.py has no {name}")

        def remote(*args, **kwargs):
            try:
                return self._worker.call(name, list(args), kwargs)
            except WorkerFailed as err:
                return RuntimeError(
                    str(err)
                )  # the checks treat a returned exception as a failed call

        remote.__name__ = name
        return remote


def read_plain_file(path):
    """A regular file's text (no symlinks, no FIFO, at most 1 MiB), or None."""
    return files.read_text_or(path, MAX_FILE_BYTES, None)


def forbidden(source):
    """The modules beyond the standard library this source imports, or [] when clean.

    Only import statements are read: any other spelling (__import__, importlib, exec) can reach
    the standard library alone, because the worker's Python has nothing else (sandbox.wrap's
    stdlib_only), so a spelled-out import of numpy fails as it runs.
    """
    try:
        return foreign_imports(source)
    except SyntaxError:
        return []


@dataclass(frozen=True)
class Verdict:
    """What the judge says about one graded cell."""

    grade_id: str
    passed: bool
    text: str  # plain text shown in the cell (and the feedback)
    html: str = ""  # the same as HTML, when there is a report
    record: dict = field(default_factory=dict)  # for the instructor's table: cases, diagnosis


def catalogue_names(diagnosis):
    """The catalogue names a diagnosis stands for, best first, each once: a Both gives two."""
    return list(dict.fromkeys(name for found in diagnosis or () for name in found.names))


def report_verdict(grade_id, report, record=None):
    """The Verdict of a Report: passed, its plain text and HTML, and the instructor's record."""
    return Verdict(grade_id, report.passed, repr(report), report._repr_html_(), record or {})


def failed_report(title, why):
    """A Report titled title with a single failed check that says why."""
    return Report(title, [Check(why, False)])


def safely(title, work):
    """Run one check on learner data; data the check cannot read is a failed check, not a crash."""
    try:
        return work()
    except Exception as err:  # the values returned are not numbers/lists of the expected kind
        return failed_report(title, said("unreadable", kind=type(err).__name__))


class Remembered:
    """A judgement's verdicts, each decided once (by the subclass's decide) and then remembered."""

    def prepare(self, grade_ids):
        """Get ready to decide these cells (a judge that starts its workers ahead says how)."""

    def verdict(self, grade_id):
        """The Verdict of one graded cell, decided once and then remembered."""
        if grade_id not in self.verdicts:
            self.verdicts[grade_id] = self.decide(grade_id)
        return self.verdicts[grade_id]


def fingerprint(folder):
    """Digest of what the judges read from a submission: every part's learner files and artifacts
    (model.py for part one; engine.py, gpt.py for part two)."""
    digest = hashlib.sha256()
    for rel in sorted({rel for names in parts.LEARNER_FILES.values() for rel in names}):
        digest.update(
            rel.encode()
            + b"\0"
            + (read_plain_file(os.path.join(folder, rel)) or "").encode()
            + b"\0"
        )
    return digest.hexdigest()


def judge_folder(folder, grade_ids, judgement_class, cells):
    """({grade_id: Verdict}, problems) for a submission folder: all cells, or those in grade_ids."""
    judgement = judgement_class(folder)
    try:
        judgement.prepare(list(grade_ids or cells))
        return {gid: judgement.verdict(gid) for gid in grade_ids or cells}, judgement.problems
    finally:
        judgement.close()
