"""The visible checks of each checkpoint: properties and known answers, no solution code.

Each `check_<name>(model)` takes a module holding the learner's functions and returns a Report.
"""

import math

from .compare import brief, canonical, close, describe_path, first_difference, shape
from .diagnose import diagnose, expected, load_fingerprints, probe_signatures, signature
from .hints import HINTS
from .pictures import show_attention, show_bars, show_encoding
from .probes import PROBES, call
from .report import Check, Report


def _failure(value):
    """For a call that raised: the exception, the line of model.py and the call; else None."""
    if not isinstance(value, BaseException):
        return None
    line = getattr(value, "model_line", None)
    where = f" at model.py line {line}" if line else ""
    called = getattr(value, "called", None)
    return f"raised {type(value).__name__}: {value}{where}" + (f", in {called}" if called else "")


def answer_check(what, got, want, hint, names=("row", "column")):
    """A known-answer check: passes when got matches want to 1e-6, else shows where they part."""
    if _failure(got):
        return Check(
            what, False, got=_failure(got)
        )  # a crash: its line and input, no unrelated hint
    found = first_difference(canonical(got), want)
    if found is None:
        return Check(what, True)
    path, got_part, want_part, why = found
    row = (
        path[:1] if len(names) > 1 else ()
    )  # a matrix shows its first differing row, a vector all of it
    shown_got = (
        brief(canonical(got)[row[0]])
        if row and isinstance(canonical(got), list)
        else brief(canonical(got))
    )
    shown_want = brief(want[row[0]]) if row else brief(want)
    where = f"{describe_path(path, names)}: {brief(got_part)} vs {brief(want_part)} ({why})"
    if row:
        shown_got, shown_want = (
            f"{names[0]} {row[0]}: {shown_got}",
            f"{names[0]} {row[0]}: {shown_want}",
        )
    return Check(what, False, got=shown_got, expected=shown_want, where=where, hint=hint)


def property_check(what, holds, got=None, expected=None, hint=None):
    """A property check; when the call crashed, the report shows the crash and no unrelated hint."""
    crashed = isinstance(got, str) and got.startswith("raised ")
    return Check(
        what,
        bool(holds),
        got=None if holds else got,
        expected=None if holds else expected,
        hint=None if holds or crashed else hint,
    )


def probe(name, probe_id):
    return next(p for p in PROBES[name] if p.id == probe_id)


def is_matrix(value, rows=None, cols=None):
    s = shape(value)
    return len(s) == 2 and (rows is None or s[0] == rows) and (cols is None or s[1] == cols)


def rows_sum_to_one(weights):
    return is_matrix(weights) and all(abs(sum(row) - 1.0) <= 1e-9 for row in weights)


def picture_of(draw, value):
    """A picture of the learner's own value, or None when the value cannot be drawn."""
    if _failure(value) or not is_matrix(value) and shape(value) == ():
        return None
    try:
        return draw(canonical(value))
    except Exception:  # ragged rows, text, None…: the checks above already say what is wrong
        return None


def finish(title, checkpoint, model, checks, fingerprints, picture=None):
    """Attach the diagnosis (only when something failed) and build the report."""
    report = Report(title, checks, picture=picture, name=checkpoint)
    if not report.passed:
        report.diagnosis = diagnose(checkpoint, probe_signatures(checkpoint, model), fingerprints)
    return report


# ── step 1 ──
def check_softmax(model, fingerprints=None):
    fp = fingerprints or load_fingerprints()
    small, large = probe("softmax", "softmax.small"), probe("softmax", "softmax.large")
    got_small, got_large = call(model, small), call(model, large)
    shifted = call(model, small._replace(args=[[x + 100.0 for x in small.args[0]]]))
    checks = [
        property_check(
            "returns a list as long as its input ([0.5, -1, 2, 0] → 4 numbers)",
            not _failure(got_small) and shape(got_small) == (4,),
            got=_failure(got_small) or brief(got_small),
            expected="4 numbers",
            hint=HINTS["softmax.length"],
        ),
        property_check(
            "sums to 1",
            not _failure(got_small) and abs(sum(got_small) - 1.0) <= 1e-9,
            got=_failure(got_small) or f"sum {sum(got_small) if shape(got_small) else got_small!r}",
            expected="sum 1.0",
            hint=HINTS["softmax.sum"],
        ),
        property_check(
            "no overflow: [1000, 1001, 1002] gives finite values that sum to 1",
            not _failure(got_large)
            and shape(got_large) == (3,)
            and all(math.isfinite(v) for v in got_large)
            and abs(sum(got_large) - 1.0) <= 1e-9,
            got=_failure(got_large) or brief(got_large),
            expected=brief(expected("softmax", large.id, fp)),
            hint=HINTS["softmax.overflow"],
        ),
        answer_check(
            "adding 100 to every input changes nothing",
            shifted,
            canonical(got_small) if not _failure(got_small) else expected("softmax", small.id, fp),
            hint=HINTS["softmax.shift"],
            names=("item",),
        ),
    ]
    for p in PROBES["softmax"]:
        checks.append(
            answer_check(
                f"known answer for softmax({brief(p.args[0])})",
                call(model, p),
                expected("softmax", p.id, fp),
                names=("item",),
                hint=HINTS["softmax.answer"],
            )
        )
    return finish("softmax", "softmax", model, checks, fp)


