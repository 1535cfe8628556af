"""Recognising a catalogued mistake by what it *is*, on the learner's own answers to the probes.

The fingerprints (diagnose.py) name a mistake when the answers are exactly a stored mistake's.
Real code often carries a second slip beside it (another ε, another fill value, a stray rounding),
and then no stored answer fits. A detector tests the property each mistake breaks instead: the
variance divides by n or by n − 1, ε sits inside the square root or outside it, the first position
sees only itself when no mask is given. Each detector returns a Found: the names whose property
shows, and the names it can speak for (`knows`); a fingerprint's name it knows but did not find
is one the properties contradict, and is never given.

A detector reads only the answers and the probes' inputs: it computes statistics of them (a mean,
a variance, a straight-line fit), never the function the learner is asked to write.
"""

import math

from ..both import Found
from ..fits import CLOSE, NEAR, affine_fit, close, mean, numbers, spread
from .probes import PROBES

DEFAULT_EPS = 1e-5  # layer_norm's default ε, in the contract


def probe_args(checkpoint, probe_id):
    """(args, kwargs) of one of a checkpoint's probes."""
    probe = next(p for p in PROBES[checkpoint] if p.id == probe_id)
    return probe.args, probe.kwargs


# ── layer_norm: which statistic divides, where ε sits, whether the eps argument counts ──

LAYER_NORM_KNOWS = frozenset(
    f"layer_norm.{n}"
    for n in (
        "unbiased_variance", "eps_outside_sqrt", "no_mean_subtraction", "no_eps",
        "divide_by_variance", "eps_not_in_signature", "hard_coded_eps", "wrong_default_eps",
        "rms_norm",
    )
)  # fmt: skip


def statistics(xs, centred):
    """{kind: the statistic a layer norm of that kind divides by (before ε)} of one row: the
    variance over n or n − 1; for a row whose mean stays, the mean square too (RMSNorm)."""
    kinds = {"n": spread(xs, len(xs)), "n-1": spread(xs, len(xs) - 1)}
    return kinds if centred else {**kinds, "rms": mean([x * x for x in xs])}


def divisor(xs, ys):
    """(D, centred): the answer is (x - mean) / D for one D (centred), or x / D; else None."""
    fit = affine_fit(xs, ys)
    if fit is None or fit[0] <= 0:
        return None
    a, b = fit
    scale = max(abs(y) for y in ys)
    if abs(b + a * mean(xs)) <= CLOSE * scale:
        return 1.0 / a, True
    if abs(b) <= CLOSE * scale:
        return 1.0 / a, False
    return None


def epsilon(d, stat, power, inside):
    """The ε that turns stat into the divisor d: √(stat + ε), √stat + ε, or stat + ε."""
    if power == "plain":
        return d - stat
    return d * d - stat if inside else d - math.sqrt(stat)


def layer_norm_properties(signatures):
    """Found for layer_norm, or None when its answers are not a normalisation of the row."""
    read = {}
    for pid in ("layer_norm.row", "layer_norm.narrow"):
        (row,), _ = probe_args("layer_norm", pid)
        got = numbers(signatures.get(pid))
        read[pid] = got and divisor(row, got)
        if not read[pid]:
            return None
    (row,), _ = probe_args("layer_norm", "layer_norm.row")
    d_row, centred = read["layer_norm.row"]
    if read["layer_norm.narrow"][1] != centred:
        return None
    candidates = [(kind, power) for kind, stat in statistics(row, centred).items()
                  for power in ("sqrt", "plain")
                  if close(d_row, math.sqrt(stat) if power == "sqrt" else stat, NEAR)]  # fmt: skip
    if len(candidates) != 1:
        return None
    (kind, power), names = candidates[0], []
    (narrow,), _ = probe_args("layer_norm", "layer_norm.narrow")
    d_narrow = read["layer_norm.narrow"][0]
    stat_row, stat_narrow = statistics(row, centred)[kind], statistics(narrow, centred)[kind]
    inside = True
    if power == "sqrt":  # ε inside the root or beside it: the one that also gives the wide row
        eps_in, eps_out = (epsilon(d_narrow, stat_narrow, power, s) for s in (True, False))
        inside = close(d_row, math.sqrt(stat_row + eps_in), 1e-12) or not close(
            d_row, math.sqrt(stat_row) + eps_out, 1e-12
        )
    eps = epsilon(d_narrow, stat_narrow, power, inside)
    given = signatures.get("layer_norm.eps")
    names += {"n-1": ["unbiased_variance"], "rms": ["rms_norm"]}.get(kind, [])
    names += [] if centred or kind == "rms" else ["no_mean_subtraction"]
    names += ["divide_by_variance"] if power == "plain" else []
    names += [] if inside or abs(eps) <= 1e-12 else ["eps_outside_sqrt"]
    names += eps_names(eps, given, kind, centred, power, inside)
    return Found(tuple(f"layer_norm.{n}" for n in names), LAYER_NORM_KNOWS)


