"""The mistakes' properties (checkpoints/attention/detectors.py): every catalogued mistake, in
every spelling, shows its own property and no other of its checkpoint's; the reference shows
none; a mistake written with a second slip beside it (another ε, another fill value, another
scale) is still named, and named separately from the slip when the slip has a name too."""

import pytest

from checkpoints.attention import detectors
from checkpoints.attention.catalogue import BY_NAME, MISTAKES
from checkpoints.attention.diagnose import diagnose, load_fingerprints, probe_signatures
from checkpoints.attention.steps import CHECKS
from grading.authoring.mistakes import BOTH, SPELLINGS, buggy_source, replace_functions
from grading.judge.reference import load_source_module, reference_source

CODED = [(m.name, 0) for m in MISTAKES] + [
    (name, i) for name, more in SPELLINGS.items() for i in range(1, len(more) + 1)
] + [(name, 0) for name in BOTH]  # fmt: skip


def checkpoint_of(name):
    """The checkpoint that spots a mistake, or a pair of them."""
    return BY_NAME[name.split("+")[0]].checkpoint


def signatures_of(source, checkpoint):
    """{probe id: signature} of a model.py's answers on one checkpoint's probes."""
    return probe_signatures(checkpoint, load_source_module(source, "detected", "<detected>"))


@pytest.mark.parametrize(("name", "spelling"), CODED)
def test_a_catalogued_mistake_shows_its_own_property_and_no_other(name, spelling):
    """Where a detector reads the mistake's checkpoint, it finds exactly the mistake's names
    among those it knows."""
    checkpoint = checkpoint_of(name)
    found = detectors.detect(checkpoint, signatures_of(buggy_source(name, spelling=spelling),
                                                       checkpoint))  # fmt: skip
    if found is not None:
        assert set(found.names) == set(name.split("+")) & found.knows, found.names


@pytest.mark.parametrize("checkpoint", sorted(detectors.DETECTORS))
def test_the_reference_shows_no_property(checkpoint):
    """The reference's answers read as the contract: every detector finds nothing."""
    found = detectors.detect(checkpoint, signatures_of(reference_source(), checkpoint))
    assert found is not None and found.names == ()