# ── step 2 ──
def check_attention(model, fingerprints=None):
    fp = fingerprints or load_fingerprints()
    rect = probe("attention", "attention.rect")
    got = call(model, rect)
    pair = isinstance(got, (tuple, list)) and len(got) == 2 and all(is_matrix(x) for x in got)
    out, weights = got if pair else (None, None)
    checks = [
        property_check(
            "returns the pair (out, weights)",
            pair,
            got=_failure(got) or f"a value of shape {shape(got)}",
            expected="(out, weights)",
            hint=HINTS["attention.pair"],
        ),
        property_check(
            "out is n_q × d_v (3 × 6) and weights n_q × n_k (3 × 5) for Q 3×4, K 5×4, V 5×6",
            pair and shape(out) == (3, 6) and shape(weights) == (3, 5),
            got=f"out {shape(out)}, weights {shape(weights)}" if pair else _failure(got),
            expected="out (3, 6), weights (3, 5)",
            hint=HINTS["attention.shapes"],
        ),
        property_check(
            "each row of weights sums to 1",
            pair and rows_sum_to_one(weights),
            got=brief([sum(r) for r in weights]) if pair else _failure(got),
            expected="[1.0, 1.0, 1.0]",
            hint=HINTS["attention.rows"],
        ),
    ]
    for p in PROBES["attention"]:
        want_out, want_w = expected("attention", p.id, fp)
        got = call(model, p)
        got_out, got_w = got if isinstance(got, (tuple, list)) and len(got) == 2 else (got, got)
        dims = f"Q {shape(p.args[0])[0]}×{shape(p.args[0])[1]}, K {shape(p.args[1])[0]}×{shape(p.args[1])[1]}"
        checks.append(
            answer_check(f"known weights ({dims})", got_w, want_w, hint=HINTS["attention.weights"])
        )
        checks.append(
            answer_check(
                f"known output ({dims})", got_out, want_out, hint=HINTS["attention.output"]
            )
        )
    square = call(model, probe("attention", "attention.square"))
    weights = square[1] if isinstance(square, (tuple, list)) and len(square) == 2 else square
    return finish(
        "attention",
        "attention",
        model,
        checks,
        fp,
        picture_of(lambda w: show_attention(w, "your weights, 4 queries × 4 keys"), weights),
    )