def eps_names(eps, given, kind, centred, power, inside):
    """What the default ε and the eps argument say: left out of the signature, unused, fixed in
    the code, or a default other than the contract's."""
    if isinstance(given, dict) and given.get("raises") == "TypeError":
        return ["eps_not_in_signature"]
    (row,), kwargs = probe_args("layer_norm", "layer_norm.eps")
    got = numbers(given)
    found = got and divisor(row, got)
    if not found:
        return []
    stat = statistics(row, centred)[kind]
    honoured = close(epsilon(found[0], stat, power, inside), kwargs["eps"], 1e-6)
    default = abs(eps - DEFAULT_EPS) <= 1e-4 * DEFAULT_EPS
    if honoured:
        return [] if default else ["wrong_default_eps"]
    return ["no_eps"] if abs(eps) <= 1e-12 else ["hard_coded_eps"]


# ── the mask: hidden where it shows, causal where none was given ──


def matrix(value, rows=None):
    """value as a list of rows of floats (rows of them, if given), or None."""
    if not isinstance(value, list) or not value or (rows is not None and len(value) != rows):
        return None
    found = [numbers(r) for r in value]
    return found if all(found) and len({len(r) for r in found}) == 1 else None


def inverted_rows(weights, mask):
    """True when, in every row the mask both shows and hides keys, the weight is 0 exactly on
    the keys it shows and not 0 on some it hides (whatever fills the hidden scores)."""
    rows = [(w, m) for w, m in zip(weights, mask) if any(m) and not all(m)]
    return bool(rows) and all(
        all(x == 0.0 for x, keep in zip(w, m) if keep) and any(x > 0.0 for x in w) for w, m in rows
    )


MASK_KNOWS = frozenset(
    {"mask.inverted", "mask.transposed", "mask.strict", "mask.complement", "mask.additive",
     "mask.all_visible"}
)  # fmt: skip
# Which keys a causal_mask(n) shows, by name: the contract's, and each mistake's half.
SHOWN = {
    None: lambda i, j: i >= j,
    "mask.transposed": lambda i, j: i <= j,
    "mask.strict": lambda i, j: i > j,
    "mask.complement": lambda i, j: i < j,
    "mask.all_visible": lambda i, j: True,
}


def shown_keys(mask):
    """(additive, shown): whether a mask is scores to add (0 shown, -inf hidden) rather than
    True/False (or 1/0), and which entries it shows; None when it is neither."""
    flat = [v for row in mask for v in row] if matrix_of_any(mask) else []
    if flat and all(isinstance(v, bool) for v in flat):
        return False, [[bool(v) for v in row] for row in mask]
    if flat and all(v in (0.0, 1.0) for v in flat):
        return False, [[v == 1.0 for v in row] for row in mask]
    if flat and all(v == 0.0 or v == -math.inf for v in flat) and -math.inf in flat:
        return True, [[v == 0.0 for v in row] for row in mask]
    return None


def matrix_of_any(value):
    """A non-empty list of equal-length, non-empty rows."""
    return (isinstance(value, list) and value and all(isinstance(r, list) and r for r in value)
            and len({len(r) for r in value}) == 1)  # fmt: skip


def mask_shape_names(signatures):
    """The names causal_mask(5)'s answer shows: its form (scores to add) and its half."""
    read = shown_keys(signatures.get("causal_mask.n5"))
    if read is None:
        return None
    additive, shown = read
    n = len(shown)
    halves = [name for name, keep in SHOWN.items()
              if all(shown[i][j] == keep(i, j) for i in range(n) for j in range(n))]  # fmt: skip
    if len(halves) != 1:
        return None
    return ["mask.additive"] * additive + [h for h in halves if h]


