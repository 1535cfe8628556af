"""The trusted judge for part two: each graded cell of notebooks/masters/xslm, decided outside it.

For one submission it reads engine.py, gpt.py and outputs/ as submitted, and runs part two's
probes on them in sandboxed workers (grading/judge/worker.py, the same worker as part one's judge).
Each checkpoint is judged alone (isolation): its worker holds the learner's section of that
checkpoint, and the reference's sections for everything it builds on. A worker that holds
reference code could smuggle it out through the values a report shows, so those reports show
the claims and the expected values only, never the learner's. Artifacts are recomputed here with
the reference's forward pass in plain floats (float_gpt): no learner code is needed to judge them.

    python -m grading judge submitted/<student>/xslm   # print every graded cell's verdict
"""

import functools
import json
import os
import zlib
from dataclasses import replace

import xslm
from checkpoints.compare import first_difference
from checkpoints.sections import foreign_imports, read_sections
from checkpoints.xslm import artifacts, checks, files
from checkpoints.xslm.checks import VISIBLE, Probe, checkpoint_report, signature
from grading.judge import core, float_gpt, xslm_hidden
from grading.judge.core import (
    Budget,
    Verdict,
    Worker,
    WorkerFailed,
    catalogue_names,
    failed_report,
    read_plain_file,
    report_verdict,
    safely,
    said,
)
from grading.machine import sandbox
from grading.paths import LEARNER_PACKAGE, XSLM_REFERENCE

PROBES_FILE = os.path.join(LEARNER_PACKAGE, "xslm", "probes.py")
LONG_CALL_SECONDS = 60.0  # a training probe: 6 to 10 steps of a small model in learner code

# Every graded cell of part two: grade_id -> (kind, what it judges). A test keeps it equal to the
# master notebooks' graded cells.
CELLS = {
    "xslm01-value-checks": ("visible", "Value"),
    "xslm01-value-hidden": ("hidden", "Value"),
    "xslm02-softmax-checks": ("visible", "softmax"),
    "xslm02-linear-checks": ("visible", "linear"),
    "xslm02-norm-checks": ("visible", "norm"),
    "xslm02-layers-hidden": ("hidden", "layers"),
    "xslm03-gpt-checks": ("visible", "GPT"),
    "xslm03-gpt-hidden": ("hidden", "GPT"),
    "xslm04-loss-checks": ("visible", "loss"),
    "xslm04-train-step-checks": ("visible", "train_step"),
    "xslm04-learning-hidden": ("hidden", "learning"),
    "xslm04-loss-artifact": ("artifact", artifacts.LOSS_FILE),
    "xslm05-generate-checks": ("visible", "generate"),
    "xslm05-generate-hidden": ("hidden", "generate"),
    "xslm05-samples-artifact": ("artifact", artifacts.SAMPLES_FILE),
}
# The learner's sections each judged group needs; the others come from the reference. The layers
# are judged on the reference's Value (isolation, as in part one): an engine bug costs the
# engine's cells alone.
OWN = {
    "Value": ["Value", "softmax", "linear", "norm"],  # the engine is judged whole
    "softmax": ["softmax", "linear", "norm"],
    "linear": ["softmax", "linear", "norm"],
    "norm": ["softmax", "linear", "norm"],
    "layers": ["softmax", "linear", "norm"],
    "GPT": ["GPT"],
    "loss": ["loss"],
    "train_step": ["train_step"],
    "learning": ["loss", "train_step"],
    "generate": ["generate"],
}
# The learner's sections loaded beneath the reference's, for the helpers the judged ones may call
# (a lift of their own, written with their Value): the reference's names then replace theirs.
BENEATH = {"softmax": ["Value"], "linear": ["Value"], "norm": ["Value"], "layers": ["Value"]}
# A group's checkpoints: whose catalogued mistakes a failing hidden check may name.
CHECKPOINTS = {"layers": ["softmax", "linear", "norm"], "learning": ["loss", "train_step"]}

# Run inside the worker: each file becomes a module of its own, so the learner's names and the
# probes' never meet; results come back as plain lists (a dict would not cross the channel).
LOADER = """
import sys as _sys

_broken = {}

def _module(name, parts, filename):
    module = type(_sys)(name)
    module.__file__ = filename
    _sys.modules[name] = module
    for section, text in parts:
        try:
            exec(compile(text, filename, "exec"), module.__dict__)
        except BaseException as err:
            _broken[section] = type(err).__name__
    return module

def broken():
    return sorted(_broken.items())
"""
PROBE_CALL = """
_probes = _module("xslm_probes", [("probes", {text!r})], "probes.py")

def probe(name, *args):
    answer = _probes.PROBES[name](_sys.modules.get("engine"), _sys.modules.get("gpt"), *args)
    return _probes.as_lists(answer)
"""


