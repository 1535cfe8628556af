"""Every catalogued mistake as real code: the function a learner with that mistake would write.

`buggy_model(name)` is the reference model.py with one function replaced by its buggy version.
It drives the fingerprints that ship with the checkpoints, the catalogue tests and the demo class.
"""

import ast

from checkpoints.catalogue import BY_NAME
from grading.judge.reference import load_source_module, reference_source

# name -> (function replaced, source of the buggy function); each uses model.py's other functions.
BUGGY = {
    "softmax.no_max_shift": (
        "softmax",
        """
def softmax(xs):
    exps = [math.exp(x) for x in xs]
    total = sum(exps)
    return [e / total for e in exps]
""",
    ),
    "softmax.divide_by_max": (
        "softmax",
        """
def softmax(xs):
    exps = [math.exp(x - max(xs)) for x in xs]
    return [e / max(exps) for e in exps]
""",
    ),
    "softmax.no_normalising": (
        "softmax",
        """
def softmax(xs):
    return [math.exp(x) for x in xs]
""",
    ),
    "softmax.wrong_axis": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    scores = [[dot(q, k) / math.sqrt(len(K[0])) for k in K] for q in Q]
    by_column = [softmax([row[j] for row in scores]) for j in range(len(K))]
    weights = [[by_column[j][i] for j in range(len(K))] for i in range(len(Q))]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
    ),
    "attention.no_scaling": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    scores = [[dot(q, k) for k in K] for q in Q]
    if mask is not None:
        scores = [[s if m else -math.inf for s, m in zip(row, mrow)]
                  for row, mrow in zip(scores, mask)]
    weights = [softmax(row) for row in scores]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
    ),
    "attention.divide_by_d": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / len(K[0]) for k in K]) for q in Q]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
    ),
    "attention.scale_by_n_keys": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K)) for k in K]) for q in Q]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
    ),
    "attention.scale_after_softmax": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    weights = [[w / math.sqrt(len(K[0])) for w in softmax([dot(q, k) for k in K])] for q in Q]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
    ),
    "attention.weights_transposed": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    right = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    weights = [list(column) for column in zip(*right)]
    out = [[sum(weights[j][i] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))]
           for i in range(len(Q))]
    return out, weights
""",
    ),
    "attention.returns_out_only": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    return [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
""",
    ),
    "attention.returns_pair_swapped": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return weights, out
