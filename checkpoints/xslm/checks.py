"""Part two's visible checks: each checkpoint's probes, what each check claims, and the report,
with the catalogue of part two's mistakes (MISTAKES) and the diagnosis that names them (part one
keeps these three in steps.py, catalogue.py and diagnose.py).

`CHECKS[name](run)` returns a Report. `run(probe)` is the learner's answer to one probe: here a
`Local` run on the learner's files; in the grader, the judge's run inside the sandbox. Known answers
(the reference's, and each catalogued mistake's for the diagnosis) come from answers.json, written
by the instructor's `make fingerprints`; no solution code ships.
"""

import math
import os
from dataclasses import dataclass, replace

from .. import i18n
from ..both import both_at_once, merged
from ..compare import brief, canonical, first_difference, load_table
from ..hints import Hint
from ..report import Check, Report
from . import detectors
from .probes import PROBES, as_lists, seeded_state, stated_shapes

ANSWERS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "answers.json")
CAUSAL_TOLERANCE = 1e-12

say = i18n.speaker("xslm_checks")
CLAIMS = i18n.Section("xslm_claims")
HINTS = i18n.Section("xslm_hints", lambda tiers: Hint(*tiers))


@dataclass(frozen=True)
class Probe:
    """One call of a part-two probe: a stable id (the key of its answers) and its arguments."""

    id: str
    probe: str
    args: list


@dataclass(frozen=True)
class Mistake:
    """A catalogued part-two mistake; its words are in locales/<edition>.json, "xslm_mistakes"."""

    name: str
    checkpoint: str
    operation: str = ""
    """Where a detector saw it, as the learner writes it ("a ** 3"); empty for the catalogue's."""

    def words(self, key):
        """One of the mistake's texts in the current edition: title, explanation or fix."""
        return i18n.lookup("xslm_mistakes", self.name)[key]

    names = property(lambda self: (self.name,))  # a Both (two at once) stands for two
    title = property(
        lambda self: self.words("title") + (f": {self.operation}" if self.operation else "")
    )
    explanation = property(lambda self: self.words("explanation"))
    hint = property(lambda self: self.words("fix"))


MISTAKES = [
    Mistake("engine.recursive_backward", "Value"),
    Mistake("engine.overwrite_gradients", "Value"),
    Mistake("engine.no_zeroing", "Value"),
    Mistake("engine.reflected_sub", "Value"),
    Mistake("engine.reflected_div", "Value"),
    Mistake("engine.wrong_slope", "Value"),
    Mistake("engine.wrong_value", "Value"),
    Mistake("engine.softmax_no_shift", "softmax"),
    Mistake("engine.linear_transposed", "linear"),
    Mistake("engine.norm_rms", "norm"),
    Mistake("engine.norm_unbiased", "norm"),
    Mistake("gpt.future_visible", "GPT"),
    Mistake("gpt.no_sqrt_width", "GPT"),
    Mistake("gpt.loss_no_minus", "loss"),
    Mistake("gpt.loss_no_log", "loss"),
    Mistake("gpt.stale_gradients", "train_step"),
    Mistake("gpt.greedy_sampling", "generate"),
]
BY_NAME = {m.name: m for m in MISTAKES}

# ── the probes: inputs every learner sees (the grader's hidden ones are elsewhere) ──

TINY = [5, 4, 6]  # vocab, width, context of the small model the GPT checks load known weights into
TINY_STATE = seeded_state(stated_shapes(*TINY), 11)
ZERO_STATE = {n: [[0.0] * c for _ in range(r)] for n, (r, c) in stated_shapes(*TINY).items()}
PAIRS = [[[1, 2, 3, 4], [2, 3, 4, 0]], [[0, 4, 4, 2, 1], [4, 4, 2, 1, 3]]]


def single(op, inputs, *extra):
    """A program of one operation on the inputs' registers 0 (and 1)."""
    registers = [0, 1][: 2 if op in ("add", "sub", "mul", "div") else 1]
    return Probe(f"Value.{op}", "program", [inputs, [[op, *registers, *extra]]])