@functools.cache
def probe_section():
    """The worker's section that loads probes.py and answers probe(name, *args) (read once)."""
    with open(PROBES_FILE, encoding="utf-8") as f:
        return PROBE_CALL.format(text=f.read())


@functools.cache
def reference_sections(filename):
    """{name: source} of the reference's engine.py or gpt.py (read once per process)."""
    with open(os.path.join(XSLM_REFERENCE, filename), encoding="utf-8") as f:
        return read_sections(f.read())[1]


def forbidden(source, filename):
    """The modules beyond its file's allowed imports a section imports, or [] when clean.

    As in part one (core.forbidden), other spellings reach only the standard library.
    """
    try:
        return foreign_imports(source, files.ALLOWED_IMPORTS[filename])
    except SyntaxError:
        return []


def clean_file(text, filename):
    """({name: source} of the sections that may load, {name: why not}, [problems in words])."""
    _, sections = read_sections(text or "")
    kept, broken, problems = {}, {}, []
    for name, body in sections.items():
        if files.STEPS.get(name, (None,))[0] != filename:
            continue
        try:
            compile(body, f"{filename} ({name})", "exec")
        except SyntaxError as err:
            broken[name] = said("broken_parse", line=err.lineno, message=err.msg)
            problems.append(f"{filename}: the {name} section does not parse; its checks score 0")
            continue
        bad = forbidden(body, filename)
        if bad:
            broken[name] = f"it imports {bad[0]!r}"
            problems.append(f"{filename}: the {name} section uses {bad[0]!r}; its checks score 0")
            continue
        kept[name] = body
    return kept, broken, problems


class RemoteRun:
    """run(probe) -> the learner's answer, computed by a sandboxed worker, or the exception.

    One RemoteRun serves every cell judged by its worker, and a probe asked again with the same
    id and the same arguments gets its first answer: the fresh pass keeps a probe whose arguments
    hold no float (the 20,000-step chain) as it was, and a hidden check's diagnosis asks the
    visible probes its group's cells asked. Two probes with different ids always both run
    (generate.again asks what generate.sample asked, to see the seed respected).
    """

    def __init__(self, worker):
        self.worker, self.answers = worker, {}

    def __call__(self, probe):
        """The learner's answer to one probe, from the worker; a failed worker is an exception."""
        key = json.dumps([probe.id, probe.probe, probe.args])
        if key not in self.answers:
            self.answers[key] = self.ask(probe)
        return self.answers[key]

    def ask(self, probe):
        """The worker's answer to one probe."""
        seconds = LONG_CALL_SECONDS if probe.probe == "training" else None
        try:
            return self.worker.call("probe", [probe.probe, *probe.args], {}, seconds=seconds)
        except WorkerFailed as err:
            return RuntimeError(str(err))


def reference_run():
    """run(probe) on the reference, here in the judge's own process."""
    return checks.Local(xslm.engine, xslm.gpt)


def without_learner_values(report):
    """The report with every value taken out (some checks compare the learner's answers with
    each other): the claims, ✓/✗, hints and diagnosis stay."""
    return report.but(
        checks=[replace(c, got=None, expected=None, where=None) for c in report.checks]
    )


def freshened(probe, factor, seed):
    """The same kind of probe on new inputs: numbers scaled by factor (signs kept), each state
    re-drawn from seed and its own content (equal inputs stay equal; all-zero states stay 0)."""

    def move(value):
        if isinstance(value, dict):
            shapes = {n: [len(m), len(m[0])] for n, m in value.items()}
            if not any(x for m in value.values() for row in m for x in row):
                return value
            digest = zlib.crc32(json.dumps(value, sort_keys=True).encode())
            return checks.seeded_state(shapes, seed + digest)
        if isinstance(value, list):
            return [move(v) for v in value]
        if isinstance(value, float):
            return value * factor
        return value

    return Probe(probe.id, probe.probe, move(probe.args))


@functools.cache
def fresh_known(name):
    """(fresh probes of a checkpoint, their answers by the reference) for the visible checks."""
    import random

    rng = random.Random(f"{xslm_hidden.SEED}:fresh:{name}")
    factor, seed = rng.uniform(0.8, 1.25), rng.randrange(10**6)
    probes = [freshened(p, factor, seed) for p in VISIBLE[name]]
    run = reference_run()
    correct = {p.id: signature(run(p)) for p in probes}
    return probes, {name: {"correct": correct, "mistakes": {}}}