""",
    ),
    "attention.v_transposed": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    out = [[sum(w * V[c][j] for j, w in enumerate(row)) for c in range(len(V[0]))]
           for row in weights]
    return out, weights
""",
    ),
    "mask.transposed": (
        "causal_mask",
        """
def causal_mask(n):
    return [[j >= i for j in range(n)] for i in range(n)]
""",
    ),
    "mask.strict": (
        "causal_mask",
        """
def causal_mask(n):
    return [[i > j for j in range(n)] for i in range(n)]
""",
    ),
    "mask.multiply_after_softmax": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    if mask is not None:
        weights = [[w * m for w, m in zip(row, mrow)] for row, mrow in zip(weights, mask)]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
    ),
    "mask.softmax_twice": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    if mask is not None:
        weights = [softmax([w * m for w, m in zip(row, mrow)]) for row, mrow in zip(weights, mask)]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
    ),
    "mask.zero_scores": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    scores = [[dot(q, k) / math.sqrt(len(K[0])) for k in K] for q in Q]
    if mask is not None:
        scores = [[s if m else 0.0 for s, m in zip(row, mrow)] for row, mrow in zip(scores, mask)]
    weights = [softmax(row) for row in scores]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
    ),
    "mask.ignored": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
    ),
    "multi_head.full_d_scaling": (
        "multi_head",
        """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    w = d // h
    grow = math.sqrt(d) / math.sqrt(w)   # attention divides by √w; shrink the queries to make it √d
    heads = [attention([[x / grow for x in r[k:k + w]] for r in Q], [r[k:k + w] for r in K],
                       [r[k:k + w] for r in V], mask)[0] for k in range(0, d, w)]
    return [[x for head in heads for x in head[i]] for i in range(len(Q))]
""",
    ),
    "multi_head.interleaved_split": (
        "multi_head",
        """
def multi_head(Q, K, V, h, mask=None):
    if len(Q[0]) % h:
        raise ValueError("d must be divisible by h")
    heads = [attention([r[k::h] for r in Q], [r[k::h] for r in K], [r[k::h] for r in V], mask)[0]
             for k in range(h)]
    return [[x for head in heads for x in head[i]] for i in range(len(Q))]
""",
    ),
    "multi_head.heads_summed": (
        "multi_head",
        """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    w = d // h
    heads = [attention([r[k:k + w] for r in Q], [r[k:k + w] for r in K],
                       [r[k:k + w] for r in V], mask)[0]
             for k in range(0, d, w)]
    return [[sum(head[i][c] for head in heads) for c in range(w)] for i in range(len(Q))]
""",
    ),
    "multi_head.heads_averaged": (
        "multi_head",
        """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    w = d // h
    heads = [attention([r[k:k + w] for r in Q], [r[k:k + w] for r in K],
                       [r[k:k + w] for r in V], mask)[0]
             for k in range(0, d, w)]
    return [[sum(head[i][c] for head in heads) / h for c in range(w)] for i in range(len(Q))]
""",
    ),
    "multi_head.mask_dropped": (
        "multi_head",
        """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    w = d // h
    heads = [attention([r[k:k + w] for r in Q], [r[k:k + w] for r in K], [r[k:k + w] for r in V])[0]
             for k in range(0, d, w)]
    return [[x for head in heads for x in head[i]] for i in range(len(Q))]
""",
    ),
    "pos_encoding.out_of_range": (
        "pos_encoding",
        """
def pos_encoding(n, d):
    return [[p / 10000 ** ((c - c % 2) / d) for c in range(d)] for p in range(n)]
""",
    ),
    "pos_encoding.identical_rows": (
        "pos_encoding",
        """
def pos_encoding(n, d):
    return [[math.sin(c / d) if c % 2 == 0 else math.cos(c / d) for c in range(d)]
            for p in range(n)]
""",
    ),
    "pos_encoding.transposed": (
        "pos_encoding",
        """
def pos_encoding(n, d):
    return [[math.sin(p / 10000 ** ((c - c % 2) / d)) if c % 2 == 0
             else math.cos(p / 10000 ** ((c - c % 2) / d))
             for p in range(n)] for c in range(d)]
""",
    ),
    "layer_norm.unbiased_variance": (
        "layer_norm",
        """
def layer_norm(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / (len(row) - 1)
    return [(x - mean) / math.sqrt(var + eps) for x in row]
""",
    ),
    "layer_norm.eps_outside_sqrt": (
        "layer_norm",
        """
def layer_norm(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [(x - mean) / (math.sqrt(var) + eps) for x in row]
""",
    ),
    "layer_norm.no_mean_subtraction": (
        "layer_norm",
        """
def layer_norm(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [x / math.sqrt(var + eps) for x in row]
""",
    ),
    "layer_norm.no_eps": (
        "layer_norm",
        """
def layer_norm(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [(x - mean) / math.sqrt(var) for x in row]
""",
    ),
    "layer_norm.across_positions": (
        "block",
        """
def block(X, h, mask=None):
    columns = [layer_norm(list(col)) for col in zip(*X)]
    N = [list(row) for row in zip(*columns)]
    A = multi_head(N, N, N, h, mask)
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]
""",
    ),
    "block.post_ln": (
        "block",
        """
def block(X, h, mask=None):
    A = multi_head(X, X, X, h, mask)
    return [layer_norm([x + a for x, a in zip(xr, ar)]) for xr, ar in zip(X, A)]
""",
    ),
    "block.no_residual": (
        "block",
        """
def block(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    return multi_head(N, N, N, h, mask)
""",
    ),
    "block.residual_on_normed": (
        "block",
        """
def block(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    A = multi_head(N, N, N, h, mask)
    return [[x + a for x, a in zip(nr, ar)] for nr, ar in zip(N, A)]
""",
    ),
    "block.mask_ignored": (
        "block",
        """
def block(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    A = multi_head(N, N, N, h)
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]
""",
    ),
    "softmax.temperature": (
        "softmax",
        """
def softmax(xs):
    top = max(xs)
    exps = [math.exp((x - top) / 2) for x in xs]
    return [e / sum(exps) for e in exps]
""",
    ),
    "softmax.min_shift": (
        "softmax",
        """
def softmax(xs):
    low = min(xs)
    exps = [math.exp(x - low) for x in xs]
    total = sum(exps)
    return [e / total for e in exps]
""",
    ),
    "softmax.normalise_scores": (
        "softmax",
        """
def softmax(xs):
    total = sum(xs)
    return [x / total for x in xs]
""",
    ),
    "attention.scores_from_v": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    weights = [softmax([dot(q, v) / math.sqrt(len(K[0])) for v in V]) for q in Q]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
    ),
    "attention.output_from_k": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    out = [[sum(w * k[c] for w, k in zip(row, K)) for c in range(len(K[0]))] for row in weights]
    return out, weights
