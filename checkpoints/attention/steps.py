"""The visible checks of each checkpoint: properties and known answers, no solution code.

`CHECKS[name](model)` runs one checkpoint on a module holding the learner's functions and returns
a Report. Each checkpoint is a short list of named checks. A name keys what the check claims
(claims.py) and its hints (hints.py); the predicates are in properties.py, the inputs in probes.py.
"""

from .. import i18n
from ..compare import brief, canonical, close, describe_path, first_difference, shape
from ..hints import HINTS
from ..pictures import show_attention, show_bars, show_encoding
from ..report import Check, Report
from .claims import CLAIMS
from .diagnose import diagnose, expected, load_fingerprints, probe_signatures, signature
from .probes import PROBES, call
from .properties import (
    all_finite,
    crashed,
    is_matrix,
    is_pair,
    leaks,
    mean,
    pair_part,
    proportions,
    renormalised,
    rows_sum_to_one,
    sums_to_one,
    variance,
)

say = i18n.speaker("steps")  # locales/<edition>.json, section "steps"


# ── the three kinds of check ──


def crash_text(value):
    """For a call that raised: the exception, the line of model.py and the call; else None."""
    if not crashed(value):
        return None
    line = getattr(value, "model_line", None)
    called = getattr(value, "called", None)
    name = "crash" + ("_at_line" if line else "") + ("_in_call" if called else "")
    return say(name, error=type(value).__name__, message=value, line=line, called=called)


def _try(fn, value, fallback=None):
    """fn(value), or fallback when the learner's value is not of the kind fn reads."""
    try:
        return fn(value)
    except Exception:  # ragged rows, text, None…: the failing check already says what is wrong
        return fallback


def holds(name, value, predicate, expected=None, shown=brief, **fields):
    """A property of the learner's value. A crash shows the exception, its line and the call,
    with the property's hints in tiers, as any ✗ does."""
    what = CLAIMS[name].format(**fields)
    if crashed(value):
        return Check(
            what, False, got=crash_text(value), expected=expected, hint=HINTS[name], id=name
        )
    if _try(predicate, value, False):
        return Check(what, True, id=name)
    return Check(what, False, got=_try(shown, value), expected=expected, hint=HINTS[name], id=name)


def raises(name, value, kind, **fields):
    """A call that must raise `kind`: the one check where an exception is the right answer."""
    what = CLAIMS[name].format(**fields)
    if isinstance(value, kind):
        return Check(what, True, id=name)
    got = crash_text(value) or say("no_error")
    return Check(what, False, got=got, expected=kind.__name__, hint=HINTS[name], id=name)


def answer(name, got, want, names=("row", "column"), **fields):
    """A known answer to 1e-6: a matrix shows its first differing row, a vector all of it."""
    what = CLAIMS[name].format(**fields)
    if crashed(got):
        return Check(what, False, got=crash_text(got), hint=HINTS[name], id=name)
    got = canonical(got)
    found = first_difference(got, want)
    if found is None:
        return Check(what, True, id=name)
    path, got_part, want_part, why = found
    mine, theirs = brief(got), brief(want)
    if path and len(names) > 1 and isinstance(got, list):
        row = path[0]
        position = describe_path(path[:1], names)  # "row 2"
        mine = say("at_position", position=position, value=brief(got[row]))
        theirs = say("at_position", position=position, value=brief(want[row]))
    where = say("difference", path=describe_path(path, names), got=brief(got_part),
                want=brief(want_part), why=why)  # fmt: skip
    return Check(what, False, got=mine, expected=theirs, where=where, hint=HINTS[name], id=name)


def picture_of(draw, value):
    """A picture of the learner's own value, or None when the value cannot be drawn."""
    if crashed(value) or not is_matrix(value) and shape(value) == ():
        return None
    return _try(lambda v: draw(canonical(v)), value)