def mask_properties(signatures):
    """Found for causal_mask: what causal_mask(5) shows and in which form, and whether attention
    hides exactly the keys the mask shows (mask.inverted); None when neither reads."""
    shapes = mask_shape_names(signatures)
    seen = []
    for pid in ("causal_mask.attend", "causal_mask.patchy"):
        got = signatures.get(pid)
        weights = matrix(got[1]) if isinstance(got, list) and len(got) == 2 else None
        if weights is not None:
            seen.append(inverted_rows(weights, probe_args("causal_mask", pid)[1]["mask"]))
    inverted = len(seen) == 2 and all(seen)
    if shapes is None and len(seen) < 2:
        return None
    knows = (MASK_KNOWS - {"mask.inverted"} if shapes is not None else frozenset()) | (
        {"mask.inverted"} if len(seen) == 2 else set())  # fmt: skip
    return Found(tuple((shapes or []) + ["mask.inverted"] * inverted), frozenset(knows))


def sees_only_itself(out, V):
    """Position 0's output is V's row 0 itself: it attended to no other key."""
    return out is not None and all(close(a, b) for a, b in zip(out[0], V[0]))


def multi_head_properties(signatures):
    """Found for multi_head: causal with no mask given; no ValueError for an h that does not
    divide d (another exception, or none)."""
    outs = {pid: matrix(signatures.get(pid)) for pid in ("multi_head.h2", "multi_head.h1")}
    if not all(out and len(out[0]) == len(probe_args("multi_head", pid)[0][2][0])
               for pid, out in outs.items()):  # fmt: skip
        return None  # not n × d: no property of these reads it
    causal = all(
        sees_only_itself(out, probe_args("multi_head", pid)[0][2]) for pid, out in outs.items()
    )
    raised = signatures.get("multi_head.indivisible")
    no_error = not (isinstance(raised, dict) and raised.get("raises") == "ValueError")
    names = ("multi_head.always_causal",) * causal + ("multi_head.no_value_error",) * no_error
    return Found(names, frozenset({"multi_head.always_causal", "multi_head.no_value_error"}))


def normalised_rows(out):
    """Every row has mean 0 and the same spread: the rows came out of a layer norm."""
    spreads = [spread(r, len(r)) for r in out]
    return all(abs(mean(r)) <= CLOSE * max(map(abs, r)) for r in out) and all(
        close(v, spreads[0], NEAR) for v in spreads
    )


def block_properties(signatures):
    """Found for block: the norm comes after the residual (every output row normalised);
    position 0 sees only itself with no mask given (its update is a function of its own row)."""
    outs = {p.id: matrix(signatures.get(p.id), rows=len(p.args[0])) for p in PROBES["block"]}
    if not all(out and len(out[0]) == len(p.args[0][0]) for p in PROBES["block"]
               for out in [outs[p.id]]):  # fmt: skip
        return None  # not X's shape: no property of these reads it
    post = all(normalised_rows(out) for out in outs.values())
    causal = all(
        affine_fit(X[0], [o - x for o, x in zip(outs[pid][0], X[0])]) is not None
        for pid in ("block.h2", "block.h1")
        for X in [probe_args("block", pid)[0][0]]
    )
    names = ("block.post_ln",) * post + ("block.always_causal",) * causal
    return Found(names, frozenset({"block.post_ln", "block.always_causal"}))


def pos_encoding_properties(signatures):
    """Found for pos_encoding: it answers well for every even d and fails for every odd one (it
    raises, or gives another shape)."""

    def good(pid):  # its signature (diagnose.pos_encoding_signature) is all the contract asks
        n, d = probe_args("pos_encoding", pid)[0]
        return signatures.get(pid) == [float(n), float(d), True, True]

    odd = [p.id for p in PROBES["pos_encoding"] if p.args[1] % 2]
    even = [p.id for p in PROBES["pos_encoding"] if not p.args[1] % 2]
    found = all(map(good, even)) and not any(map(good, odd))
    return Found(("pos_encoding.odd_d",) * found, frozenset({"pos_encoding.odd_d"}))


DETECTORS = {
    "causal_mask": mask_properties,
    "multi_head": multi_head_properties,
    "pos_encoding": pos_encoding_properties,
    "layer_norm": layer_norm_properties,
    "block": block_properties,
}


def detect(checkpoint, signatures):
    """What the properties of this checkpoint's mistakes say of these answers (a Found), or None
    when no detector reads them."""
    detector = DETECTORS.get(checkpoint)
    if detector is None:
        return None
    try:
        return detector(signatures)
    except (ArithmeticError, IndexError, TypeError, ValueError):  # answers no property reads
        return None