""",
    ),
    "mask.inverted": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    scores = [[dot(q, k) / math.sqrt(len(K[0])) for k in K] for q in Q]
    if mask is not None:
        scores = [[-math.inf if m else s for s, m in zip(row, mrow)]
                  for row, mrow in zip(scores, mask)]
    weights = [softmax(row) for row in scores]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
    ),
    "mask.all_visible": (
        "causal_mask",
        """
def causal_mask(n):
    return [[True] * n for _ in range(n)]
""",
    ),
    "multi_head.reversed_heads": (
        "multi_head",
        """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    w = d // h
    heads = [attention([r[k:k + w] for r in Q], [r[k:k + w] for r in K],
                       [r[k:k + w] for r in V], mask)[0]
             for k in range(0, d, w)]
    return [[x for head in reversed(heads) for x in head[i]] for i in range(len(Q))]
""",
    ),
    "multi_head.heads_averaged_tiled": (
        "multi_head",
        """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    w = d // h
    heads = [attention([r[k:k + w] for r in Q], [r[k:k + w] for r in K],
                       [r[k:k + w] for r in V], mask)[0]
             for k in range(0, d, w)]
    mean = [[sum(head[i][c] for head in heads) / h for c in range(w)] for i in range(len(Q))]
    return [row * h for row in mean]
""",
    ),
    "multi_head.ignores_given_mask": (
        "multi_head",
        """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    if mask is not None:
        mask = [[i >= j for j in range(len(K))] for i in range(len(Q))]
    w = d // h
    heads = [attention([r[k:k + w] for r in Q], [r[k:k + w] for r in K],
                       [r[k:k + w] for r in V], mask)[0]
             for k in range(0, d, w)]
    return [[x for head in heads for x in head[i]] for i in range(len(Q))]
""",
    ),
    "layer_norm.divide_by_variance": (
        "layer_norm",
        """
def layer_norm(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [(x - mean) / (var + eps) for x in row]
""",
    ),
    "layer_norm.eps_not_in_signature": (
        "layer_norm",
        """
def layer_norm(row):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [(x - mean) / math.sqrt(var) for x in row]
""",
    ),
    "block.no_layer_norm": (
        "block",
        """
def block(X, h, mask=None):
    A = multi_head(X, X, X, h, mask)
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]
""",
    ),
    "block.ignores_h": (
        "block",
        """
def block(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    A = multi_head(N, N, N, 1, mask)
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]
""",
    ),
    "block.ignores_given_mask": (
        "block",
        """
def block(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    A = multi_head(N, N, N, h, None if mask is None else causal_mask(len(X)))
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]
""",
    ),
}

# Other spellings of the same mistakes: the same numbers, written as learners also write them
# (loops instead of comprehensions, helpers inlined, another name for the same thing). The
# catalogue must name every spelling.
SPELLINGS = {
    "softmax.no_max_shift": [
        (
            "softmax",
            """
def softmax(xs):
    total = 0.0
    for x in xs:
        total += math.exp(x)
    return [math.exp(x) / total for x in xs]
""",
        )
    ],
    "softmax.divide_by_max": [
        (
            "softmax",
            """
def softmax(xs):
    top = max(xs)
    exps = []
    for x in xs:
        exps.append(math.exp(x - top))
    biggest = max(exps)
    return [e / biggest for e in exps]
""",
        )
    ],
    "softmax.no_normalising": [
        (
            "softmax",
            """
def softmax(xs):
    out = []
    for x in xs:
        out.append(math.exp(x))
    return out