VISIBLE = {
    "Value": [
        single("add", [1.5, -2.0]),
        single("sub", [1.5, -2.0]),
        single("mul", [1.5, -2.0]),
        single("div", [1.5, -2.0]),
        single("pow", [1.5], 3),
        single("exp", [0.7]),
        single("log", [2.5]),
        single("relu", [-0.3]),
        Probe("Value.relu_positive", "program", [[0.3], [["relu", 0]]]),
        single("neg", [0.25]),
        single("number_add", [0.25], 3.0),
        single("number_sub", [0.25], 3.0),
        single("mul_number", [0.25], 3.0),
        single("number_mul", [0.25], 3.0),
        single("div_number", [0.25], 3.0),
        single("number_div", [0.25], 3.0),
        Probe("Value.reused", "program", [[2.0, 5.0], [["mul", 0, 1], ["add", 2, 0]]]),
        Probe("Value.twice", "program", [[2.0, 5.0], [["mul", 0, 1], ["add", 2, 0]], 2]),
        Probe(
            "Value.expression",
            "program",
            [
                [1.3, 0.7, -0.4],
                [
                    ["mul", 0, 1],
                    ["add", 3, 0],
                    ["pow", 2, 2],
                    ["add_number", 5, 1.0],
                    ["div", 4, 6],
                    ["sub_number", 1, 3.0],
                    ["exp", 8],
                    ["sub", 7, 9],
                    ["mul", 2, 2],
                    ["add_number", 11, 1.0],
                    ["log", 12],
                    ["add", 10, 13],
                    ["sub", 0, 1],
                    ["relu", 15],
                    ["add", 14, 16],
                    ["number_mul", 17, 2.0],
                ],
            ],
        ),  # fmt: skip
        Probe("Value.deep", "chain", [20_000]),
    ],
    "softmax": [
        Probe(
            "softmax.small", "layer", ["softmax", [[0.5, -1.0, 2.0, 0.0]], [1.0, -2.0, 0.5, 3.0]]
        ),
        Probe("softmax.large", "layer", ["softmax", [[1000.0, 1001.0, 1002.0]], [0.0, 1.0, 2.0]]),
    ],
    "linear": [
        Probe(
            "linear.small",
            "layer",
            ["linear", [[1.0, 2.0], [[1.0, 0.0], [0.5, -1.0], [2.0, 3.0]]], [1.0, 2.0, -1.0]],
        ),
        Probe(
            "linear.square",
            "layer",
            [
                "linear",
                [[0.3, -1.2, 2.0], [[0.1, 0.2, 0.3], [-0.5, 0.0, 1.5], [2.0, -1.0, 0.25]]],
                [0.5, -1.0, 1.5],
            ],
        ),  # fmt: skip
    ],
    "norm": [
        Probe("norm.small", "layer", ["norm", [[1.0, 2.0, 3.0, 6.0]], [1.0, -1.0, 0.5, 2.0]]),
        Probe("norm.constant", "layer", ["norm", [[2.0, 2.0, 2.0]], [1.0, 2.0, 3.0]]),
    ],
    "GPT": [
        Probe("GPT.shapes", "shapes", [[40, 8, 12]]),
        Probe("GPT.initial", "initial", [TINY, 3]),
        Probe("GPT.logits", "logits", [TINY, TINY_STATE, [1, 4, 0, 2]]),
        Probe("GPT.causal", "causal_gap", [TINY, TINY_STATE, [3, 1, 4, 1, 2]]),
        Probe("GPT.state", "state_round_trip", [TINY, 5]),
        Probe("GPT.refuses_shape", "refuses_shape", [TINY, 5]),
        Probe("GPT.refuses_length", "refuses_length", [TINY, 5]),
        Probe("GPT.gradients", "model_gradients", [TINY, TINY_STATE, [2, 0, 3], [1, 4, 0]]),
    ],
    "loss": [
        Probe("loss.value", "loss_and_gradients", [TINY, TINY_STATE, [1, 2, 3, 4], [2, 3, 4, 0]]),
        Probe("loss.uniform", "loss_and_gradients", [TINY, ZERO_STATE, [1, 2, 3], [2, 3, 4]]),
    ],
    "train_step": [
        Probe("train_step.losses", "training", [TINY, TINY_STATE, PAIRS, 0.1, 6]),
    ],
    "generate": [
        Probe("generate.sample", "sample", [TINY, TINY_STATE, [1, 2], 8, 1.0, 4]),
        Probe("generate.again", "sample", [TINY, TINY_STATE, [1, 2], 8, 1.0, 4]),
        Probe("generate.long", "sample", [TINY, TINY_STATE, [0, 1, 2, 3, 4], 6, 0.8, 9]),
        Probe("generate.cold", "sample", [TINY, TINY_STATE, [3], 7, 1e-3, 2]),
        Probe("generate.greedy", "greedy", [TINY, TINY_STATE, [3], 7]),
    ],
}


# ── running probes ──


