"""The hidden checks: each learner function against the reference at 1e-6 on seeded inputs.

Random sizes and magnitudes, masks and edge cases, drawn from SEED. multi_head and block also
meet random non-causal masks (some query sees a later key), so code that swaps the mask it is
given for the causal one fails them.

Only the judge (judge/attention.py) runs them, in its own process, on a RemoteModel whose calls go
to the sandboxed worker; the hidden cells of the notebooks are placeholders. Feedback shows no
inputs and no seed: only counts, the first gap, and the diagnosis.
"""

import functools
import math
import random

from checkpoints import i18n
from checkpoints.attention.diagnose import pos_encoding_signature
from checkpoints.attention.probes import attempt
from checkpoints.attention.properties import leaks, renormalised
from checkpoints.compare import canonical, first_difference
from grading.judge.reference import reference

SEED = 20261129


said = i18n.speaker("judge")  # locales/<edition>.json, section "judge"


def matrix(rng, rows, cols, scale=1.0):
    """A rows × cols matrix of Gaussian values, mean 0, standard deviation scale."""
    return [[rng.gauss(0.0, scale) for _ in range(cols)] for _ in range(rows)]


def random_mask(rng, n_q, n_k):
    """A mask with at least one visible key per row (a fully hidden row has no softmax)."""
    rows = []
    for _ in range(n_q):
        row = [rng.random() < 0.6 for _ in range(n_k)]
        row[rng.randrange(n_k)] = True
        rows.append(row)
    return rows


def non_causal_mask(rng, n):
    """A random n × n mask, like random_mask, in which some query sees a later key.

    So it is neither the causal mask (nor inside it) and not all visible (which is no mask).
    """
    while True:
        mask = random_mask(rng, n, n)
        if any(mask[i][j] for i in range(n) for j in range(i + 1, n)) and not all(map(all, mask)):
            return mask


def causal(n):
    """The causal mask for n positions, as the reference builds it."""
    return reference().causal_mask(n)


def cases(checkpoint, count=16):
    """[(label, function, args, kwargs)]: random sizes, big values, masks, edge cases."""
    rng = random.Random(f"{SEED}:{checkpoint}")
    out = []
    for k in range(count):
        n, d = rng.randint(4, 8), rng.choice([8, 16, 32, 64])
        h = rng.choice([h for h in (1, 2, 4, 8) if d % h == 0])
        scale = 30.0 if k % 4 == 3 else 1.0  # every fourth case: large magnitudes
        if checkpoint == "softmax":
            out.append(("random", "softmax", [[rng.gauss(0, 10 * scale) for _ in range(n)]], {}))
        elif checkpoint == "attention":
            n_k, d_v = rng.randint(4, 8), rng.choice([8, 16])
            out.append(
                (
                    "random",
                    "attention",
                    [matrix(rng, n, d, scale), matrix(rng, n_k, d, scale), matrix(rng, n_k, d_v)],
                    {},
                )
            )
        elif checkpoint == "causal_mask":
            out.append(("mask", "causal_mask", [rng.randint(1, 12)], {}))
        elif checkpoint == "multi_head":
            mask = causal(n) if k % 2 else None
            out.append(
                (
                    "random",
                    "multi_head",
                    [matrix(rng, n, d, scale), matrix(rng, n, d, scale), matrix(rng, n, d), h],
                    {"mask": mask} if mask else {},
                )
            )
        elif checkpoint == "pos_encoding":
            out.append(
                ("shape", "pos_encoding", [rng.randint(1, 64), rng.choice([2, 4, 8, 16, 64])], {})
            )
        elif checkpoint == "layer_norm":
            out.append(
                (
                    "random",
                    "layer_norm",
                    [[rng.gauss(5.0, scale) for _ in range(d)]],
                    {"eps": rng.choice([1e-5, 1e-3, 0.5])} if k % 3 == 0 else {},
                )
            )
        elif checkpoint == "block":
            mask = causal(n) if k % 2 else None
            out.append(
                (
                    "random",
                    "block",
                    [matrix(rng, n, d, 3.0 * scale), h],
                    {"mask": mask} if mask else {},
                )
            )
    return out + non_causal_cases(checkpoint) + EDGES.get(checkpoint, [])


def non_causal_cases(checkpoint, count=8):
    """multi_head's and block's cases with a random non-causal mask, on their own seeded stream.

    (label, function, args, kwargs) as in cases(); [] for the other checkpoints. A stream of their
    own leaves every earlier case exactly as it was.
    """
    if checkpoint not in ("multi_head", "block"):
        return []
    rng = random.Random(f"{SEED}:{checkpoint}:non-causal")
    out = []
    for k in range(count):
        n, d = rng.randint(4, 8), rng.choice([8, 16, 32, 64])
        h = rng.choice([h for h in (1, 2, 4, 8) if d % h == 0])
        scale = 30.0 if k % 4 == 3 else 1.0  # every fourth case: large magnitudes
        mask = non_causal_mask(rng, n)
        if checkpoint == "multi_head":
            args = [matrix(rng, n, d, scale), matrix(rng, n, d, scale), matrix(rng, n, d), h]
        else:
            args = [matrix(rng, n, d, 3.0 * scale), h]
        out.append(("mask", checkpoint, args, {"mask": mask}))
    return out


# Checked by the properties every valid answer has (n × d, in [-1, 1], distinct rows), not against
# the reference's numbers: the course accepts any such encoding, as the lesson does.
BY_PROPERTIES = {"pos_encoding"}