""",
        )
    ],
    "softmax.wrong_axis": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    d_k = len(K[0])
    scores = [[sum(a * b for a, b in zip(q, k)) / math.sqrt(d_k) for k in K] for q in Q]
    columns = [softmax(list(col)) for col in zip(*scores)]
    weights = [list(row) for row in zip(*columns)]
    out = [[sum(weights[i][j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))]
           for i in range(len(Q))]
    return out, weights
""",
        )
    ],
    "attention.no_scaling": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    weights = []
    for i, q in enumerate(Q):
        row = [sum(a * b for a, b in zip(q, k)) for k in K]
        if mask is not None:
            row = [-math.inf if not mask[i][j] else s for j, s in enumerate(row)]
        weights.append(softmax(row))
    out = [[sum(weights[i][j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))]
           for i in range(len(Q))]
    return out, weights
""",
        )
    ],
    "attention.divide_by_d": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    d_k = len(K[0])
    weights = []
    for q in Q:
        weights.append(softmax([dot(q, k) / d_k for k in K]))
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
        )
    ],
    "attention.scale_by_n_keys": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    n_k = len(K)
    scores = [[dot(q, k) / n_k ** 0.5 for k in K] for q in Q]
    weights = [softmax(row) for row in scores]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
        )
    ],
    "attention.scale_after_softmax": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = []
    for q in Q:
        row = softmax([dot(q, k) for k in K])
        weights.append([w / scale for w in row])
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
        )
    ],
    "attention.weights_transposed": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    rows = [softmax([dot(q, k) / scale for k in K]) for q in Q]
    weights = [[rows[i][j] for i in range(len(Q))] for j in range(len(K))]
    out = []
    for i in range(len(Q)):
        out.append([sum(weights[j][i] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))])
    return out, weights
""",
        )
    ],
    "attention.returns_out_only": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    out = []
    for q in Q:
        w = softmax([dot(q, k) / scale for k in K])
        out.append([sum(w[j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))])
    return out
""",
        )
    ],
    "attention.returns_pair_swapped": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights, out = [], []
    for q in Q:
        w = softmax([dot(q, k) / scale for k in K])
        weights.append(w)
        out.append([sum(w[j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))])
    return (weights, out)
""",
        )
    ],
    "attention.v_transposed": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = [softmax([dot(q, k) / scale for k in K]) for q in Q]
    out = []
    for row in weights:
        out.append([sum(row[j] * V[c][j] for j in range(len(row))) for c in range(len(V[0]))])
    return out, weights
""",
        )
    ],
    "mask.transposed": [
        (
            "causal_mask",
            """
def causal_mask(n):
    mask = []
    for i in range(n):
        mask.append([i <= j for j in range(n)])
    return mask
""",
        )
    ],
    "mask.strict": [
        (
            "causal_mask",
            """
def causal_mask(n):
    mask = [[False] * n for _ in range(n)]
    for i in range(n):
        for j in range(i):
            mask[i][j] = True
    return mask