class Judgement(core.Remembered):
    """All verdicts of part two for one submission folder, decided on demand."""

    def __init__(self, folder):
        self.folder, self.problems = folder, []
        self.own, self.broken = {}, {}
        for filename in (files.ENGINE_FILE, files.GPT_FILE):
            text = read_plain_file(os.path.join(folder, filename))
            if text is None:
                self.problems.append(f"{filename} is missing (or not a plain file)")
            kept, broken, problems = clean_file(text, filename)
            self.own.update(kept)
            self.broken.update(broken)
            self.problems += problems
        self.outputs = folder
        self.budget, self.workers, self.runs, self.verdicts = Budget(), {}, {}, {}
        if sandbox.unsafe():
            self.problems.append("graded WITHOUT the sandbox (ATTENTION_UNSAFE_NO_SANDBOX=1)")

    def parts_of(self, filename, group):
        """[(section, source)] the worker loads for a group, one at a time: the file's header
        (the course's own, so no other import gets in), the learner's sections it keeps beneath
        (BENEATH), then the learner's sections it judges and the reference's for the rest, in
        step order."""
        reference = reference_sections(filename)
        mine = {n: self.own[n] for n in OWN[group] if n in self.own and n in reference}
        beneath = [(f"{n} (beneath)", self.own[n]) for n in BENEATH.get(group, [])
                   if n in self.own and n in reference]  # fmt: skip
        chosen = {**reference, **mine}
        return (
            [("header", files.header(filename))]
            + beneath
            + [(n, chosen[n]) for n in sorted(chosen, key=files.order)]
        )

    def prepare(self, grade_ids):
        """Start, all at once, the workers these cells will need, then decide the cells that need
        none (the artifacts, checked in this process) while the sandboxes start and load. Each
        worker also starts while the groups judged before it run. It saves wall time, not CPU."""
        for grade_id in grade_ids:
            kind, name = CELLS[grade_id]
            if kind != "artifact" and self.not_gradable(needed(name)) is None:
                self.started(name)
        for grade_id in grade_ids:
            if CELLS[grade_id][0] == "artifact":
                self.verdict(grade_id)

    def started(self, group):
        """The group's worker, started (or the reason it could not start). Groups that load the
        same sections (the engine's checkpoints) share one worker."""
        key = tuple(OWN[group])
        if key not in self.workers:
            sections = [["loader", LOADER]]
            for filename, module in ((files.ENGINE_FILE, "engine"), (files.GPT_FILE, "gpt")):
                parts = self.parts_of(filename, group)
                sections.append([module, f"_module({module!r}, {parts!r}, {filename!r})"])
            sections.append(["probes", probe_section()])
            try:
                self.workers[key] = Worker(sections, set(), self.budget, wait=False)
            except WorkerFailed as err:
                self.workers[key] = str(err)
        return key

    def worker(self, group):
        """A group's worker with its sections loaded, or the reason there is none; the learner's
        sections that raised while loading are noted the first time."""
        key = self.started(group)
        worker = self.workers[key]
        if isinstance(worker, Worker) and key not in self.runs:
            try:
                self.note_load_failures(worker.call("broken", [], {}), group)
                self.runs[key] = RemoteRun(worker)
            except WorkerFailed as err:
                self.workers[key] = str(err)
        return self.workers[key]

    def note_load_failures(self, failed, group):
        """The learner's sections that raised while loading: not graded, and said once."""
        pairs = (
            [p for p in failed if isinstance(p, list) and len(p) == 2]
            if isinstance(failed, list)
            else []
        )
        for name, kind in pairs:
            if name in OWN[group] and name in self.own and name not in self.broken:
                self.broken[name] = said("broken_load", kind=kind, file=files.file_of(name))
                self.problems.append(
                    f"{files.file_of(name)}: the {name} section raised {kind} while loading; "
                    "its checks score 0"
                )

    def holds_reference(self, group):
        """True when a group's worker runs reference code beside the learner's."""
        return OWN[group] != OWN["Value"]

    def not_gradable(self, sections):
        """Why the first of these sections cannot be graded (broken or never saved), or None."""
        for section in sections:
            where = files.file_of(section)
            if section in self.broken:
                return said("step_not_graded", number=files.step_of(section), step=section,
                            why=self.broken[section], file=where)  # fmt: skip
            if section not in self.own:
                return said("not_saved", function=section, file=where)
        return None

    def decide(self, grade_id):
        """The cell's check, or a failure: a section it needs is broken or unsaved, or no worker."""
        kind, name = CELLS[grade_id]
        if kind == "artifact":
            return self.artifact_verdict(grade_id, name)
        missing = self.not_gradable(needed(name))
        if missing:
            return report_verdict(grade_id, failed_report(name, missing))
        worker = self.worker(name)
        if isinstance(worker, str):
            return report_verdict(grade_id, failed_report(name, worker))
        missing = self.not_gradable(needed(name))  # a section may have raised while it loaded
        if missing:
            return report_verdict(grade_id, failed_report(name, missing))
        run = self.runs[tuple(OWN[name])]
        if kind == "hidden":
            return self.hidden_verdict(grade_id, name, run)
        return self.visible_verdict(grade_id, name, run)

    def visible_verdict(self, grade_id, name, run):
        """The learner's own checkpoint; when it holds, the same checks on fresh inputs."""
        report = safely(name, lambda: checkpoint_report(name, run))
        if report.passed:
            probes, known = fresh_known(name)
            fresh = safely(name, lambda: checkpoint_report(name, run, known, probes))
            if not fresh.passed:
                report = fresh.but(note=said("fresh_inputs"))
        names = catalogue_names(report.diagnosis) if not report.passed else []
        if self.holds_reference(name):
            report = without_learner_values(report)
        return report_verdict(grade_id, report, {"diagnosis": names})

    def hidden_verdict(self, grade_id, group, run):
        """Seeded cases against the reference: counts, the first failing claim, a diagnosis."""
        failures, cases = [], xslm_hidden.cases(group)
        for (claim, probe, args), want in zip(cases, reference_answers(group)):
            got = signature(run(Probe(claim, probe, args)))
            words = claim_words(claim, probe, args)
            if isinstance(got, dict):
                failures.append(said("case_raised", case=words, kind=got["raises"]))
            elif claim == "train_lowers" and not learned(got):
                failures.append(words)
            elif first_difference(got, want) is not None:
                failures.append(words)
        found = self.diagnosis(group, run) if failures else []
        record = {"cases": len(cases), "failed": len(failures), "diagnosis": catalogue_names(found)}
        if not failures:
            text = said("hidden_pass", checkpoint=group, total=len(cases))
            return Verdict(grade_id, True, text, record=record)
        lines = [said("hidden_fail", checkpoint=group, failed=len(failures), total=len(cases),
                      first=failures[0])]  # fmt: skip
        if found:
            lines.append(said("looks_like", title=found[0].title, fix=found[0].hint))
        return Verdict(grade_id, False, "\n".join(lines), record=record)

    def diagnosis(self, group, run):
        """The catalogued mistakes the learner's answers on the visible probes match."""
        found = []
        for name in CHECKPOINTS.get(group, [group]):
            answers = {p.id: signature(run(p)) for p in VISIBLE[name]}
            found += checks.diagnose(name, answers, checks.load_answers())
        return found

    def artifact_verdict(self, grade_id, filename):
        """The artifact's own check on the files as submitted, recomputed with the reference."""
        held_out_loss, generate_text = reference_model()
        with_outputs = os.path.join(self.folder, "outputs")
        if filename == artifacts.LOSS_FILE:
            work = lambda: artifacts.loss_report(with_outputs, held_out_loss)  # noqa: E731
        else:
            work = lambda: artifacts.samples_report(with_outputs, generate_text)  # noqa: E731
        return report_verdict(grade_id, safely(filename, work))

    def close(self):
        """End every worker this judgement started."""
        for worker in self.workers.values():
            if isinstance(worker, Worker):
                worker.close()
        self.workers, self.runs = {}, {}


