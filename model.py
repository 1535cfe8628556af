"""model.py: a transformer block in plain Python lists and math alone.

Every matrix is a list of rows (one row per position, one column per feature).
The notebooks write one section per step; re-running a step replaces its section.
"""

import math


# ── step 1: softmax ────────────────────────────────────────
def softmax(xs):
    """softmax(x)_i = exp(x_i - max(x)) / Σ_j exp(x_j - max(x))"""
    top = max(xs)  # shifting by the max changes nothing but the overflow
    exps = [math.exp(x - top) for x in xs]  # every exponent is <= 0, so every value is in (0, 1]
    total = sum(exps)
    return [e / total for e in exps]


# ── end of step 1: softmax ─────────────────────────────────


# ── step 2: attention ────────────────────────────────────────
def dot(a, b):
    """a · b = Σ_k a_k b_k"""
    return sum(x * y for x, y in zip(a, b))


def attention(Q, K, V, mask=None):
    """(softmax(Q Kᵀ / √d_k) V, weights); mask[i][j] false → score -inf"""
    scale = math.sqrt(len(K[0]))
    scores = [[dot(q, k) / scale for k in K] for q in Q]  # n_q rows × n_k cols
    if mask is not None:
        scores = [
            [s if visible else -math.inf for s, visible in zip(row, row_mask)]
            for row, row_mask in zip(scores, mask)
        ]
    weights = [softmax(row) for row in scores]  # each row sums to 1
    # n_q rows × d_v cols
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


# ── end of step 2: attention ─────────────────────────────────


# ── step 3: causal_mask ────────────────────────────────────────
def causal_mask(n):
    """mask[i][j] = (i >= j)"""
    return [[i >= j for j in range(n)] for i in range(n)]


# ── end of step 3: causal_mask ─────────────────────────────────


# ── step 4: multi_head ────────────────────────────────────────
def columns(M, start, stop):
    """Row i of M, columns start … stop − 1, for each i."""
    return [row[start:stop] for row in M]


def multi_head(Q, K, V, h, mask=None):
    """concat_k attention(Q_k, K_k, V_k), Q_k = columns(Q, k·d/h, (k+1)·d/h)"""
    d = len(Q[0])
    if not isinstance(h, int) or h < 1 or d % h != 0:
        raise ValueError(
            f"multi_head: cannot split d = {d} features into h = {h!r} equal heads; "
            f"h must be a positive integer that divides d"
        )
    width = d // h
    heads = []  # h matrices, n × width each
    for s in range(0, d, width):
        Q_k, K_k, V_k = columns(Q, s, s + width), columns(K, s, s + width), columns(V, s, s + width)
        heads.append(attention(Q_k, K_k, V_k, mask)[0])
    return [[x for head in heads for x in head[i]] for i in range(len(Q))]  # n × d


# ── end of step 4: multi_head ─────────────────────────────────


# ── step 5: pos_encoding ────────────────────────────────────────
def pos_encoding(n, d):
    """PE[p][c] = sin(p / 10000^(2i/d)) for c = 2i, cos(p / 10000^(2i/d)) for c = 2i + 1."""

    def angle(p, c):
        return p / 10000 ** ((c - c % 2) / d)

    # n rows × d cols
    return [
        [math.sin(angle(p, c)) if c % 2 == 0 else math.cos(angle(p, c)) for c in range(d)]
        for p in range(n)
    ]


# ── end of step 5: pos_encoding ─────────────────────────────────


# ── step 6: layer_norm ────────────────────────────────────────
def layer_norm(row, eps=1e-5):
    """(x - mean) / √(var + eps), var = Σ(x - mean)² / len(row)"""
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [(x - mean) / math.sqrt(var + eps) for x in row]


# ── end of step 6: layer_norm ─────────────────────────────────


# ── step 7: block ────────────────────────────────────────
def block(X, h, mask=None):
    """X + multi_head(N, N, N, h, mask), N = [layer_norm(x) for x in X]"""
    N = [layer_norm(row) for row in X]
    A = multi_head(N, N, N, h, mask)  # n × d, like X
    return [[x + a for x, a in zip(x_row, a_row)] for x_row, a_row in zip(X, A)]


# ── end of step 7: block ─────────────────────────────────