""",
        )
    ],
    "mask.multiply_after_softmax": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = []
    for i, q in enumerate(Q):
        row = softmax([dot(q, k) / scale for k in K])
        if mask is not None:
            row = [w if mask[i][j] else 0.0 for j, w in enumerate(row)]
        weights.append(row)
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
        )
    ],
    "mask.softmax_twice": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = []
    for i, q in enumerate(Q):
        row = softmax([dot(q, k) / scale for k in K])
        if mask is not None:
            row = softmax([w if mask[i][j] else 0.0 for j, w in enumerate(row)])
        weights.append(row)
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
        )
    ],
    "mask.zero_scores": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = []
    for i, q in enumerate(Q):
        row = [dot(q, k) / scale for k in K]
        if mask is not None:
            for j in range(len(row)):
                if not mask[i][j]:
                    row[j] = 0
        weights.append(softmax(row))
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
        )
    ],
    "mask.ignored": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = []
    for q in Q:
        weights.append(softmax([dot(q, k) / scale for k in K]))
    out = [[sum(weights[i][j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))]
           for i in range(len(Q))]
    return out, weights
""",
        )
    ],
    "multi_head.full_d_scaling": [
        (
            "multi_head",
            """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h != 0:
        raise ValueError("d must be divisible by h")
    w = d // h
    out = [[] for _ in Q]
    for k in range(h):
        q_k = [r[k * w:(k + 1) * w] for r in Q]
        k_k = [r[k * w:(k + 1) * w] for r in K]
        v_k = [r[k * w:(k + 1) * w] for r in V]
        scores = [[dot(q, kk) / math.sqrt(d) for kk in k_k] for q in q_k]
        if mask is not None:
            scores = [[s if m else -math.inf for s, m in zip(row, mr)]
                      for row, mr in zip(scores, mask)]
        weights = [softmax(row) for row in scores]
        for i, row in enumerate(weights):
            out[i] += [sum(row[j] * v_k[j][c] for j in range(len(v_k))) for c in range(w)]
    return out
""",
        )
    ],
    "multi_head.interleaved_split": [
        (
            "multi_head",
            """
def multi_head(Q, K, V, h, mask=None):
    if len(Q[0]) % h != 0:
        raise ValueError("d must be divisible by h")
    out = [[] for _ in Q]
    for k in range(h):
        pick = lambda M: [[r[c] for c in range(k, len(r), h)] for r in M]
        head = attention(pick(Q), pick(K), pick(V), mask)[0]
        for i, row in enumerate(head):
            out[i].extend(row)
    return out
""",
        )
    ],
    "multi_head.heads_summed": [
        (
            "multi_head",
            """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h != 0:
        raise ValueError("d must be divisible by h")
    w = d // h
    total = [[0.0] * w for _ in Q]
    for k in range(h):
        head = attention([r[k * w:(k + 1) * w] for r in Q], [r[k * w:(k + 1) * w] for r in K],
                         [r[k * w:(k + 1) * w] for r in V], mask)[0]
        total = [[t + x for t, x in zip(tr, hr)] for tr, hr in zip(total, head)]
    return total
""",
        )
    ],
    "multi_head.heads_averaged": [
        (
            "multi_head",
            """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h != 0:
        raise ValueError("d must be divisible by h")
    w = d // h
    heads = []
    for k in range(h):
        heads.append(attention([r[k * w:(k + 1) * w] for r in Q], [r[k * w:(k + 1) * w] for r in K],
                               [r[k * w:(k + 1) * w] for r in V], mask)[0])
    return [[sum(col) / len(col) for col in zip(*rows)] for rows in zip(*heads)]
""",
        )
    ],
    "multi_head.mask_dropped": [
        (
            "multi_head",
            """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h != 0:
        raise ValueError("d must be divisible by h")
    w = d // h
    out = [[] for _ in Q]
    for k in range(h):
        s = slice(k * w, (k + 1) * w)
        head, _ = attention([r[s] for r in Q], [r[s] for r in K], [r[s] for r in V])
        for i in range(len(Q)):
            out[i] += head[i]
    return out
""",
        )
    ],
    "pos_encoding.out_of_range": [
        (
            "pos_encoding",
            """
def pos_encoding(n, d):
    pe = []
    for p in range(n):
        pe.append([p / 10000 ** (2 * (c // 2) / d) for c in range(d)])
    return pe
""",
        )
    ],
    "pos_encoding.identical_rows": [
        (
            "pos_encoding",
            """
def pos_encoding(n, d):
    row = []
    for c in range(d):
        row.append(math.sin(c / d) if c % 2 == 0 else math.cos(c / d))
    return [list(row) for _ in range(n)]
""",
        )
    ],
    "pos_encoding.transposed": [
        (
            "pos_encoding",
            """
def pos_encoding(n, d):
    pe = [[0.0] * n for _ in range(d)]
    for p in range(n):
        for c in range(d):
            angle = p / 10000 ** (2 * (c // 2) / d)
            pe[c][p] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return pe
""",
        )
    ],
    "layer_norm.unbiased_variance": [
        (
            "layer_norm",
            """
def layer_norm(row, eps=1e-5):
    n = len(row)
    mean = sum(row) / n
    sq = 0.0
    for x in row:
        sq += (x - mean) * (x - mean)
    return [(x - mean) / math.sqrt(sq / (n - 1) + eps) for x in row]
""",
        )
    ],
    "layer_norm.eps_outside_sqrt": [
        (
            "layer_norm",
            """
def layer_norm(row, eps=1e-5):
    mean = sum(row) / len(row)
    std = (sum((x - mean) ** 2 for x in row) / len(row)) ** 0.5
    return [(x - mean) / (std + eps) for x in row]
""",
        )
    ],
    "layer_norm.no_mean_subtraction": [
        (
            "layer_norm",
            """
def layer_norm(row, eps=1e-5):
    n = len(row)
    mean = sum(row) / n
    var = sum(x * x for x in row) / n - mean * mean
    return [x / math.sqrt(var + eps) for x in row]
""",
        )
    ],
    "layer_norm.no_eps": [
        (
            "layer_norm",
            """
def layer_norm(row, eps=1e-5):
    mean = sum(row) / len(row)
    std = math.sqrt(sum((x - mean) ** 2 for x in row) / len(row))
    return [(x - mean) / std for x in row]
""",
        )
    ],
    "layer_norm.across_positions": [
        (
            "block",
            """
def block(X, h, mask=None):
    n, d = len(X), len(X[0])
    N = [[0.0] * d for _ in range(n)]
    for c in range(d):
        column = layer_norm([X[i][c] for i in range(n)])
        for i in range(n):
            N[i][c] = column[i]
    A = multi_head(N, N, N, h, mask)
    return [[X[i][c] + A[i][c] for c in range(d)] for i in range(n)]
""",
        )
    ],
    "block.post_ln": [
        (
            "block",
            """
def block(X, h, mask=None):
    A = multi_head(X, X, X, h, mask)
    out = []
    for xr, ar in zip(X, A):
        out.append(layer_norm([x + a for x, a in zip(xr, ar)]))
    return out
""",
        )
    ],
    "block.no_residual": [
        (
            "block",
            """
def block(X, h, mask=None):
    normed = []
    for row in X:
        normed.append(layer_norm(row))
    out = multi_head(normed, normed, normed, h, mask)
    return out
""",
        )
    ],
    "block.residual_on_normed": [
        (
            "block",
            """
def block(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    A = multi_head(N, N, N, h, mask)
    out = []
    for i in range(len(N)):
        out.append([N[i][c] + A[i][c] for c in range(len(N[i]))])
    return out
""",
        )
    ],
    "block.mask_ignored": [
        (
            "block",
            """
def block(X, h, mask=None):
    out = []
    N = [layer_norm(row) for row in X]
    for xr, ar in zip(X, multi_head(N, N, N, h)):
        out.append([x + a for x, a in zip(xr, ar)])
    return out
""",
        )
    ],
    "softmax.temperature": [
        (
            "softmax",
            """
def softmax(xs, temperature=2.0):
    scaled = [x / temperature for x in xs]
    top = max(scaled)
    exps = [math.exp(x - top) for x in scaled]
    total = sum(exps)
    return [e / total for e in exps]
""",
        )
    ],
    "softmax.min_shift": [
        (
            "softmax",
            """
def softmax(xs):
    shift = sorted(xs)[0]
    result, total = [], 0.0
    for x in xs:
        e = math.exp(x - shift)
        result.append(e)
        total += e
    return [e / total for e in result]
""",
        )
    ],
    "softmax.normalise_scores": [
        (
            "softmax",
            """
def softmax(xs):
    out = []
    for x in xs:
        out.append(x / sum(xs))
    return out
""",
        )
    ],
    "attention.scores_from_v": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    d_k = len(K[0])
    weights = []
    for q in Q:
        weights.append(softmax([sum(a * b for a, b in zip(q, v)) / math.sqrt(d_k) for v in V]))
    out = [[sum(weights[i][j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))]
           for i in range(len(Q))]
    return out, weights