class Local:
    """The learner's answers here, in this process: run(probe) -> value, or the exception."""

    def __init__(self, engine, gpt):
        self.engine, self.gpt = engine, gpt

    def __call__(self, probe):
        """The learner's answer to one probe, or the exception it raised."""
        try:
            return PROBES[probe.probe](self.engine, self.gpt, *probe.args)
        except Exception as err:  # a crash is an answer the report shows
            return err


def signature(value):
    """The comparable form of an answer: plain lists and numbers, or which exception it raised."""
    if isinstance(value, BaseException):
        return {"raises": type(value).__name__}
    return canonical(as_lists(value))


def load_answers(path=ANSWERS_FILE):
    """{checkpoint: {"correct": {probe id: answer}, "mistakes": {name: {probe id: answer}}}}."""
    return load_table(path)


def matches(got, want):
    """An answer matches a stored one (any exception matches any exception)."""
    if isinstance(want, dict) and "raises" in want:
        return isinstance(got, dict) and "raises" in got
    return first_difference(got, want) is None


def diagnose(checkpoint, answers, known):
    """What fits these answers, best first: the stored answers that match (by_fingerprint), less
    any name the engine's properties contradict, joined by the names they show besides
    (detectors.py), each named separately."""
    found = by_fingerprint(checkpoint, answers, known)
    course = detectors.Course(VISIBLE, written, Mistake)
    props = detectors.detect(checkpoint, answers, known, course)
    return merged(found, props, lambda name: props.mistakes.get(name) or BY_NAME[name])


def by_fingerprint(checkpoint, answers, known):
    """The catalogued mistakes whose stored answers match these answers on every probe; else two
    at once that show on different probes (checkpoints/both.py)."""
    stored = known[checkpoint]["mistakes"]
    return [
        BY_NAME[name]
        for name in stored
        if all(matches(answers[pid], stored[name][pid]) for pid in answers if pid in stored[name])
    ] or both_at_once(known[checkpoint]["correct"], stored, answers, list(answers), matches,
                      BY_NAME)  # fmt: skip


# ── the checks ──


def claim(name, passed, got=None, expected=None, where=None, **fields):
    """One Check with the claim's words; a failing one carries its tiered hint."""
    what = CLAIMS[name].format(**fields)
    if passed:
        return Check(what, True, id=name)
    return Check(what, False, got=got, expected=expected, where=where, hint=HINTS[name], id=name)


def shown(value):
    """A learner's answer as the report shows it: the crash, or a short rendering."""
    if isinstance(value, dict) and "raises" in value:
        return say("raised", error=value["raises"])
    return brief(value)


def steps(value, path):
    """Walk path into value: (word for the step, the item reached) for each step that names one.

    A [name, matrix] pair is one step named by its name (the path's index into the pair is
    skipped), so a model's gradients read "head → [2] → [0]".
    """
    walked, skip = [], False
    for index in path:
        if skip:
            skip = False
            continue
        value = value[index] if isinstance(value, list) and index < len(value) else None
        if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
            walked.append((value[0], value[1]))
            value, skip = value[1], True
        else:
            walked.append((f"[{index}]", value))
    return walked


# How a program probe's operations read: {0} is the first register, {1} the second or a number
WRITTEN = {"add": "{0} + {1}", "sub": "{0} - {1}", "mul": "{0} * {1}", "div": "{0} / {1}",
           "pow": "{0} ** {1}", "exp": "{0}.exp()", "log": "{0}.log()", "relu": "{0}.relu()",
           "neg": "-{0}", "add_number": "{0} + {1}", "number_add": "{1} + {0}",
           "sub_number": "{0} - {1}", "number_sub": "{1} - {0}", "mul_number": "{0} * {1}",
           "number_mul": "{1} * {0}", "div_number": "{0} / {1}", "number_div": "{1} / {0}",
           }  # fmt: skip
TWO_VALUES = ("add", "sub", "mul", "div")  # the operations whose both operands are registers
INPUTS = "abcdefgh"
LONGEST_WRITTEN = 60  # a longer expression is named by its number of operations


def written(inputs, steps):
    """A program probe as the learner would write it: ("a * b", "a = 1.5, b = -2.0")."""
    names = list(INPUTS[: len(inputs)])
    for op, first, *rest in steps:
        operands = [names[first], *(names[r] for r in rest)] if op in TWO_VALUES else [
            names[first], *map(repr, rest)]  # fmt: skip
        operands = [f"({o})" if " " in o and not o.startswith("(") else o for o in operands]
        names.append(WRITTEN[op].format(*operands))
    values = ", ".join(f"{n} = {v}" for n, v in zip(INPUTS, inputs))
    if len(names[-1]) > LONGEST_WRITTEN:
        return say("long_expression", count=len(steps)), values
    return names[-1], values


