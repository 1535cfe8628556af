"""The grading server: one process that imports nbgrader and the course once, then autogrades one
submission per request with nbgrader's own Autograde converter, so that the sandboxed kernels, the
judge and the gradebook work exactly as with `nbgrader autograde`; and what "already graded" means.

    python -m grading serve      # JSON lines in, JSON lines out (grading.scale.farm starts them)

Its kernels are forked in one warm sandbox per submission (grading.scale.warm_kernels). A request
may carry what a Dask worker made of a submission (grading.scale.remote): the server then records
it, running nothing and judging nothing (bookkeeping_config).
"""

import functools
import hashlib
import json
import logging
import os
import select
import signal
import stat
import subprocess
import sys
import time

from grading import course_user
from grading.authoring import course
from grading.machine import files
from grading.nbgrader import records
from grading.parts import ASSIGNMENT, suffix
from grading.paths import GRADER_CONFIG, JUDGED, ROOT, SUBMITTED, db_url
from grading.scale import warm_kernels

SUBMISSION_SECONDS = 900  # one submission takes about 10 s; a server silent this long is stuck


def submission_seconds():
    """How long a server may take over one submission (ATTENTION_SUBMISSION_SECONDS overrides)."""
    return float(os.environ.get("ATTENTION_SUBMISSION_SECONDS") or SUBMISSION_SECONDS)


# ── what "already graded" means ──


def submission_folder(student, assignment):
    """submitted/<student>/<assignment>/."""
    return os.path.join(SUBMITTED, student, assignment)


def entries(student, assignment):
    """(relative path, kind, payload) of every file entry of a submission, in a fixed order: a
    regular file's sha256 ("file", read in pieces), a link's target ("link"), or None
    ("special"). Links are never followed, and a tree of any depth is walked without recursion
    (OSError for what cannot be read: the submission is then graded, not skipped)."""
    folder = submission_folder(student, assignment)
    for relative, info, _ in files.walk(folder):
        path = os.path.join(folder, relative)
        if stat.S_ISLNK(info.st_mode):
            yield relative, "link", os.readlink(path)
        elif stat.S_ISREG(info.st_mode):
            yield relative, "file", files.file_digest(path)
        elif not stat.S_ISDIR(info.st_mode):
            yield relative, "special", None


def digest_of(listed):
    """sha256 over (relative path, kind, payload) entries: a changed byte changes it."""
    digest = hashlib.sha256()
    for relative, kind, payload in listed:
        digest.update(os.fsencode(relative) + b"\0")  # a name need not be UTF-8
        if kind == "file":
            digest.update(payload)  # the file's own sha256
        else:
            digest.update(os.fsencode(payload) if kind == "link" else b"special")
    return digest.hexdigest()


def submission_digest(student, assignment=ASSIGNMENT):
    """sha256 over the paths and contents of a submission's files (a link counts as its target's
    name): a resubmission that changes any byte is graded again, whatever its timestamps say."""
    return digest_of(entries(student, assignment))


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
    # Not Exporter.optimistic_validation (one schema check at the end instead of one after each
    # preprocessor): a notebook invalid as handed in but repaired by a later step would then be
    # graded here and refused by plain nbgrader.
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


def one_validator_per_schema():
    """Let nbgrader's cell-metadata checks in this process build each schema's validator once.

    nbgrader checks every graded cell's metadata with jsonschema.validate(metadata, schema),
    which checks the schema itself and builds a validator on every call (about 1 ms; some 150
    calls a submission). The schema is nbgrader's own file: here its validator is built once,
    and each cell is checked by it, with the same errors. Only the grading servers call this.
    """
    import jsonschema
    from nbgrader.nbgraderformat import common

    if getattr(common.jsonschema, "validate", None) is not jsonschema.validate:
        return  # already done

    validators = {}  # the schema's text -> its validator
    last = [None, None]  # (schema object, validator): the cells of a notebook share one object

    def validate(instance, schema):
        if last[0] is not schema:
            key = json.dumps(schema, sort_keys=True)
            if key not in validators:
                kind = jsonschema.validators.validator_for(schema)
                kind.check_schema(schema)
                validators[key] = kind(schema)
            last[:] = schema, validators[key]
        error = jsonschema.exceptions.best_match(last[1].iter_errors(instance))
        if error is not None:
            raise error

    common.jsonschema = type(jsonschema)("jsonschema_once")
    common.jsonschema.validate = validate


def serve(lines=sys.stdin, reply=sys.stdout):
    """Answer {"student": id, "assignment": name} lines (with "graded_elsewhere": a Dask worker's
    results, to record) with {"student", "ok", "error"} lines until stdin closes."""
    records.one_engine_per_gradebook()
    one_validator_per_schema()
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
STOP_GRACE = 10.0  # seconds a server told to stop may take to leave (its start-up is ~2 s)


def exited_within(pid, seconds):
    """Whether the child pid has exited within seconds, without reaping it: its process group
    id stays its own until it is waited for, so the kill that follows cannot reach another."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
        except ChildProcessError:  # already waited for
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


class Server:
    """One grading server process and its pipes: the course user's, never root's."""

    cpu = 0.0  # the CPU seconds the server said its last submission took
    stopped = False

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
                self.stop(grace=0)  # hung: nothing more to wait for
                return None, f"no answer in {deadline:.0f} s: the grading process was stopped"
            line = self.process.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            return None, f"the grading process died (exit {self.process.wait()})"
        answer = json.loads(line)
        self.cpu = answer.get("cpu", 0.0)
        return answer["ok"], answer["error"]

    def stop(self, grace=STOP_GRACE):
        """End the server and everything it started (once: a second call does nothing).

        Its stdin is closed first, and for up to grace seconds it leaves as at the end of a class,
        removing its temporary folders (the sandbox's venv overlay); then its whole process group
        is killed, whatever is left in it.
        """
        if self.stopped:
            return
        self.stopped = True
        if grace and self.process.returncode is None:  # not yet waited for (a dead one is)
            try:
                self.process.stdin.close()
            except OSError:
                pass
            exited_within(self.process.pid, grace)
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()


def arguments(parser, command):
    """`python -m grading serve`: no options."""


def main(args):
    """One grading server on stdin/stdout (make autograde starts them)."""
    replies, sys.stdout = sys.stdout, sys.stderr  # a stray print cannot break a reply line
    serve(reply=replies)