""",
        )
    ],
    "attention.output_from_k": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = [softmax([dot(q, k) / scale for k in K]) for q in Q]
    out = []
    for row in weights:
        out.append([sum(row[j] * K[j][c] for j in range(len(K))) for c in range(len(K[0]))])
    return out, weights
""",
        )
    ],
    "mask.inverted": [
        (
            "attention",
            """
def attention(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = []
    for i, q in enumerate(Q):
        scores = [dot(q, k) / scale for k in K]
        if mask is not None:
            scores = [s if not mask[i][j] else -math.inf for j, s in enumerate(scores)]
        weights.append(softmax(scores))
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
""",
        )
    ],
    "mask.all_visible": [
        (
            "causal_mask",
            """
def causal_mask(n):
    return [[True for j in range(n)] for i in range(n)]
""",
        )
    ],
    "multi_head.reversed_heads": [
        (
            "multi_head",
            """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h != 0:
        raise ValueError(f"d = {d} is not divisible by h = {h}")
    w = d // h
    out = [[] for _ in Q]
    for k in range(h):
        head = attention([r[k * w:(k + 1) * w] for r in Q], [r[k * w:(k + 1) * w] for r in K],
                         [r[k * w:(k + 1) * w] for r in V], mask)[0]
        for i, row in enumerate(head):
            out[i] = row + out[i]
    return out
""",
        )
    ],
    "multi_head.heads_averaged_tiled": [
        (
            "multi_head",
            """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h != 0:
        raise ValueError("d must be divisible by h")
    w = d // h
    total = [[0.0] * w for _ in Q]
    for k in range(h):
        head = attention([r[k * w:(k + 1) * w] for r in Q], [r[k * w:(k + 1) * w] for r in K],
                         [r[k * w:(k + 1) * w] for r in V], mask)[0]
        total = [[t + x / h for t, x in zip(tr, hr)] for tr, hr in zip(total, head)]
    return [[row[c % w] for c in range(d)] for row in total]
""",
        )
    ],
    "multi_head.ignores_given_mask": [
        (
            "multi_head",
            """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h != 0:
        raise ValueError(f"d = {d} is not divisible by h = {h}")
    if mask:
        mask = causal_mask(len(Q))  # the mask of a decoder
    w = d // h
    out = [[] for _ in Q]
    for k in range(h):
        head = attention([r[k * w:(k + 1) * w] for r in Q], [r[k * w:(k + 1) * w] for r in K],
                         [r[k * w:(k + 1) * w] for r in V], mask)[0]
        for i, row in enumerate(head):
            out[i] = out[i] + row
    return out
""",
        )
    ],
    "layer_norm.divide_by_variance": [
        (
            "layer_norm",
            """
def layer_norm(row, eps=1e-5):
    n = len(row)
    mean = sum(row) / n
    var = 0.0
    for x in row:
        var += (x - mean) ** 2 / n
    return [(x - mean) / (var + eps) for x in row]
""",
        )
    ],
    "layer_norm.eps_not_in_signature": [
        (
            "layer_norm",
            """
def layer_norm(row):
    mean = sum(row) / len(row)
    std = math.sqrt(sum((x - mean) * (x - mean) for x in row) / len(row))
    return [(x - mean) / std for x in row]
""",
        )
    ],
    "block.no_layer_norm": [
        (
            "block",
            """
def block(X, h, mask=None):
    out = []
    for xr, ar in zip(X, multi_head(X, X, X, h, mask)):
        out.append([x + a for x, a in zip(xr, ar)])
    return out
""",
        )
    ],
    "block.ignores_h": [
        (
            "block",
            """
def block(X, h, mask=None):
    N = [layer_norm(row) for row in X]
    A = attention(N, N, N, mask)[0]
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]
""",
        )
    ],
    "block.ignores_given_mask": [
        (
            "block",
            """
def block(X, h, mask=None):
    n = len(X)
    if mask is not None:
        mask = [[j <= i for j in range(n)] for i in range(n)]
    out = []
    normed = [layer_norm(row) for row in X]
    for xr, ar in zip(X, multi_head(normed, normed, normed, h, mask)):
        out.append([x + a for x, a in zip(xr, ar)])
    return out
""",
        )
    ],
}


