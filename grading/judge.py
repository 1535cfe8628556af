"""The trusted judge: every graded cell's verdict, computed outside the learner's kernel.

For one submission the judge reads `model.py` and `outputs/` as submitted (never what the kernel
left behind), starts one sandboxed worker per checkpoint (grading/worker.py), and runs the course's
checks in its own process against a `RemoteModel`: each call of a learner function travels to the
worker as JSON and only JSON comes back. Earlier steps' functions are answered here by the
reference (isolation), so the reference, the seeds and the comparison never share a process with
learner code.

    python -m grading.judge submitted/<student>/attention   # print every graded cell's verdict
"""

import ast
import builtins
import hashlib
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from checkpoints import i18n
from checkpoints.artifacts import (
    ARTIFACT_CHECKS,
    ARTIFACT_NEEDS,
    NOTES_FILE,
    PERM_FILE,
    SCALE_FILE,
)
from checkpoints.catalogue import BY_NAME
from checkpoints.diagnose import diagnose, probe_signatures
from checkpoints.modelfile import STEPS, foreign_imports, read_sections, step_number
from checkpoints.report import Check, Report
from checkpoints.steps import CHECKS
from grading import cgroups, hidden, sandbox
from grading.isolation import UNDERLAY
from grading.reference import reference

WORKER_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
CALL_SECONDS = 10.0  # one call of a learner function
SUBMISSION_SECONDS = 120.0  # all calls of one submission together
MAX_REPLY_BYTES = 32 << 20
MAX_FILE_BYTES = 1 << 20  # model.py and each artifact: larger files are not read