# A mistake beside a second slip, written the ways real code writes it; the names the contract
# gives it (decided from the code, before anything ran).
SECOND_SLIPS = {
    "unbiased variance, ε 1e-6": (
        "layer_norm",
        """
def layer_norm(row, eps=1e-6):
    m = sum(row) / len(row)
    v = sum((x - m) ** 2 for x in row) / (len(row) - 1)
    return [(x - m) / (v + eps) ** 0.5 for x in row]
""",
        {"layer_norm.unbiased_variance", "layer_norm.wrong_default_eps"},
    ),
    "the annotated transformer's norm: unbiased σ plus ε": (
        "layer_norm",
        """
def layer_norm(row, eps=1e-6):
    import statistics
    m, s = statistics.mean(row), statistics.stdev(row)
    return [(x - m) / (s + eps) for x in row]
""",
        {
            "layer_norm.unbiased_variance",
            "layer_norm.eps_outside_sqrt",
            "layer_norm.wrong_default_eps",
        },
    ),
    "RMSNorm with ε 1e-6": (
        "layer_norm",
        """
def layer_norm(row, eps=1e-6):
    r = (sum(x * x for x in row) / len(row) + eps) ** -0.5
    return [x * r for x in row]
""",
        {"layer_norm.rms_norm", "layer_norm.wrong_default_eps"},
    ),
    "ε fixed at 1e-8 in the code": (
        "layer_norm",
        """
def layer_norm(row, eps=1e-5):
    m = sum(row) / len(row)
    sd = math.sqrt(sum((x - m) ** 2 for x in row) / len(row) + 1e-8)
    return [(x - m) / sd for x in row]
""",
        {"layer_norm.hard_coded_eps"},
    ),
    "the mask read the other way round, hidden scores filled with -1e9": (
        "causal_mask",
        """
def attention(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    scores = [[dot(q, k) / scale for k in K] for q in Q]
    if mask is not None:
        scores = [[s + (-1e9 if m else 0.0) for s, m in zip(r, mr)] for r, mr in zip(scores, mask)]
    weights = [softmax(r) for r in scores]
    out = [[sum(w * v[c] for w, v in zip(r, V)) for c in range(len(V[0]))] for r in weights]
    return out, weights
""",
        {"mask.inverted"},
    ),
    "scores to add, hiding the past instead of the future, with -1e9": (
        "causal_mask",
        """
def causal_mask(n):
    return [[-1e9 if j < i else 0.0 for j in range(n)] for i in range(n)]
""",
        {"mask.additive", "mask.transposed"},
    ),
    "scores to add that hide the diagonal too, with -inf": (
        "causal_mask",
        """
def causal_mask(n):
    return [[0.0 if j < i else -math.inf for j in range(n)] for i in range(n)]
""",
        {"mask.additive", "mask.strict"},
    ),
    "TensorFlow's look-ahead mask: 1.0 on the future": (
        "causal_mask",
        """
def causal_mask(n):
    return [[1.0 if j > i else 0.0 for j in range(n)] for i in range(n)]
""",
        {"mask.complement"},
    ),
    "always causal, scaled by the full width": (
        "multi_head",
        """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("h must divide d")
    w = d // h
    n = len(Q)
    out = [[] for _ in range(n)]
    for k in range(0, d, w):
        q = [[x * math.sqrt(w) / math.sqrt(d) for x in r[k:k + w]] for r in Q]
        causal = [[j <= i for j in range(n)] for i in range(n)]
        head, _ = attention(q, [r[k:k + w] for r in K], [r[k:k + w] for r in V], causal)
        for i in range(n):
            out[i] += head[i]
    return out
""",
        {"multi_head.always_causal"},
    ),
    "always causal, with an assert for h": (
        "multi_head",
        """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    assert d % h == 0
    w, n = d // h, len(Q)
    causal = causal_mask(n)
    heads = [attention(columns(Q, s, s + w), columns(K, s, s + w), columns(V, s, s + w), causal)[0]
             for s in range(0, d, w)]
    return [[x for head in heads for x in head[i]] for i in range(n)]
""",
        {"multi_head.always_causal", "multi_head.no_value_error"},
    ),
    "post-LN with ε 1e-6": (
        "block",
        """
def block(X, h, mask=None):
    A = multi_head(X, X, X, h, mask)
    return [layer_norm([x + a for x, a in zip(xr, ar)], eps=1e-6) for xr, ar in zip(X, A)]
""",
        {"block.post_ln"},
    ),
    "a decoder block that is always causal": (
        "block",
        """
def block(X, h, mask=None):
    n = len(X)
    N = [layer_norm(r) for r in X]
    A = multi_head(N, N, N, h, [[j <= i for j in range(n)] for i in range(n)])
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]
""",
        {"block.always_causal"},
    ),
    "sine and cosine filled in pairs, rounded": (
        "pos_encoding",
        """
def pos_encoding(n, d):
    pe = [[0.0] * d for _ in range(n)]
    for p in range(n):
        for i in range(0, d, 2):
            f = p / 10000 ** (i / d)
            pe[p][i], pe[p][i + 1] = round(math.sin(f), 4), round(math.cos(f), 4)
    return pe
""",
        {"pos_encoding.odd_d"},
    ),
}


@pytest.mark.parametrize("case", sorted(SECOND_SLIPS))
def test_a_mistake_beside_a_second_slip_is_named(case):
    """The checkpoint fails and its diagnosis gives the mistake's names, each of them, and no
    other."""
    checkpoint, code, names = SECOND_SLIPS[case]
    model = load_source_module(replace_functions(reference_source(), code), "slip", "<slip>")
    report = CHECKS[checkpoint](model)
    assert not report.passed
    assert report.diagnosis, "no name given"
    assert set(report.diagnosis[0].names) == names


def test_a_stored_name_the_properties_contradict_is_not_given():
    """Stored answers that happen to fit (here: the reference's own, filed under no_eps) give no
    name when the properties say the code has no such mistake."""
    table = load_fingerprints()
    correct = table["layer_norm"]["correct"]
    table = {
        **table,
        "layer_norm": {**table["layer_norm"], "mistakes": {"layer_norm.no_eps": correct}},
    }
    signatures = signatures_of(reference_source(), "layer_norm")
    assert diagnose("layer_norm", signatures, table) == []


def test_several_mistakes_read_as_one_diagnosis_with_each_fix():
    """Three names at once: one title numbering each, every explanation, every fix."""
    code = SECOND_SLIPS["the annotated transformer's norm: unbiased σ plus ε"][1]
    model = load_source_module(replace_functions(reference_source(), code), "slip", "<slip>")
    found = CHECKS["layer_norm"](model).diagnosis[0]
    parts = [BY_NAME[n] for n in found.names]
    assert len(parts) == 3
    for i, part in enumerate(parts, 1):
        assert f"({i}) {part.title}" in found.title
        assert part.explanation in found.explanation and part.hint in found.hint