# ── step 3 ──
def check_causal_mask(model, fingerprints=None):
    fp = fingerprints or load_fingerprints()
    checks = [
        answer_check(
            f"causal_mask({p.args[0]}) is true exactly where i >= j",
            call(model, p),
            expected("causal_mask", p.id, fp),
            hint=HINTS["mask.values"],
        )
        for p in PROBES["causal_mask"]
        if p.function == "causal_mask"
    ]
    for p in PROBES["causal_mask"]:
        if p.function != "attention":
            continue
        mask = p.kwargs["mask"]
        got = call(model, p)
        plain = call(model, p._replace(kwargs={}))
        ok = (
            isinstance(got, (tuple, list))
            and len(got) == 2
            and is_matrix(got[1], len(mask), len(mask[0]))
            and isinstance(plain, (tuple, list))
            and len(plain) == 2
            and is_matrix(plain[1])
        )
        weights = got[1] if ok else None
        hidden = [(i, j) for i, row in enumerate(mask) for j, keep in enumerate(row) if not keep]
        # exactly zero is the contract: exp(-inf) is 0.0, and so is exp of any huge negative score
        leaks = [(i, j, weights[i][j]) for i, j in hidden if weights[i][j] != 0.0] if ok else []
        label = "causal" if p.id.endswith("attend") else "patchy"
        checks.append(
            property_check(
                f"with a {label} mask, hidden weights are exactly 0",
                ok and not leaks,
                got=(
                    _failure(got)
                    or (
                        f"weights[{leaks[0][0]}][{leaks[0][1]}] = {leaks[0][2]:.6g}"
                        if leaks
                        else f"a value of shape {shape(got)}"
                    )
                ),
                expected="0.0",
                hint=HINTS["mask.zeros"],
            )
        )
        checks.append(
            property_check(
                f"with a {label} mask, each row of weights still sums to 1",
                ok and rows_sum_to_one(weights),
                got=brief([sum(r) for r in weights]) if ok else _failure(got),
                expected="all 1.0",
                hint=HINTS["mask.rows"],
            )
        )
        if ok:
            renormalised = [
                [w if keep else 0.0 for w, keep in zip(row, mrow)]
                for row, mrow in zip(plain[1], mask)
            ]
            renormalised = [[w / sum(row) for w in row] for row in renormalised]
            checks.append(
                answer_check(
                    f"with a {label} mask, the visible weights keep their unmasked proportions",
                    weights,
                    renormalised,
                    hint=HINTS["mask.proportions"],
                )
            )
    masked = call(model, probe("causal_mask", "causal_mask.attend"))
    weights = masked[1] if isinstance(masked, (tuple, list)) and len(masked) == 2 else masked
    return finish(
        "causal mask",
        "causal_mask",
        model,
        checks,
        fp,
        picture_of(lambda w: show_attention(w, "your weights with causal_mask(4)"), weights),
    )


# ── step 4 ──
def check_multi_head(model, fingerprints=None):
    fp = fingerprints or load_fingerprints()
    one = probe("multi_head", "multi_head.h1")
    two = probe("multi_head", "multi_head.h2")
    got_two = call(model, two)
    alone = call(model, one)
    att = call(model, one._replace(function="attention", args=one.args[:3]))
    att_out = att[0] if isinstance(att, (tuple, list)) and len(att) == 2 else att
    bad_split = call(model, two._replace(args=two.args[:3] + [3]))
    Q, K, V = two.args[:3]
    changed = [[r[:4] + [x + 1.0 for x in r[4:]] for r in M] for M in (Q, K, V)]
    moved = call(model, two._replace(args=changed + [2]))
    checks = [
        property_check(
            "output is n × d (4 × 8 for h = 2)",
            shape(got_two) == (4, 8),
            got=_failure(got_two) or str(shape(got_two)),
            expected="(4, 8)",
            hint=HINTS["heads.shape"],
        ),
        answer_check(
            "h = 1 gives exactly attention(Q, K, V)[0]",
            alone,
            canonical(att_out) if not _failure(att_out) else expected("multi_head", one.id, fp),
            hint=HINTS["heads.one"],
        ),
        property_check(
            "d = 8, h = 3 raises ValueError",
            isinstance(bad_split, ValueError),
            got=_failure(bad_split) or "no error",
            expected="ValueError",
            hint=HINTS["heads.split"],
        ),
        property_check(
            "changing head 1's features (columns 4-7) leaves head 0's output columns 0-3 alone (h = 2)",
            shape(moved) == (4, 8)
            and shape(got_two) == (4, 8)
            and close([r[:4] for r in canonical(moved)], [r[:4] for r in canonical(got_two)]),
            got="head 0's columns changed",
            expected="columns 0-3 unchanged",
            hint=HINTS["heads.independent"],
        ),
    ]
    for p in PROBES["multi_head"]:
        checks.append(
            answer_check(
                f"known output for h = {p.args[3]}" + (" with a causal mask" if p.kwargs else ""),
                call(model, p),
                expected("multi_head", p.id, fp),
                hint=HINTS["heads.answer"],
            )
        )
    return finish("multi-head attention", "multi_head", model, checks, fp)


# ── step 5 ──
def check_pos_encoding(model, fingerprints=None):
    fp = fingerprints or load_fingerprints()
    checks = []
    for p in PROBES["pos_encoding"][:2]:
        n, d = p.args
        got = call(model, p)
        sig = signature("pos_encoding", got)
        checks += [
            property_check(
                f"pos_encoding({n}, {d}) is {n} × {d}",
                is_matrix(got, n, d),
                got=_failure(got) or str(shape(got)),
                expected=f"({n}, {d})",
                hint=HINTS["pe.shape"],
            ),
            property_check(
                f"pos_encoding({n}, {d}): every value lies in [-1, 1]",
                isinstance(sig, list) and sig[2],
                got="a value outside [-1, 1]",
                expected="all within [-1, 1]",
                hint=HINTS["pe.range"],
            ),
            property_check(
                f"pos_encoding({n}, {d}): no two positions share a row",
                isinstance(sig, list) and sig[3],
                got="two equal rows",
                expected="all rows different",
                hint=HINTS["pe.distinct"],
            ),
        ]
    pattern = call(model, probe("pos_encoding", "pos_encoding.50x16"))
    return finish(
        "positional encoding",
        "pos_encoding",
        model,
        checks,
        fp,
        picture_of(lambda m: show_encoding(m, "your pos_encoding(50, 16)"), pattern),
    )