class Run:
    """One checkpoint's calls on the learner's model: probes, known answers, and the report."""

    def __init__(self, model, checkpoint, fingerprints=None, probes=None):
        self.model, self.checkpoint = model, checkpoint
        self.fingerprints = fingerprints or load_fingerprints()
        self.probes = {p.id: p for p in (probes or PROBES)[checkpoint]}

    def __call__(self, probe_id, **changes):
        """The learner's answer on one probe, or on the same probe with some fields changed."""
        return call(self.model, self.probes[probe_id].but(**changes))

    def args(self, probe_id):
        """The arguments a probe passes."""
        return self.probes[probe_id].args

    def want(self, probe_id):
        """The correct answer stored for a probe."""
        return expected(self.checkpoint, probe_id, self.fingerprints)

    def own_or_want(self, value, probe_id):
        """The learner's own answer as the reference for a property (else the stored answer)."""
        return self.want(probe_id) if crashed(value) else canonical(value)

    def known_answers(self, name, fields, part=None, function=None, names=("row", "column")):
        """One known-answer check per probe (of one function, if named; of a pair's part)."""
        chosen = [
            p for p in self.probes.values() if function in (None, p.function) and not p.serves
        ]
        return [
            answer(name, pick(call(self.model, p), part), pick(self.want(p.id), part), names,
                   **fields(p))
            for p in chosen
        ]  # fmt: skip

    def report(self, title, checks, picture=None):
        """The Report, with the diagnosis attached only when something failed."""
        report = Report(title, checks, picture=picture, name=self.checkpoint)
        if report.passed:
            return report
        answers = probe_signatures(self.checkpoint, self.model, list(self.probes.values()))
        return report.but(diagnosis=diagnose(self.checkpoint, answers, self.fingerprints))


def pick(value, part):
    """The whole value, or one part of a pair."""
    return value if part is None else pair_part(value, part)


def sizes(matrix):
    """ "3×4"."""
    return "×".join(map(str, shape(matrix)))


def with_mask(probe):
    """How a check label says that a probe passes a mask: a causal one, or another (patchy)."""
    mask = probe.kwargs.get("mask")
    if mask is None:
        return ""
    causal = [[i >= j for j in range(len(row))] for i, row in enumerate(mask)]
    return say("with_causal_mask") if mask == causal else say("with_patchy_mask")


# ── what the checks show and fill in ──


def shape_text(v):
    """ "(4, 8)": the shape of what the learner returned."""
    return str(shape(v))


def row_sums(weights):
    """Σ_j weights[i][j] for each row i."""
    return brief([sum(row) for row in weights])


def sum_shown(v):
    """ "sum 1.23", or the value itself when it has no sum."""
    return say("sum", total=sum(v) if shape(v) else repr(v))


def qk_sizes(p):
    """The sizes of Q and K in an attention probe."""
    return {"q": sizes(p.args[0]), "k": sizes(p.args[1])}


def head_0(M):
    """Output columns 0-3: head 0's part of a d = 8, h = 2 result."""
    return [r[:4] for r in canonical(M)]


def ln_fields(p):
    """The row and any eps of a layer-norm probe."""
    return {"row": brief(p.args[0]), "eps": "".join(f", eps={e}" for e in p.kwargs.values())}


def all_but_last(M):
    """Every row but the last: the positions before the one that changed."""
    return canonical(M)[:-1]


def block_fields(p):
    """The size of X, h and the mask of a block probe."""
    return {"x": sizes(p.args[0]), "h": p.args[1], "masked": with_mask(p)}


# ── step 1 ──
def check_softmax(model, fingerprints=None, probes=None):
    """softmax: one weight per input, sums to 1, no overflow, shift-invariant, known answers."""
    run = Run(model, "softmax", fingerprints, probes)
    small, large = run("softmax.small"), run("softmax.large")
    shifted = run("softmax.small", args=[[x + 100.0 for x in run.args("softmax.small")[0]]])
    return run.report(say("title_softmax"), [
        holds("softmax.length", small, lambda v: shape(v) == (4,), say("numbers", count=4)),
        holds("softmax.sum", small, sums_to_one, say("sum", total=1.0), shown=sum_shown),
        holds("softmax.overflow", large, lambda v: shape(v) == (3,) and all_finite(v)
              and sums_to_one(v), brief(run.want("softmax.large"))),
        answer("softmax.shift", shifted, run.own_or_want(small, "softmax.small"), ("item",)),
        *run.known_answers("softmax.answer", lambda p: {"xs": brief(p.args[0])}, names=("item",)),
    ])  # fmt: skip


