"""Part two's engine mistakes by what they are, on the learner's own answers to the probes.

An engine can carry several bugs at once (a recursive order that also forgets to zero, a
reflected subtraction the wrong way round, one wrong slope); each shows on probes of its own, so
each property is read apart and named apart, and a name's operation is said as the learner
writes it ("a ** 3"). The fingerprints (checks.by_fingerprint) still name a catalogued mistake
whose answers match exactly; a name these properties contradict is never given (both.merged).
"""

from collections import namedtuple

from ..both import Found
from ..compare import first_difference
from ..fits import CLOSE, NEAR, affine_fit, close, mean, numbers, spread

# What the detectors read of the checks' module (checks.py passes it in: it imports this one):
# the visible probes, how a program probe reads as code, and the Mistake type.
Course = namedtuple("Course", "visible written mistake")

REFLECTED = {"number_sub": "engine.reflected_sub", "number_div": "engine.reflected_div"}
KNOWS = frozenset(
    {
        "engine.recursive_backward", "engine.overwrite_gradients", "engine.no_zeroing",
        "engine.reflected_sub", "engine.reflected_div", "engine.wrong_slope",
        "engine.wrong_value",
    }
)  # fmt: skip


def same(got, want):
    """One answer matches the stored one (to the course's tolerance)."""
    return not (isinstance(got, dict) or isinstance(want, dict)) and (
        first_difference(got, want) is None
    )


def part(answer, k):
    """Item k of a program's answer [value, gradients], or None when it has none."""
    return answer[k] if isinstance(answer, list) and len(answer) == 2 else None


def operation_slips(answers, correct, course):
    """[(name, operation)] for the one-operation probes that differ: a reflected operator
    reversed (c - v gives v - c) or missing (a TypeError), a wrong number, or a right number with
    a wrong slope. Slopes are read only where some operation with a slope other than 0 has its
    slopes right (an engine whose backward never runs has no wrong slope: it has no backward)."""
    singles = [p for p in course.visible["Value"] if p.probe == "program" and len(p.args[1]) == 1]
    slopes_work = any(
        any(part(correct[p.id], 1)) and same(part(answers[p.id], 1), part(correct[p.id], 1))
        for p in singles
    )
    slips = []
    for p in singles:
        got, want = answers[p.id], correct[p.id]
        if same(got, want):
            continue
        op, text = p.args[1][0][0], course.written(*p.args)[0]
        if op in REFLECTED and reversed_or_missing(op, got, want):
            slips.append((REFLECTED[op], text))
        elif not same(part(got, 0), part(want, 0)):
            slips.append(("engine.wrong_value", text))
        elif slopes_work:
            slips.append(("engine.wrong_slope", text))
    return slips


def reversed_or_missing(op, got, want):
    """c - v answered as v - c (c / v as v / c), or refused as an unsupported operand."""
    if isinstance(got, dict):
        return got.get("raises") == "TypeError"
    value, right = part(got, 0), part(want, 0)
    if not isinstance(value, float) or not isinstance(right, float):
        return False
    return same(value, -right) if op == "number_sub" else right != 0 and same(value, 1 / right)


def graph_slips(answers, correct, course):
    """The backward pass's own mistakes: too deep a recursion, gradients kept from the call
    before, a path's gradient written over another's."""
    names = []
    if answers.get("Value.deep") == {"raises": "RecursionError"}:
        names.append("engine.recursive_backward")
    once, twice = part(answers.get("Value.reused"), 1), part(answers.get("Value.twice"), 1)
    if isinstance(once, list) and isinstance(twice, list) and not same(twice, once):
        names.append("engine.no_zeroing")  # a second backward() changed the gradients
    b, want = reused_input_b(course), correct["Value.reused"]  # c = a·b + a: ∂c/∂a = b + 1
    if isinstance(once, list) and once and same(part(answers["Value.reused"], 0), part(want, 0)):
        if not same(once[0], part(want, 1)[0]) and (same(once[0], b) or same(once[0], 1.0)):
            names.append("engine.overwrite_gradients")  # a's gradient is one path's alone
    return names


def reused_input_b(course):
    """b of the probe c = a·b + a, whose ∂c/∂a = b + 1 sums two paths."""
    return next(p for p in course.visible["Value"] if p.id == "Value.reused").args[0][1]


def value_properties(answers, known, course):
    """Found for the Value checkpoint: each of the engine's properties that fails."""
    correct = known["Value"]["correct"]
    slips = operation_slips(answers, correct, course)
    names = graph_slips(answers, correct, course) + [name for name, _ in slips]
    where = {}
    for name, text in slips:
        where.setdefault(name, course.mistake(name, "Value", text))
    return Found(tuple(dict.fromkeys(names)), KNOWS, where)


def norm_properties(answers, known, course):
    """Found for norm: which statistic it divides by, read on a row whose ε hardly counts: the
    variance over n, over n − 1, or the mean square with no mean taken away (RMS)."""
    probe = next(p for p in course.visible["norm"] if p.id == "norm.small")
    xs, ys = probe.args[1][0], numbers(part(answers.get("norm.small"), 0))
    fit = ys and len(ys) == len(xs) and affine_fit(xs, ys)
    if not fit or fit[0] <= 0:
        return None
    a, b = fit
    scale = max(abs(y) for y in ys)
    centred, through_zero = abs(b + a * mean(xs)) <= CLOSE * scale, abs(b) <= CLOSE * scale
    statistic = {"n": spread(xs, len(xs)), "n-1": spread(xs, len(xs) - 1)} if centred else (
        {"rms": mean([x * x for x in xs])} if through_zero else {})  # fmt: skip
    kinds = [k for k, v in statistic.items() if close((1 / a) ** 2, v, NEAR)]
    if len(kinds) != 1:
        return None
    names = {"n-1": ("engine.norm_unbiased",), "rms": ("engine.norm_rms",)}.get(kinds[0], ())
    return Found(names, frozenset({"engine.norm_unbiased", "engine.norm_rms"}))


DETECTORS = {"Value": value_properties, "norm": norm_properties}


def detect(checkpoint, answers, known, course):
    """What the properties of this checkpoint's mistakes say of these answers (a Found), or None
    when no detector reads them (or the answers are not of a shape any property reads)."""
    detector = DETECTORS.get(checkpoint)
    if detector is None:
        return None
    try:
        return detector(answers, known, course)
    except (ArithmeticError, IndexError, KeyError, TypeError, ValueError):
        return None