def program_place(probe, part):
    """For a program probe: a function from a difference's path to where it is, in words (the
    expression, its inputs, and its value or the gradient of one input); None for other probes."""
    if probe.probe != "program":
        return None
    expression, values = written(probe.args[0], probe.args[1])

    def place(path):
        full = path if part is None else (part, *path)
        if full[:1] == (1,) and len(full) > 1:
            return say("program_slope", expression=expression, inputs=values, input=INPUTS[full[1]])
        return say("program_value", expression=expression, inputs=values)

    return place


def compared(name, got, want, place=None, **fields):
    """A known-answer check: the row where the two values part ways, and where that is (place:
    a function from the path to words; else the path's own steps)."""
    found = first_difference(got, want)
    if found is None:
        return claim(name, True, **fields)
    path, mine, theirs, why = found
    if not path and place is None:
        return claim(name, False, shown(got), shown(want), **fields)
    walked = steps(want, path)
    words = place(path) if place else " → ".join(w for w, _ in walked)
    where = say("difference", path=words, got=shown(mine), want=shown(theirs), why=why)
    if not path:
        return claim(name, False, shown(got), shown(want), where, **fields)
    rows = [v for _, v in walked[:-1] if isinstance(v, list)]
    want_row = rows[-1] if rows and not any(isinstance(v, list) for v in rows[-1]) else theirs
    got_row = dict(steps(got, path)[:-1]).get(walked[-2][0]) if len(walked) > 1 else None
    if want_row is theirs or not isinstance(got_row, list):
        got_row = mine
    return claim(name, False, shown(got_row), shown(want_row), where, **fields)


class Checkpoint:
    """One checkpoint's answers on its probes, the stored answers, and the Report they make."""

    def __init__(self, name, run, known=None, probes=None):
        self.name, self.known = name, known or load_answers()
        self.probes = probes or VISIBLE[name]
        self.answers = {p.id: signature(run(p)) for p in self.probes}

    def got(self, pid, part=None):
        """The learner's answer to a probe (or one part of it), as a signature."""
        answer = self.answers[pid]
        if part is None or isinstance(answer, dict):
            return answer
        return answer[part] if isinstance(answer, list) and len(answer) > part else answer

    def want(self, pid, part=None):
        """The stored correct answer to a probe (or one part of it)."""
        answer = self.known[self.name]["correct"][pid]
        return answer if part is None else answer[part]

    def same(self, name, pid, part=None, **fields):
        """The answer to one probe (or one part of it) against the stored correct one."""
        probe = next((p for p in self.probes if p.id == pid), None)
        place = program_place(probe, part) if probe else None
        return compared(name, self.got(pid, part), self.want(pid, part), place, **fields)

    def all_same(self, name, pids, part=None, **fields):
        """One check over several probes: it holds when every one matches; shows the first gap."""
        for pid in pids:
            if first_difference(self.got(pid, part), self.want(pid, part)) is not None:
                return self.same(name, pid, part, **fields)
        return claim(name, True, **fields)

    def report(self, checks):
        """The Report, with the diagnosis attached only when something failed."""
        report = Report(self.name, checks, name=self.name, package="checkpoints.xslm")
        if report.passed:
            return report
        return report.but(diagnosis=diagnose(self.name, self.answers, self.known))


def value_checks(c):
    """The engine: each operation's value and slope, reuse, backward twice, a deep chain."""
    singles = [p.id for p in c.probes if p.probe == "program" and len(p.args[1]) == 1]
    return [
        c.all_same("value_results", singles, 0),
        c.all_same("value_slopes", singles, 1),
        c.same("value_reused", "Value.reused", 1),
        compared("value_twice", c.got("Value.twice"), c.got("Value.reused")),
        c.same("value_expression", "Value.expression"),
        c.same("value_deep", "Value.deep", length="20,000"),
    ]


def values_first(values, gradients):
    """The gradients' check, its hint sending the learner to the values when those fail too (a
    gradient from wrong values cannot be right, whatever left the graph)."""
    if values.passed or gradients.passed:
        return gradients
    return replace(gradients, hint=HINTS["values_first"])