def replace_function(source, function, new_code):
    """source with the top-level `def function` swapped for new_code (the rest untouched)."""
    lines = source.splitlines(keepends=True)
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            start = node.lineno - 1 - len(node.decorator_list)
            return (
                "".join(lines[:start])
                + new_code.strip("\n")
                + "\n"
                + "".join(lines[node.end_lineno :])
            )
    raise KeyError(f"model source has no function {function!r}")


def buggy_source(name, base=None, spelling=0):
    """A whole model.py that carries exactly the named mistake.

    Spelling 0 is BUGGY's version, 1… are SPELLINGS'.
    """
    function, code = ([BUGGY[name]] + SPELLINGS.get(name, []))[spelling]
    return replace_function(base if base is not None else reference_source(), function, code)


def buggy_model(name, spelling=0):
    """The model module with exactly the named mistake: buggy_source, loaded under its own name."""
    return load_source_module(
        buggy_source(name, spelling=spelling), f"buggy_{name.replace('.', '_')}", f"<{name}>"
    )


def check_catalogue_complete():
    """Raise AssertionError unless BUGGY and the catalogue name exactly the same mistakes."""
    missing = sorted(set(BY_NAME) - set(BUGGY))
    extra = sorted(set(BUGGY) - set(BY_NAME))
    if missing or extra:
        raise AssertionError(
            f"catalogue and code disagree: no code for {missing}, no entry for {extra}"
        )