# ── step 2 ──
def check_attention(model, fingerprints=None, probes=None):
    """attention: the pair (out, weights), their shapes, rows that sum to 1, known answers."""
    run = Run(model, "attention", fingerprints, probes)
    rect = run("attention.rect")
    square = pair_part(run("attention.square"), 1)
    return run.report(say("title_attention"), [
        holds("attention.pair", rect, is_pair, "(out, weights)",
              shown=lambda v: say("value_of_shape", shape=shape(v))),
        holds("attention.shapes", rect, lambda v: is_pair(v) and shape(v[0]) == (3, 6)
              and shape(v[1]) == (3, 5), "out (3, 6), weights (3, 5)",
              shown=lambda v: f"out {shape(v[0])}, weights {shape(v[1])}" if is_pair(v) else None),
        holds("attention.rows", rect, lambda v: is_pair(v) and rows_sum_to_one(v[1]),
              "[1.0, 1.0, 1.0]", shown=lambda v: row_sums(v[1]) if is_pair(v) else None),
        *interleave(run.known_answers("attention.weights", qk_sizes, part=1),
                    run.known_answers("attention.output", qk_sizes, part=0)),
    ], picture_of(lambda w: show_attention(w, say("picture_weights")), square))  # fmt: skip


def interleave(*lists):
    """[a1, b1, a2, b2, …]: each probe's checks side by side."""
    return [item for group in zip(*lists) for item in group]


# ── step 3 ──
def check_causal_mask(model, fingerprints=None, probes=None):
    """causal_mask: the lower triangle; attention with a mask: exact zeros, same proportions."""
    run = Run(model, "causal_mask", fingerprints, probes)
    checks = run.known_answers("mask.values", lambda p: {"n": p.args[0]}, function="causal_mask")
    for p in run.probes.values():
        if p.function == "attention":
            label = say("mask_causal") if p.id.endswith("attend") else say("mask_patchy")
            checks += masked_attention_checks(run, p.id, p.kwargs["mask"], label)
    weights = pair_part(run("causal_mask.attend"), 1)
    picture = picture_of(lambda w: show_attention(w, say("picture_masked_weights")), weights)
    return run.report(say("title_causal_mask"), checks, picture)


def masked_attention_checks(run, probe_id, mask, label):
    """Hidden weights exactly 0, rows still sum to 1, visible weights keep their proportions."""
    got, plain = run(probe_id), run(probe_id, kwargs={})
    ok = is_pair(got) and is_matrix(got[1], len(mask), len(mask[0])) and is_pair(plain)
    weights = got[1] if ok else got
    first_leak = "weights[{}][{}] = {:.6g}".format  # an expression, the same in every edition
    shape_of_got = say("value_of_shape", shape=shape(got))
    checks = [
        holds("mask.zeros", weights, lambda w: ok and not leaks(w, mask), "0.0", label=label,
              shown=lambda w: first_leak(*leaks(w, mask)[0]) if ok else shape_of_got),
        holds("mask.rows", weights, lambda w: ok and rows_sum_to_one(w), say("all_one"),
              label=label, shown=lambda w: row_sums(w) if ok else None),
    ]  # fmt: skip
    if ok:
        want = renormalised(plain[1], mask)  # only the ratios: the row sums are mask.rows' check
        checks.append(
            answer(
                "mask.proportions",
                _try(lambda w: proportions(canonical(w), mask), weights, weights),
                want,
                label=label,
            )
        )
    return checks


# ── step 4 ──
def check_multi_head(model, fingerprints=None, probes=None):
    """multi_head: shape, h = 1 is attention, d % h raises, heads independent, known answers."""
    run = Run(model, "multi_head", fingerprints, probes)
    two, Q_K_V = run("multi_head.h2"), run.args("multi_head.h2")[:3]
    h1_as_attention = {"function": "attention", "args": run.args("multi_head.h1")[:3]}
    alone = pair_part(run("multi_head.h1", **h1_as_attention), 0)
    head_1_moved = [[r[:4] + [x + 1.0 for x in r[4:]] for r in M] for M in Q_K_V]
    return run.report(say("title_multi_head"), [
        holds("heads.shape", two, lambda v: shape(v) == (4, 8), "(4, 8)", shown=shape_text),
        answer("heads.one", run("multi_head.h1"), run.own_or_want(alone, "multi_head.h1")),
        raises("heads.split", run("multi_head.h2", args=Q_K_V + [3]), ValueError),
        holds("heads.independent", run("multi_head.h2", args=head_1_moved + [2]),
              lambda v: shape(v) == shape(two) == (4, 8) and close(head_0(v), head_0(two)),
              say("columns_unchanged"), shown=lambda v: say("head_0_changed")),
        *run.known_answers("heads.answer", lambda p: {"h": p.args[3], "masked": with_mask(p)}),
    ])  # fmt: skip


