"""Correct implementations written differently from the reference: no checkpoint may flag them."""

ALTERNATIVES = {
    "softmax.log_sum_exp": (
        "softmax",
        """
def softmax(xs):
    m = max(xs)
    lse = m + math.log(sum(math.exp(x - m) for x in xs))
    return [math.exp(x - lse) for x in xs]
""",
    ),
    "softmax.fsum_reversed": (
        "softmax",
        """
def softmax(xs):
    top = max(xs)
    exps = [math.exp(x - top) for x in xs]
    total = math.fsum(reversed(exps))
    return [e / total for e in exps]
""",
    ),
    "attention.big_negative_mask": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    d_k = len(K[0])
    scores = [[sum(a * b for a, b in zip(q, k)) / math.sqrt(d_k) for k in K] for q in Q]
    if mask:
        scores = [[s if m else -1e9 for s, m in zip(r, mr)] for r, mr in zip(scores, mask)]
    weights = [softmax(r) for r in scores]
    out = [[sum(w * v[c] for w, v in zip(r, V)) for c in range(len(V[0]))] for r in weights]
    return out, weights
""",
    ),
    "attention.inverse_sqrt_once": (
        "attention",
        """
def attention(Q, K, V, mask=None):
    inv = 1.0 / math.sqrt(len(K[0]))
    weights = []
    for i, q in enumerate(Q):
        row = [inv * sum(q[c] * k[c] for c in range(len(q))) for k in K]
        if mask is not None:
            row = [s if mask[i][j] else float("-inf") for j, s in enumerate(row)]
        weights.append(softmax(row))
    out = []
    for row in weights:
        acc = [0.0] * len(V[0])
        for j in reversed(range(len(V))):
            for c in range(len(acc)):
                acc[c] += row[j] * V[j][c]
        out.append(acc)
    return out, weights
""",
    ),
    "causal_mask.appended": (
        "causal_mask",
        """
def causal_mask(n):
    rows = []
    for i in range(n):
        rows.append([j <= i for j in range(n)])
    return rows
""",
    ),
    "multi_head.loops": (
        "multi_head",
        """
def multi_head(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h != 0:
        raise ValueError(f"d = {d} is not divisible by h = {h}")
    w = d // h
    out = [[] for _ in Q]
    for k in range(h):
        part = lambda M: [r[k * w:(k + 1) * w] for r in M]
        head, _ = attention(part(Q), part(K), part(V), mask=mask)
        for i, r in enumerate(head):
            out[i].extend(r)
    return out
""",
    ),
    "pos_encoding.other_scheme": (
        "pos_encoding",
        """
def pos_encoding(n, d):
    return [[math.cos((p + 1) * (c + 1) / (n * d + 1.0)) * (1 if c % 3 else -1) for c in range(d)]
            for p in range(n)]
""",
    ),
    "layer_norm.fsum": (
        "layer_norm",
        """
def layer_norm(row, eps=1e-5):
    n = len(row)
    mean = math.fsum(row) / n
    centred = [x - mean for x in row]
    inv = 1.0 / math.sqrt(math.fsum(c * c for c in centred) / n + eps)
    return [c * inv for c in centred]
""",
    ),
    "block.loops": (
        "block",
        """
def block(X, h, mask=None):
    N = []
    for row in X:
        N.append(layer_norm(row))
    A = multi_head(N, N, N, h, mask)
    Y = []
    for i in range(len(X)):
        Y.append([X[i][c] + A[i][c] for c in range(len(X[i]))])
    return Y
""",
    ),
    "block.tuple_rows": (
        "block",
        """
def block(X, h, mask=None):
    N = [layer_norm(list(r)) for r in X]
    return [tuple(a + b for a, b in zip(x, y)) for x, y in zip(X, multi_head(N, N, N, h, mask))]
""",
    ),
}