def softmax_checks(c):
    """softmax on Values: known outputs, scores in the thousands, gradients."""
    values = c.same("layer_values", "softmax.small", 0, layer="softmax")
    return [
        values,
        c.same("softmax_large", "softmax.large", 0),
        values_first(
            values,
            c.all_same("layer_grads", ["softmax.small", "softmax.large"], 1, layer="softmax"),
        ),
    ]


def linear_checks(c):
    """linear(x, W): one output per row, known outputs and gradients."""
    got = c.got("linear.small", 0)
    values = c.all_same("layer_values", ["linear.small", "linear.square"], 0, layer="linear")
    return [
        claim("linear_rows", isinstance(got, list) and len(got) == 3, shown(got), "3"),
        values,
        values_first(
            values, c.all_same("layer_grads", ["linear.small", "linear.square"], 1, layer="linear")
        ),
    ]


def norm_checks(c):
    """norm(x): known outputs, a constant vector, gradients."""
    values = c.same("layer_values", "norm.small", 0, layer="norm")
    return [
        values,
        c.same("norm_constant", "norm.constant", 0),
        values_first(
            values, c.all_same("layer_grads", ["norm.small", "norm.constant"], 1, layer="norm")
        ),
    ]


def gpt_checks(c):
    """The GPT: shapes, seeded start, known logits, causality, state/load, gradients."""
    gap = c.got("GPT.causal")
    causal = isinstance(gap, float) and gap <= CAUSAL_TOLERANCE
    logits = c.same("gpt_logits", "GPT.logits")
    return [
        c.same("gpt_shapes", "GPT.shapes"),
        c.same("gpt_initial", "GPT.initial"),
        logits,
        claim("gpt_causal", causal, shown(gap), "0.0"),
        c.same("gpt_state", "GPT.state"),
        c.all_same("gpt_refuses", ["GPT.refuses_shape", "GPT.refuses_length"]),
        values_first(logits, c.same("gpt_gradients", "GPT.gradients", 1)),
    ]


def loss_checks(c):
    """The loss: ln V at zero weights, the known value and gradients."""
    uniform = c.got("loss.uniform", 0)
    value = c.same("loss_value", "loss.value", 0)
    return [
        compared("loss_uniform", uniform, math.log(TINY[0]), vocab=TINY[0]),
        value,
        values_first(value, c.same("loss_gradients", "loss.value", 1)),
    ]


def train_step_checks(c):
    """train_step: the known losses of six steps, and a lower loss after them."""
    before, after = c.got("train_step.losses", 1), c.got("train_step.losses", 2)
    lower = isinstance(before, float) and isinstance(after, float) and after < before
    return [
        c.same("train_losses", "train_step.losses", 0),
        claim("train_lowers", lower, shown(after), f"< {shown(before)}"),
    ]


def generate_checks(c):
    """generate: prompt kept, seeded, greedy when cold, the known draws."""
    got, prompt, steps = c.got("generate.long"), [0, 1, 2, 3, 4], 6
    vocab = TINY[0]
    shaped = (
        isinstance(got, list) and got[: len(prompt)] == [float(i) for i in prompt]
        and len(got) == len(prompt) + steps and all(0 <= i < vocab for i in got)
    )  # fmt: skip
    return [
        claim(
            "generate_prompt", shaped, shown(got), say("prompt_then", prompt=prompt, steps=steps)
        ),
        compared("generate_seeded", c.got("generate.again"), c.got("generate.sample")),
        compared("generate_cold", c.got("generate.cold"), c.got("generate.greedy")),
        c.all_same("generate_sample", ["generate.sample", "generate.long", "generate.cold"]),
    ]


CHECKS = {
    "Value": value_checks,
    "softmax": softmax_checks,
    "linear": linear_checks,
    "norm": norm_checks,
    "GPT": gpt_checks,
    "loss": loss_checks,
    "train_step": train_step_checks,
    "generate": generate_checks,
}

# What each checkpoint's code calls from earlier steps: the sections the grader takes from the
# reference when it judges this one alone (isolation), and the checkpoint named when one fails here.
USES = {
    "Value": [],
    "softmax": ["Value"],
    "linear": ["Value"],
    "norm": ["Value"],
    "GPT": ["Value", "softmax", "linear", "norm"],
    "loss": ["Value", "softmax", "linear", "norm", "GPT"],
    "train_step": ["Value", "softmax", "linear", "norm", "GPT", "loss"],
    "generate": ["Value", "softmax", "linear", "norm", "GPT"],
}


def checkpoint_report(name, run, known=None, probes=None):
    """The Report of checkpoint `name` on run's answers."""
    c = Checkpoint(name, run, known, probes)
    return c.report(CHECKS[name](c))