EDGES = {
    "softmax": [
        ("edge", "softmax", [[3.0]], {}),
        ("edge", "softmax", [[2.5, 2.5, 2.5]], {}),
        ("edge", "softmax", [[-1000.0, -1001.0, -999.0]], {}),
        ("edge", "softmax", [[0.0, -math.inf, 1.0]], {}),
    ],
    "attention": [("edge", "attention", [[[0.5, -1.0]], [[1.0, 2.0]], [[3.0, 4.0, 5.0]]], {})],
    "causal_mask": [("edge", "causal_mask", [1], {})],
    "pos_encoding": [  # the sizes people forget: one position, odd and tiny widths
        ("edge", "pos_encoding", [1, 8], {}),
        ("edge", "pos_encoding", [7, 1], {}),
        ("edge", "pos_encoding", [5, 3], {}),
        ("edge", "pos_encoding", [12, 5], {}),
    ],
    "layer_norm": [
        ("edge", "layer_norm", [[7.0] * 6], {}),
        ("edge", "layer_norm", [[1.0, -1.0]], {}),
    ],
    "block": [("edge", "block", [[[1.0, 2.0, 3.0, 4.0]] * 3, 4], {})],
}


def masked_attention_cases():
    """[[Q, K, V, mask]]: 12 seeded inputs, causal masks (square) alternating with random ones."""
    rng = random.Random(f"{SEED}:masked")
    out = []
    for k in range(12):
        n_q, n_k, d = rng.randint(4, 8), rng.randint(4, 8), rng.choice([8, 16, 32])
        mask = causal(n_q) if k % 2 == 0 else random_mask(rng, n_q, n_k)
        n_k = n_q if k % 2 == 0 else n_k
        out.append([matrix(rng, n_q, d), matrix(rng, n_k, d), matrix(rng, n_k, 4), mask])
    return out


def judge_masking(model):
    """Masked attention equals the learner's own unmasked weights, restricted and renormalised."""
    failures = []
    inputs = masked_attention_cases()
    for Q, K, V, mask in inputs:
        got, plain = attempt(model.attention, Q, K, V, mask=mask), attempt(model.attention, Q, K, V)
        if isinstance(got, Exception) or isinstance(plain, Exception):
            kind = type(got if isinstance(got, Exception) else plain).__name__
            failures.append(said("raised", kind=kind))
            continue
        want_w = renormalised(plain[1], mask)
        want_out = [
            [sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in want_w
        ]
        found = first_difference(canonical(list(got)), [want_out, want_w])
        if found or leaks(got[1], mask):
            failures.append(_gap(found) if found else said("hidden_weight"))
    return len(inputs), failures


def _gap(found):
    path, got, want, why = found
    if isinstance(got, float) and isinstance(want, float):
        return said("differs_by", amount=f"{abs(got - want):.3g}")
    return why


@functools.cache
def answered_cases(checkpoint):
    """cases(checkpoint) with the reference's canonical answer to each: the same for everyone."""
    ref = reference()
    return [
        (label, function, args, kwargs, canonical(ref.__dict__[function](*args, **kwargs)))
        for label, function, args, kwargs in cases(checkpoint)
    ]


def copied(value):
    """A copy of nested lists and dicts: a learner function that edits its input edits only this."""
    if isinstance(value, list):
        return [copied(v) for v in value]
    if isinstance(value, dict):
        return {k: copied(v) for k, v in value.items()}
    return value


def judge(checkpoint, model):
    """(number of cases, [failure descriptions]) for one checkpoint."""
    total, failures = 0, []
    for label, function, args, kwargs, want in answered_cases(checkpoint):
        total += 1
        got = attempt(getattr(model, function), *copied(args), **copied(kwargs))
        if isinstance(got, Exception):
            kind = type(got).__name__
            failures.append(said("case_raised", case=said(f"case_{label}"), kind=kind))
            continue
        if checkpoint in BY_PROPERTIES:
            n, d = args
            if pos_encoding_signature(got) != [float(n), float(d), True, True]:
                failures.append(said("case_not_encoding", case=said(f"case_{label}")))
            continue
        found = first_difference(canonical(got), want)
        if found:
            failures.append(said("case_gap", case=said(f"case_{label}"), gap=_gap(found)))
    if checkpoint == "causal_mask":
        count, more = judge_masking(model)
        total, failures = total + count, failures + [said("masked", failure=m) for m in more]
    if checkpoint == "multi_head":
        total += 1
        err = attempt(model.multi_head, [[1.0] * 6], [[1.0] * 6], [[1.0] * 6], 4)
        if not isinstance(err, ValueError):
            failures.append(said("no_value_error"))
    return total, failures


def freshen(probe, rng):
    """The same kind of call on new inputs: floats moved by a*x + b (seeded), lengths grown.

    Shapes, masks and head counts stay, so every property the visible check states still applies;
    the expected answers come from the reference.
    """
    a, b = rng.uniform(0.8, 1.25), rng.uniform(-1.0, 1.0)

    def move(value):
        if isinstance(value, bool):
            return value
        if isinstance(value, float):
            return a * value + b
        if isinstance(value, list):
            return [move(v) for v in value]
        return value

    args = [move(v) for v in probe.args]
    if probe.function in ("causal_mask", "pos_encoding"):  # the first argument is a length
        args[0] += rng.randint(1, 3)
    return probe.but(args=args, kwargs={k: move(v) for k, v in probe.kwargs.items()})


def fresh_probes(checkpoint):
    """{checkpoint: [probes]}: the visible probes, with this checkpoint's on fresh seeded inputs."""
    from checkpoints.attention.probes import PROBES

    rng = random.Random(f"{SEED}:fresh:{checkpoint}")
    return {**PROBES, checkpoint: [freshen(p, rng) for p in PROBES[checkpoint]]}