# ── step 5 ──
def check_pos_encoding(model, fingerprints=None, probes=None):
    """pos_encoding: n × d, every value in [-1, 1], every position's row different."""
    run = Run(model, "pos_encoding", fingerprints, probes)
    checks = [
        check
        for probe_id in ("pos_encoding.6x8", "pos_encoding.50x16")
        for check in encoding_checks(run(probe_id), *run.args(probe_id))
    ]
    checks.append(
        forgotten_shapes(run, ("pos_encoding.7x5", "pos_encoding.4x1", "pos_encoding.1x6"))
    )
    pattern = run("pos_encoding.50x16")
    picture = picture_of(lambda m: show_encoding(m, say("picture_encoding")), pattern)
    return run.report(say("title_pos_encoding"), checks, picture)


def forgotten_shapes(run, probe_ids):
    """The shapes people forget (d odd, d = 1, one position): n × d, in range, rows distinct."""
    sizes = [tuple(run.args(p)) for p in probe_ids]
    what = CLAIMS["pe.small"].format(sizes=", ".join(f"({n}, {d})" for n, d in sizes))
    for probe_id, (n, d) in zip(probe_ids, sizes):
        got = run(probe_id)
        facts = _try(lambda v: signature("pos_encoding", v), got, {})  # [n, d, in range, distinct]
        in_range, distinct = facts[2:] if isinstance(facts, list) else (False, False)
        if crashed(got) or not is_matrix(got, n, d) or not (in_range and distinct):
            mine = crash_text(got) or (
                shape_text(got)
                if not is_matrix(got, n, d)
                else say("value_out_of_range" if not in_range else "two_rows_equal")
            )
            return Check(what, False, got=f"pos_encoding({n}, {d}): {mine}",
                         expected=f"({n}, {d})", hint=HINTS["pe.small"], id="pe.small")  # fmt: skip
    return Check(what, True, id="pe.small")


def encoding_checks(got, n, d):
    """n × d, every value in [-1, 1], no two rows alike."""
    facts = _try(lambda v: signature("pos_encoding", v), got)  # [n, d, in range, distinct]
    return [
        holds("pe.shape", got, lambda v: is_matrix(v, n, d), f"({n}, {d})", shown=shape_text,
              n=n, d=d),
        holds("pe.range", got, lambda v: facts[2], say("all_in_range"),
              shown=lambda v: say("value_out_of_range"), n=n, d=d),
        holds("pe.distinct", got, lambda v: facts[3], say("rows_all_different"),
              shown=lambda v: say("two_rows_equal"), n=n, d=d),
    ]  # fmt: skip


# ── step 6 ──
def check_layer_norm(model, fingerprints=None, probes=None):
    """layer_norm: same length, mean 0, variance 1, zeros for a constant vector, known answers."""
    run = Run(model, "layer_norm", fingerprints, probes)
    row = run.args("layer_norm.row")[0]
    got, n = run("layer_norm.row"), (len(row),)
    picture = picture_of(lambda v: show_bars({"row": row, say("picture_layer_norm"): v}), got)
    return run.report(say("title_layer_norm"), [
        holds("ln.length", got, lambda v: shape(v) == n, f"{n}", shown=shape_text),
        holds("ln.mean", got, lambda v: shape(v) == n and abs(mean(v)) <= 1e-9,
              say("mean", value=0),
              shown=lambda v: say("mean", value=mean(v)) if shape(v) == n else None),
        holds("ln.variance", got, lambda v: shape(v) == n and abs(variance(v) - 1.0) <= 1e-4,
              say("variance_about_one"),
              shown=lambda v: say("variance", value=variance(v)) if shape(v) == n else None),
        answer("ln.constant", run("layer_norm.constant"), [0.0] * 4, ("item",)),
        *run.known_answers("ln.answer", ln_fields, names=("item",)),
    ], picture)  # fmt: skip


# ── step 7 ──
def check_block(model, fingerprints=None, probes=None):
    """block: keeps the input's shape, is causal under a causal mask, known answers."""
    run = Run(model, "block", fingerprints, probes)
    X, h = run.args("block.h4_masked")
    got = run("block.h4_masked")
    last_nudged = run("block.h4_masked", args=[X[:-1] + [[x + 1.0 for x in X[-1]]], h])
    return run.report(say("title_block"), [
        holds("block.shape", got, lambda v: shape(v) == shape(X), str(shape(X)),
              shown=shape_text),
        holds("block.causal", last_nudged, lambda v: shape(v) == shape(got) == shape(X)
              and close(all_but_last(v), all_but_last(got)), say("rows_unchanged"),
              shown=lambda v: say("earlier_row_changed")),
        *run.known_answers("block.answer", block_fields),
    ])  # fmt: skip


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