# Every graded cell of the course: grade_id -> (kind, what it judges). tests/test_judge.py keeps it
# equal to the master notebooks' graded cells.
CELLS = {
    "step01-softmax-checks": ("visible", "softmax"),
    "step01-softmax-hidden": ("hidden", "softmax"),
    "step02-attention-checks": ("visible", "attention"),
    "step02-attention-hidden": ("hidden", "attention"),
    "step02-scale-artifact": ("artifact", SCALE_FILE),
    "step03-causal-mask-checks": ("visible", "causal_mask"),
    "step03-causal-mask-hidden": ("hidden", "causal_mask"),
    "step04-multi-head-checks": ("visible", "multi_head"),
    "step04-multi-head-hidden": ("hidden", "multi_head"),
    "step05-pos-encoding-checks": ("visible", "pos_encoding"),
    "step05-pos-encoding-hidden": ("hidden", "pos_encoding"),
    "step05-perm-artifact": ("artifact", PERM_FILE),
    "step06-layer-norm-checks": ("visible", "layer_norm"),
    "step06-layer-norm-hidden": ("hidden", "layer_norm"),
    "step07-block-checks": ("visible", "block"),
    "step07-block-hidden": ("hidden", "block"),
    "step08-notes-artifact": ("artifact", NOTES_FILE),
}
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

    def __init__(self, sections, oracles, budget):
        self.oracles, self.budget, self.buffer, self.dead = oracles, budget, b"", None
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
        reply = self.receive()
        names, broken = reply.get("names"), reply.get("broken")
        self.names = {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()
        self.broken = (
            {k: v for k, v in broken.items() if isinstance(v, str)}
            if isinstance(broken, dict)
            else {}
        )

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


# ── model.py as submitted ──


def read_plain_file(path):
    """A regular file's text (no symlinks, at most 1 MiB), or None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not os.path.isfile(path) or os.fstat(f.fileno()).st_size > MAX_FILE_BYTES:
            return None
        return f.read().decode("utf-8", "replace")


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


def clean_model(text):
    """The model.py the worker may load, and what was left out of it.

    Returns ([[section, source], ...], {step: why it was left out}, [problems in plain words]).
    """
    header, sections = read_sections(text)
    broken, problems, kept = {}, [], {}
    for name, body in sections.items():
        if name not in STEPS:
            continue
        try:
            compile(body, f"model.py ({name})", "exec")
        except SyntaxError as err:
            broken[name] = said("broken_parse", line=err.lineno, message=err.msg)
            problems.append(f"model.py: the {name} section does not parse; its checks score 0")
            continue
        bad = forbidden(body)
        if bad:
            broken[name] = said("broken_import", module=repr(bad[0]))
            problems.append(
                f"model.py: the {name} section uses {bad[0]!r} (only Python's standard library "
                "is allowed); "
                "its checks score 0"
            )
            continue
        start = text.find(body.strip("\n"))  # pad, so errors report model.py's own line numbers
        kept[name] = "\n" * text[: max(start, 0)].count("\n") + body.strip("\n") + "\n"
    header_source, dropped = clean_header(header)
    if dropped:
        problems.append(
            f"model.py: {len(dropped)} line(s) before the first step were ignored "
            f"({', '.join(dropped[:3])}): only imports of the standard library may stand there"
        )
    return (
        [["header", header_source]] + [[n, kept[n]] for n in STEPS if n in kept],
        broken,
        problems,
    )


def clean_header(header):
    """The header's statements minus any that import beyond the standard library."""
    try:
        tree = ast.parse(header)
    except SyntaxError:
        return '"""model.py"""\nimport math\n', ["the header does not parse"]
    lines, dropped = header.splitlines(keepends=True), []
    keep = []
    for node in tree.body:
        text = "".join(lines[node.lineno - 1 : node.end_lineno])
        if forbidden(text):
            dropped.append(text.strip().splitlines()[0][:60])
        else:
            keep.append(text)
    return "".join(keep) + ("" if "import math" in "".join(keep) else "import math\n"), dropped


# ── verdicts ──


@dataclass(frozen=True)
class Verdict:
    """What the judge says about one graded cell."""

    grade_id: str
    passed: bool
    text: str  # plain text shown in the cell (and the feedback)
    html: str = ""  # the same as HTML, when there is a report
    record: dict = field(default_factory=dict)  # for the instructor's table: cases, diagnosis


said = i18n.speaker("judge")  # locales/<edition>.json, section "judge"


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


def hidden_verdict(grade_id, checkpoint, model):
    """Seeded cases against the reference: counts, first gap, diagnosis; no inputs, no seed."""
    try:
        total, failures = hidden.judge(checkpoint, model)
        names = (
            [m.name for m in diagnose(checkpoint, probe_signatures(checkpoint, model))]
            if failures
            else []
        )
    except Exception as err:
        total, failures, names = (
            1,
            [said("unreadable", kind=type(err).__name__)],
            [],
        )
    record = {"cases": total, "failed": len(failures), "diagnosis": names}
    if not failures:
        return Verdict(
            grade_id,
            True,
            said(
                "hidden_pass_properties" if checkpoint in hidden.BY_PROPERTIES else "hidden_pass",
                checkpoint=checkpoint,
                total=total,
            ),
            record=record,
        )
    lines = [
        said("hidden_fail", checkpoint=checkpoint, failed=len(failures), total=total,
             first=failures[0])
    ]  # fmt: skip
    if names:
        lines.append(said("looks_like", title=BY_NAME[names[0]].title, fix=BY_NAME[names[0]].hint))
    return Verdict(grade_id, False, "\n".join(lines), record=record)


def visible_verdict(grade_id, checkpoint, model):
    """The learner's own checkpoint; when it holds, the same checks on fresh inputs of one kind.

    The notebook's inputs are public, so answers hard-coded for them must not earn the points: the
    second run uses seeded inputs the learner never saw, with the reference's answers.
    """
    report = safely(checkpoint, lambda: CHECKS[checkpoint](model))
    if report.passed:
        fresh = safely(checkpoint, lambda: checks_on_fresh_inputs(checkpoint, model))
        if not fresh.passed:
            report = fresh.but(note=said("fresh_inputs"))
    names = [m.name for m in report.diagnosis or []] if not report.passed else []
    return report_verdict(grade_id, report, {"diagnosis": names})


def checks_on_fresh_inputs(checkpoint, model):
    """The visible checks on fresh seeded probes, with the reference's answers to them."""
    probes = hidden.fresh_probes(checkpoint)
    correct = probe_signatures(checkpoint, reference(), probes[checkpoint])
    answers = {checkpoint: {"correct": correct, "mistakes": {}}}
    return CHECKS[checkpoint](model, fingerprints=answers, probes=probes)


def artifact_verdict(grade_id, filename, model, outputs):
    """The artifact's own check, run on the submitted outputs/ copied into a scratch folder."""
    with tempfile.TemporaryDirectory() as folder:
        for name, text in outputs.items():
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(text)
        report = safely(f"artifact {filename}", lambda: ARTIFACT_CHECKS[filename](model, folder))
    return report_verdict(grade_id, report)


class Remembered:
    """A judgement's verdicts, each decided once (by the subclass's decide) and then remembered."""

    def verdict(self, grade_id):
        """The Verdict of one graded cell, decided once and then remembered."""
        if grade_id not in self.verdicts:
            self.verdicts[grade_id] = self.decide(grade_id)
        return self.verdicts[grade_id]


class Judgement(Remembered):
    """All verdicts for one submission folder, computed on demand, one worker per checkpoint."""

    def __init__(self, folder):
        self.folder = folder
        text = read_plain_file(os.path.join(folder, "model.py"))
        self.problems = (
            []
            if text is not None
            else ["model.py is missing (or not a plain file): every check fails"]
        )
        self.sections, self.broken, more = clean_model(text or "")
        self.problems += more
        self.outputs = {
            name: t
            for name in ARTIFACT_CHECKS
            if (t := read_plain_file(os.path.join(folder, "outputs", name))) is not None
        }
        self.budget, self.workers, self.verdicts = Budget(), {}, {}
        if sandbox.unsafe():
            self.problems.append("graded WITHOUT the sandbox (ATTENTION_UNSAFE_NO_SANDBOX=1)")

    def model(self, context):
        """The RemoteModel for one checkpoint (earlier steps are the reference's), or the error."""
        if context not in self.workers:
            oracles = set(UNDERLAY.get(context, []))
            try:
                worker = Worker(self.sections, oracles, self.budget)
                self.note_import_failures(worker.broken)
                self.workers[context] = RemoteModel(worker, oracles, self.broken)
            except WorkerFailed as err:
                self.workers[context] = str(err)
        return self.workers[context]

    def note_import_failures(self, failed):
        """Sections that raised while model.py was loading: they are left out, and said so once."""
        for name, kind in sorted(failed.items()):
            if name in STEPS and name not in self.broken:
                self.broken[name] = said("broken_load", kind=kind, file="model.py")
                self.problems.append(
                    f"model.py: the {name} section raised {kind} while loading; its checks score 0"
                )

    def decide(self, grade_id):
        """The cell's check, or a failure: a step it needs is broken or unsaved, or no worker."""
        kind, name = CELLS[grade_id]
        steps = ARTIFACT_NEEDS[name] if kind == "artifact" else [name]
        for step in steps:
            if step in self.broken:
                return report_verdict(
                    grade_id,
                    failed_report(
                        name,
                        said(
                            "step_not_graded",
                            number=step_number(step),
                            step=step,
                            why=self.broken[step],
                            file="model.py",
                        ),  # fmt: skip
                    ),
                )
        model = self.model("artifacts" if kind == "artifact" else name)
        if isinstance(model, str):
            return report_verdict(grade_id, failed_report(name, model))
        missing = [s for s in steps if s not in model._worker.names and s not in model._oracles]
        if missing:
            return report_verdict(
                grade_id,
                failed_report(name, said("not_saved", function=missing[0], file="model.py")),
            )
        if kind == "hidden":
            return hidden_verdict(grade_id, name, model)
        if kind == "visible":
            return visible_verdict(grade_id, name, model)
        return artifact_verdict(grade_id, name, model, self.outputs)

    def close(self):
        """End every worker this judgement started."""
        for model in self.workers.values():
            if isinstance(model, RemoteModel):
                model._worker.close()
        self.workers = {}


def fingerprint(folder):
    """Digest of what the judges read from a submission: the learner's files and artifacts
    (model.py for part one; engine.py, gpt.py for part two)."""
    from grading.parts import LEARNER_FILES

    digest = hashlib.sha256()
    for rel in sorted({rel for files in LEARNER_FILES.values() for rel in files}):
        digest.update(
            rel.encode()
            + b"\0"
            + (read_plain_file(os.path.join(folder, rel)) or "").encode()
            + b"\0"
        )
    return digest.hexdigest()


def judge_folder(folder, grade_ids=None, judgement_class=None, cells=None):
    """({grade_id: Verdict}, problems) for a submission folder (all graded cells, or grade_ids).

    judgement_class and cells are part two's (grading.xslm_judge) for its folders.
    """
    judgement = (judgement_class or Judgement)(folder)
    try:
        chosen = grade_ids or cells or CELLS
        return {gid: judgement.verdict(gid) for gid in chosen}, judgement.problems
    finally:
        judgement.close()


def main(argv, module="grading.judge", judged=judge_folder):
    """Print every graded cell's verdict and the problems of one submission folder, timed."""
    if len(argv) != 1:
        raise SystemExit(f"usage: python -m {module} <submission folder>")
    sandbox.require()
    start = time.perf_counter()
    verdicts, problems = judged(argv[0])
    for verdict in verdicts.values():
        print(f"[{'pass' if verdict.passed else 'FAIL'}] {verdict.grade_id}\n{verdict.text}\n")
    for problem in problems:
        print(f"problem: {problem}")
    print(f"judged in {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
