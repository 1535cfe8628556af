"""The fixed inputs every checkpoint feeds to the learner's functions.

Each probe is one call: which function, with which arguments. The known answers for these calls
(the correct one and each catalogued mistake's) are in fingerprints.json, keyed by probe id.
"""

import random
from dataclasses import dataclass, field, replace

from .. import i18n


@dataclass(frozen=True)
class Probe:
    """One call a checkpoint makes: which function, with which arguments."""

    id: str
    """Stable name ("softmax.large"): the key of its answers in fingerprints.json."""
    function: str
    """The learner's function it calls."""
    args: list
    """Positional arguments (plain lists and numbers)."""
    kwargs: dict = field(default_factory=dict)
    """Keyword arguments, e.g. {"mask": ...}."""
    edge: bool = False
    """An edge case (a constant row, a fully hidden row) where a guard or a constant written
    another way changes the answer: a mistake is still named when only such probes differ."""
    serves: str = ""
    """The one mistake this probe is asked for (it names a missing error): no check of its own."""

    def but(self, **changes):
        """The same probe with some fields changed: another input of the same kind."""
        return replace(self, **changes)


def seeded_matrix(rows, cols, seed, scale=1.0):
    """rows × cols of Gaussian values, seeded, rounded to 3 decimals so they read well."""
    rng = random.Random(seed)
    return [[round(rng.gauss(0.0, scale), 3) for _ in range(cols)] for _ in range(rows)]


def mask(picture):
    """A mask drawn as text, one row per query: "x" sees that key, "." does not."""
    return [[c == "x" for c in row] for row in picture.split()]


def _qkv(n_q, n_k, d_k, d_v, seed, scale=1.0):
    return [
        seeded_matrix(n_q, d_k, seed, scale),
        seeded_matrix(n_k, d_k, seed + 1, scale),
        seeded_matrix(n_k, d_v, seed + 2, scale),
    ]


# Masks are data to the checks: drawn, so a reader sees at once which keys each query keeps.
CAUSAL_4 = mask("x... xx.. xxx. xxxx")
CAUSAL_5 = mask("x.... xx... xxx.. xxxx. xxxxx")
PATCHY = mask("x.x.x .xxx. xx...")  # every row keeps at least one key
PATCHY_4 = mask("x.x. .x.x xx.. ..xx")  # not causal: queries 0, 1 and 2 see later keys