@functools.cache
def reference_model():
    """held_out_loss and generate_text of the reference in plain floats (float_gpt): the
    reference's numbers, without building its autograd graph."""
    return artifacts.model_functions(float_gpt.load, float_gpt.loss, float_gpt.generate)


@functools.cache
def reference_answers(group):
    """The reference's answers to a hidden group's cases, computed once per process."""
    run = reference_run()
    return [
        signature(run(Probe(claim, probe, args))) for claim, probe, args in xslm_hidden.cases(group)
    ]


def needed(name):
    """The sections a judged group's verdict needs: the engine's Value when it loads the engine,
    and its checkpoints."""
    judged = CHECKPOINTS.get(name, [name])
    return list(dict.fromkeys((["Value"] if "Value" in OWN[name] else []) + judged))


def learned(answer):
    """A training answer [losses, mean loss before, after] that fell by the stated margin."""
    parts = answer if isinstance(answer, list) and len(answer) == 3 else [None, None, None]
    before, after = parts[1], parts[2]
    return (
        isinstance(before, float) and isinstance(after, float)
        and after <= before - xslm_hidden.TRAIN_FALL
    )  # fmt: skip


def claim_words(claim, probe, args):
    """A hidden case's claim in the learner's words, its fields filled from the case."""
    fields = {}
    if probe == "layer":
        fields["layer"] = args[0]
    elif probe == "chain":
        fields["length"] = f"{args[0]:,}"
    return checks.CLAIMS[claim].format(**fields)


def judge_folder(folder, grade_ids=None):
    """({grade_id: Verdict}, problems) for a part-two submission folder."""
    return core.judge_folder(folder, grade_ids, Judgement, CELLS)
