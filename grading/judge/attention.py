"""Part one's judge: every graded cell of the attention workbook, decided outside the kernel.

For one submission it reads `model.py` and `outputs/` as submitted (never what the kernel left
behind) and starts one sandboxed worker per checkpoint (grading.judge.core). Earlier steps'
functions are answered by the reference (isolation); the hidden cases are attention_hidden's.

    python -m grading judge submitted/<student>/attention   # print every graded cell's verdict
"""

import ast
import os
import tempfile

from checkpoints.attention.artifacts import (
    ARTIFACT_CHECKS,
    ARTIFACT_NEEDS,
    NOTES_FILE,
    PERM_FILE,
    SCALE_FILE,
)
from checkpoints.attention.diagnose import diagnose, probe_signatures
from checkpoints.attention.modelfile import STEPS, step_number
from checkpoints.attention.steps import CHECKS
from checkpoints.sections import read_sections
from grading.judge import attention_hidden as hidden
from grading.judge import core
from grading.judge.core import (
    Budget,
    Remembered,
    RemoteModel,
    Verdict,
    Worker,
    WorkerFailed,
    catalogue_names,
    failed_report,
    forbidden,
    read_plain_file,
    report_verdict,
    safely,
    said,
)
from grading.judge.isolation import UNDERLAY
from grading.judge.reference import reference
from grading.machine import sandbox

# Every graded cell of part one: grade_id -> (kind, what it judges). test_judge.py keeps it equal
# to the master notebooks' graded cells.
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


def hidden_verdict(grade_id, checkpoint, model):
    """Seeded cases against the reference: counts, first gap, diagnosis; no inputs, no seed."""
    try:
        total, failures = hidden.judge(checkpoint, model)
        found = diagnose(checkpoint, probe_signatures(checkpoint, model)) if failures else []
    except Exception as err:
        total, failures, found = 1, [said("unreadable", kind=type(err).__name__)], []
    record = {"cases": total, "failed": len(failures), "diagnosis": catalogue_names(found)}
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
    if found:
        lines.append(said("looks_like", title=found[0].title, fix=found[0].hint))
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
    names = catalogue_names(report.diagnosis) if not report.passed else []
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


def judge_folder(folder, grade_ids=None):
    """({grade_id: Verdict}, problems) for a part-one submission folder."""
    return core.judge_folder(folder, grade_ids, Judgement, CELLS)
