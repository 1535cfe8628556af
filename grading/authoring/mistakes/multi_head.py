"""Step 4, multi-head attention: the catalogued mistakes "multi_head.*" as code.

Each function is what a learner with that mistake writes, under the name of its mistake;
@mistake registers it as the function of model.py it replaces, @spelling as another way
of writing the same mistake. The text stays exactly as a learner writes it (no formatter).
"""

import math
from typing import TYPE_CHECKING

from grading.authoring.mistakes.register import mistake, spelling

if TYPE_CHECKING:  # the reference's own functions, which model.py holds beside the mistake
    from model import attention, causal_mask, columns, dot, softmax


# A learner's code, exactly as written: the formatter keeps out of it.
# fmt: off
@mistake("multi_head.full_d_scaling", replaces="multi_head")
def full_d_scaling(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    w = d // h
    grow = math.sqrt(d) / math.sqrt(w)   # attention divides by √w; shrink the queries to make it √d
    heads = [attention([[x / grow for x in r[k:k + w]] for r in Q], [r[k:k + w] for r in K],
                       [r[k:k + w] for r in V], mask)[0] for k in range(0, d, w)]
    return [[x for head in heads for x in head[i]] for i in range(len(Q))]


@spelling("multi_head.full_d_scaling", replaces="multi_head")
def full_d_scaling_spelling_1(Q, K, V, h, mask=None):
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


@mistake("multi_head.interleaved_split", replaces="multi_head")
def interleaved_split(Q, K, V, h, mask=None):
    if len(Q[0]) % h:
        raise ValueError("d must be divisible by h")
    heads = [attention([r[k::h] for r in Q], [r[k::h] for r in K], [r[k::h] for r in V], mask)[0]
             for k in range(h)]
    return [[x for head in heads for x in head[i]] for i in range(len(Q))]


@spelling("multi_head.interleaved_split", replaces="multi_head")
def interleaved_split_spelling_1(Q, K, V, h, mask=None):
    if len(Q[0]) % h != 0:
        raise ValueError("d must be divisible by h")
    out = [[] for _ in Q]
    for k in range(h):
        pick = lambda M: [[r[c] for c in range(k, len(r), h)] for r in M]
        head = attention(pick(Q), pick(K), pick(V), mask)[0]
        for i, row in enumerate(head):
            out[i].extend(row)
    return out


@mistake("multi_head.heads_summed", replaces="multi_head")
def heads_summed(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    w = d // h
    heads = [attention([r[k:k + w] for r in Q], [r[k:k + w] for r in K],
                       [r[k:k + w] for r in V], mask)[0]
             for k in range(0, d, w)]
    return [[sum(head[i][c] for head in heads) for c in range(w)] for i in range(len(Q))]


@spelling("multi_head.heads_summed", replaces="multi_head")
def heads_summed_spelling_1(Q, K, V, h, mask=None):
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


@mistake("multi_head.heads_averaged", replaces="multi_head")
def heads_averaged(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    w = d // h
    heads = [attention([r[k:k + w] for r in Q], [r[k:k + w] for r in K],
                       [r[k:k + w] for r in V], mask)[0]
             for k in range(0, d, w)]
    return [[sum(head[i][c] for head in heads) / h for c in range(w)] for i in range(len(Q))]


@spelling("multi_head.heads_averaged", replaces="multi_head")
def heads_averaged_spelling_1(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h != 0:
        raise ValueError("d must be divisible by h")
    w = d // h
    heads = []
    for k in range(h):
        heads.append(attention([r[k * w:(k + 1) * w] for r in Q], [r[k * w:(k + 1) * w] for r in K],
                               [r[k * w:(k + 1) * w] for r in V], mask)[0])
    return [[sum(col) / len(col) for col in zip(*rows)] for rows in zip(*heads)]


@mistake("multi_head.mask_dropped", replaces="multi_head")
def mask_dropped(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    w = d // h
    heads = [attention([r[k:k + w] for r in Q], [r[k:k + w] for r in K], [r[k:k + w] for r in V])[0]
             for k in range(0, d, w)]
    return [[x for head in heads for x in head[i]] for i in range(len(Q))]


@spelling("multi_head.mask_dropped", replaces="multi_head")
def mask_dropped_spelling_1(Q, K, V, h, mask=None):
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


@mistake("multi_head.reversed_heads", replaces="multi_head")
def reversed_heads(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    w = d // h
    heads = [attention([r[k:k + w] for r in Q], [r[k:k + w] for r in K],
                       [r[k:k + w] for r in V], mask)[0]
             for k in range(0, d, w)]
    return [[x for head in reversed(heads) for x in head[i]] for i in range(len(Q))]


@spelling("multi_head.reversed_heads", replaces="multi_head")
def reversed_heads_spelling_1(Q, K, V, h, mask=None):
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


@mistake("multi_head.heads_averaged_tiled", replaces="multi_head")
def heads_averaged_tiled(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    w = d // h
    heads = [attention([r[k:k + w] for r in Q], [r[k:k + w] for r in K],
                       [r[k:k + w] for r in V], mask)[0]
             for k in range(0, d, w)]
    mean = [[sum(head[i][c] for head in heads) / h for c in range(w)] for i in range(len(Q))]
    return [row * h for row in mean]


@spelling("multi_head.heads_averaged_tiled", replaces="multi_head")
def heads_averaged_tiled_spelling_1(Q, K, V, h, mask=None):
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


@mistake("multi_head.ignores_given_mask", replaces="multi_head")
def ignores_given_mask(Q, K, V, h, mask=None):
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


@spelling("multi_head.ignores_given_mask", replaces="multi_head")
def ignores_given_mask_spelling_1(Q, K, V, h, mask=None):
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


@mistake("multi_head.no_value_error", replaces="multi_head")
def no_value_error(Q, K, V, h, mask=None):
    d = len(Q[0])
    width = d // h
    heads = []
    for s in range(0, d, width):
        Q_k, K_k, V_k = columns(Q, s, s + width), columns(K, s, s + width), columns(V, s, s + width)
        heads.append(attention(Q_k, K_k, V_k, mask)[0])
    return [[x for head in heads for x in head[i]] for i in range(len(Q))]


@spelling("multi_head.no_value_error", replaces="multi_head")
def no_value_error_spelling_1(Q, K, V, h, mask=None):
    d_k = len(Q[0]) // h
    out = [[] for _ in Q]
    for k in range(h):
        cols = slice(k * d_k, (k + 1) * d_k)
        head, _ = attention([r[cols] for r in Q], [r[cols] for r in K], [r[cols] for r in V], mask)
        for i, row in enumerate(head):
            out[i] += row
    return out


@mistake("multi_head.always_causal", replaces="multi_head")
def always_causal(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h:
        raise ValueError("d must be divisible by h")
    mask = [[i >= j for j in range(len(K))] for i in range(len(Q))]  # a decoder: always causal
    w = d // h
    heads = [attention([r[k:k + w] for r in Q], [r[k:k + w] for r in K],
                       [r[k:k + w] for r in V], mask)[0]
             for k in range(0, d, w)]
    return [[x for head in heads for x in head[i]] for i in range(len(Q))]


@spelling("multi_head.always_causal", replaces="multi_head")
def always_causal_spelling_1(Q, K, V, h, mask=None):
    d = len(Q[0])
    if d % h != 0:
        raise ValueError(f"d = {d} is not divisible by h = {h}")
    causal = causal_mask(len(Q))
    w = d // h
    out = [[] for _ in Q]
    for k in range(h):
        head = attention([r[k * w:(k + 1) * w] for r in Q], [r[k * w:(k + 1) * w] for r in K],
                         [r[k * w:(k + 1) * w] for r in V], causal)[0]
        for i, row in enumerate(head):
            out[i] = out[i] + row
    return out