# ── step 6 ──
def check_layer_norm(model, fingerprints=None):
    fp = fingerprints or load_fingerprints()
    row = probe("layer_norm", "layer_norm.row")
    got = call(model, row)
    ok = shape(got) == (len(row.args[0]),) and not _failure(got)
    mean = sum(got) / len(got) if ok else None
    var = sum((x - mean) ** 2 for x in got) / len(got) if ok else None
    const = call(model, probe("layer_norm", "layer_norm.constant"))
    checks = [
        property_check(
            "returns a vector as long as its input",
            ok,
            got=_failure(got) or str(shape(got)),
            expected=f"({len(row.args[0])},)",
            hint=HINTS["ln.length"],
        ),
        property_check(
            "the result has mean 0",
            ok and abs(mean) <= 1e-9,
            got=f"mean {mean}" if ok else _failure(got),
            expected="mean 0",
            hint=HINTS["ln.mean"],
        ),
        property_check(
            "the result has variance 1 (population variance, up to eps)",
            ok and abs(var - 1.0) <= 1e-4,
            got=f"variance {var}" if ok else _failure(got),
            expected="variance ≈ 1",
            hint=HINTS["ln.variance"],
        ),
        answer_check(
            "a constant vector gives zeros (no division by zero)",
            const,
            [0.0] * 4,
            names=("item",),
            hint=HINTS["ln.constant"],
        ),
    ]
    for p in PROBES["layer_norm"]:
        label = f"layer_norm({brief(p.args[0])}" + (
            f", eps={p.kwargs['eps']})" if p.kwargs else ")"
        )
        checks.append(
            answer_check(
                f"known answer for {label}",
                call(model, p),
                expected("layer_norm", p.id, fp),
                names=("item",),
                hint=HINTS["ln.answer"],
            )
        )
    picture = picture_of(lambda v: show_bars({"row": row.args[0], "your layer_norm(row)": v}), got)
    return finish("layer norm", "layer_norm", model, checks, fp, picture)


# ── step 7 ──
def check_block(model, fingerprints=None):
    fp = fingerprints or load_fingerprints()
    masked = probe("block", "block.h4_masked")
    got = call(model, masked)
    X = masked.args[0]
    nudged = X[:-1] + [[x + 1.0 for x in X[-1]]]
    moved = call(model, masked._replace(args=[nudged, 4]))
    checks = [
        property_check(
            "output has the input's shape (5 × 8)",
            shape(got) == shape(X),
            got=_failure(got) or str(shape(got)),
            expected=str(shape(X)),
            hint=HINTS["block.shape"],
        ),
        property_check(
            "with a causal mask, changing the last position leaves the earlier rows alone",
            shape(moved) == shape(X)
            and shape(got) == shape(X)
            and close(canonical(moved)[:-1], canonical(got)[:-1]),
            got="an earlier row changed",
            expected="rows 0-3 unchanged",
            hint=HINTS["block.causal"],
        ),
    ]
    for p in PROBES["block"]:
        checks.append(
            answer_check(
                f"known output for X {shape(p.args[0])[0]}×{shape(p.args[0])[1]}, "
                f"h = {p.args[1]}" + (" with a causal mask" if p.kwargs else ""),
                call(model, p),
                expected("block", p.id, fp),
                hint=HINTS["block.answer"],
            )
        )
    return finish("transformer block", "block", model, checks, fp)


# The earlier steps each checkpoint's function calls: a failure there shows up here too.
USES = {
    "softmax": [],
    "attention": ["softmax"],
    "causal_mask": ["softmax"],
    "multi_head": ["softmax", "attention"],
    "pos_encoding": [],
    "layer_norm": [],
    "block": ["softmax", "attention", "multi_head", "layer_norm"],
}

CHECKS = {
    "softmax": check_softmax,
    "attention": check_attention,
    "causal_mask": check_causal_mask,
    "multi_head": check_multi_head,
    "pos_encoding": check_pos_encoding,
    "layer_norm": check_layer_norm,
    "block": check_block,
}
