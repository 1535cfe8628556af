"""A second, independent implementation of model.py's seven functions, for cross-checking it.

Written differently on purpose: softmax through log-sum-exp, attention through index loops over
explicit transposes, masking through a huge negative score whose weight is then set to exact 0,
layer norm through explicit two-pass loops, pos_encoding through an explicit frequency list.
"""

import math

HIDDEN_SCORE = -1e300  # exp(HIDDEN_SCORE - anything finite) underflows to 0.0


def softmax(xs):
    """exp(x_i - lse), lse = log Σ_j exp(x_j),
    taken around the largest entry so nothing overflows.
    """
    peak = xs[0]
    for x in xs:
        if x > peak:
            peak = x
    shifted = [x - peak for x in xs]
    log_total = math.log(math.fsum(math.exp(s) for s in shifted))
    return [math.exp(s - log_total) for s in shifted]


def transpose(M):
    """Rows become columns."""
    return [[M[r][c] for r in range(len(M))] for c in range(len(M[0]))]


def attention(Q, K, V, mask=None):
    """(weights · V, weights),
    weights[i] = softmax over j of Q[i]·K[j] / √len(K[j]), hidden j → 0.
    """
    KT, VT = transpose(K), transpose(V)
    scores = []
    for i in range(len(Q)):
        row = []
        for j in range(len(K)):
            acc = 0.0
            for c in range(len(KT)):
                acc += Q[i][c] * KT[c][j]
            hidden = mask is not None and not mask[i][j]
            row.append(HIDDEN_SCORE if hidden else acc / math.sqrt(len(K[j])))
        scores.append(row)
    weights = [softmax(row) for row in scores]
    if mask is not None:
        for i, row in enumerate(weights):
            for j in range(len(row)):
                if not mask[i][j]:
                    row[j] = 0.0
    out = []
    for i in range(len(Q)):
        out_row = []
        for c in range(len(VT)):
            acc = 0.0
            for j in range(len(K)):
                acc += weights[i][j] * VT[c][j]
            out_row.append(acc)
        out.append(out_row)
    return out, weights


def causal_mask(n):
    """True on and below the diagonal: query i sees keys 0..i."""
    mask = [[False] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            mask[i][j] = True
    return mask


def multi_head(Q, K, V, h, mask=None):
    """Attention on h contiguous column slices of width d // h, outputs placed side by side."""
    d = len(Q[0])
    if d % h != 0:
        raise ValueError(f"h = {h} heads do not divide d = {d} features")
    width = d // h
    outs = []
    for head in range(h):
        cols = range(head * width, (head + 1) * width)
        Qh, Kh, Vh = ([[row[c] for c in cols] for row in M] for M in (Q, K, V))
        outs.append(attention(Qh, Kh, Vh, mask)[0])
    joined = []
    for i in range(len(Q)):
        row = []
        for head_out in outs:
            row.extend(head_out[i])
        joined.append(row)
    return joined


def pos_encoding(n, d):
    """sin / cos of p · f_k,
    with one frequency f_k = 10000^(-2k/d) per pair of columns (2k, 2k+1).
    """
    freqs = [10000.0 ** (-2 * k / d) for k in range((d + 1) // 2)]
    table = []
    for p in range(n):
        row = []
        for c in range(d):
            angle = p * freqs[c // 2]
            row.append(math.cos(angle) if c % 2 else math.sin(angle))
        table.append(row)
    return table


def layer_norm(row, eps=1e-5):
    """Centre on the mean (pass 1),
    then scale by 1/√(mean square of the centred values + eps) (pass 2).
    """
    mean = math.fsum(row) / len(row)
    centred = [x - mean for x in row]
    square_sum = 0.0
    for c in centred:
        square_sum += c * c
    inv_std = 1.0 / math.sqrt(square_sum / len(row) + eps)
    return [c * inv_std for c in centred]


def block(X, h, mask=None):
    """Pre-LN residual block: X + multi_head(N, N, N, h, mask), N the row-wise layer norm of X."""
    N = [layer_norm(row) for row in X]
    mixed = multi_head(N, N, N, h, mask)
    out = []
    for i in range(len(X)):
        out.append([X[i][c] + mixed[i][c] for c in range(len(X[i]))])
    return out