PROBES = {
    "softmax": [
        Probe("softmax.small", "softmax", [[0.5, -1.0, 2.0, 0.0]], {}),
        Probe("softmax.large", "softmax", [[1000.0, 1001.0, 1002.0]], {}),
        Probe("softmax.spread", "softmax", [[-3.0, 1.5, 0.25, 4.0, -0.5]], {}),
        Probe(
            "softmax.wide", "softmax", [[-800.0, 0.0, 800.0]], {}
        ),  # shifting by the min overflows
    ],
    "attention": [
        Probe("attention.rect", "attention", _qkv(3, 5, 4, 6, seed=11), {}),
        Probe("attention.square", "attention", _qkv(4, 4, 4, 4, seed=21), {}),
        Probe("attention.wide", "attention", _qkv(2, 3, 16, 5, seed=31, scale=2.0), {}),
    ],
    "causal_mask": [
        Probe("causal_mask.n1", "causal_mask", [1], {}),
        Probe("causal_mask.n5", "causal_mask", [5], {}),
        Probe(
            "causal_mask.attend",
            "attention",
            _qkv(4, 4, 6, 3, seed=41),
            {"mask": CAUSAL_4},
        ),
        Probe("causal_mask.patchy", "attention", _qkv(3, 5, 4, 2, seed=51), {"mask": PATCHY}),
    ],
    "multi_head": [
        Probe("multi_head.h2", "multi_head", _qkv(4, 4, 8, 8, seed=61) + [2], {}),
        Probe(
            "multi_head.h4_masked",
            "multi_head",
            _qkv(5, 5, 8, 8, seed=71) + [4],
            {"mask": CAUSAL_5},
        ),
        Probe("multi_head.h1", "multi_head", _qkv(3, 3, 4, 4, seed=81) + [1], {}),
        Probe(
            "multi_head.h2_patchy",
            "multi_head",
            _qkv(4, 4, 8, 8, seed=121) + [2],
            {"mask": PATCHY_4},
        ),
        Probe(  # 6 features cannot be split into 4 equal heads: the contract is a ValueError
            "multi_head.indivisible",
            "multi_head",
            _qkv(3, 3, 6, 6, seed=141) + [4],
            serves="multi_head.no_value_error",
        ),
    ],
    "pos_encoding": [
        Probe("pos_encoding.6x8", "pos_encoding", [6, 8], {}),
        Probe("pos_encoding.50x16", "pos_encoding", [50, 16], {}),
        Probe("pos_encoding.3x4", "pos_encoding", [3, 4], {}),
        Probe("pos_encoding.7x5", "pos_encoding", [7, 5], {}),  # d odd: the last sine has no cosine
        Probe("pos_encoding.4x1", "pos_encoding", [4, 1], {}),  # d = 1: one sine column
        Probe("pos_encoding.1x6", "pos_encoding", [1, 6], {}),  # one position
    ],
    "layer_norm": [
        Probe("layer_norm.row", "layer_norm", [[1.0, 2.0, 3.0, 4.0, 10.0]], {}),
        Probe("layer_norm.constant", "layer_norm", [[3.0, 3.0, 3.0, 3.0]], {}, edge=True),
        Probe("layer_norm.narrow", "layer_norm", [[1.0, 1.01, 0.99, 1.02, 0.98]], {}),
        Probe("layer_norm.eps", "layer_norm", [[1.0, 2.0, 3.0]], {"eps": 0.5}),
    ],
    "block": [
        Probe("block.h2", "block", [seeded_matrix(4, 8, 91, scale=3.0), 2], {}),
        Probe(
            "block.h4_masked",
            "block",
            [seeded_matrix(5, 8, 101, scale=3.0), 4],
            {"mask": CAUSAL_5},
        ),
        Probe(
            "block.h1",
            "block",
            [[[x + 5.0 for x in row] for row in seeded_matrix(3, 4, 111)], 1],
            {},
        ),
        Probe(
            "block.h2_patchy",
            "block",
            [seeded_matrix(4, 8, 131, scale=3.0), 2],
            {"mask": PATCHY_4},
        ),
    ],
}

CHECKPOINTS = list(PROBES)


def attempt(fn, *args, **kwargs):
    """fn(*args, **kwargs), or the exception it raised: a crash is evidence, not an interruption."""
    try:
        return fn(*args, **kwargs)
    except Exception as err:  # the learner's code may fail in any way; the check reports it
        return err


def call(module, probe):
    """Run a probe against a module's functions; an exception is returned, not raised.

    A returned exception carries `called` (the call, with its inputs' sizes) and, when the error
    came from model.py, `model_line`, so the report can say where and on what it failed.
    """
    result = attempt(getattr, module, probe.function)
    if not isinstance(result, BaseException):
        result = attempt(result, *probe.args, **probe.kwargs)
    if isinstance(result, BaseException):
        if getattr(result, "model_line", None) is None:  # the judge's worker sends the line itself
            result.model_line = line_in_model(result.__traceback__)
        result.called = describe_call(probe)
    return result


def line_in_model(traceback):
    """The line of model.py where an exception was raised (innermost model.py frame), or None."""
    line = None
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename.endswith("model.py"):
            line = traceback.tb_lineno
        traceback = traceback.tb_next
    return line


def describe_call(probe):
    """attention(Q 3×4, K 5×4, V 5×6): a call with its inputs' sizes, short enough for one line."""

    def size(value):
        if isinstance(value, list) and value and all(isinstance(r, list) for r in value):
            return f"{len(value)}×{len(value[0])}"
        if isinstance(value, list):
            return (
                "["
                + ", ".join(f"{v:g}" if isinstance(v, float) else repr(v) for v in value[:5])
                + (", …]" if len(value) > 5 else "]")
            )
        return repr(value)

    parts = [size(a) for a in probe.args] + [
        f"{k}={i18n.say('probes', 'a_mask') if k == 'mask' else size(v)}"
        for k, v in probe.kwargs.items()
    ]
    return f"{probe.function}({', '.join(parts)})"
