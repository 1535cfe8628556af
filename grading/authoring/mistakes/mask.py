"""Step 3, the causal mask: the catalogued mistakes "mask.*" as code.

Each function is what a learner with that mistake writes, under the name of its mistake;
@mistake registers it as the function of model.py it replaces, @spelling as another way
of writing the same mistake. The text stays exactly as a learner writes it (no formatter).
"""

import math
from typing import TYPE_CHECKING

from grading.authoring.mistakes.register import mistake, spelling

if TYPE_CHECKING:  # the reference's own functions, which model.py holds beside the mistake
    from model import dot, softmax


# A learner's code, exactly as written: the formatter keeps out of it.
# fmt: off
@mistake("mask.transposed", replaces="causal_mask")
def transposed(n):
    return [[j >= i for j in range(n)] for i in range(n)]


@spelling("mask.transposed", replaces="causal_mask")
def transposed_spelling_1(n):
    mask = []
    for i in range(n):
        mask.append([i <= j for j in range(n)])
    return mask


@mistake("mask.strict", replaces="causal_mask")
def strict(n):
    return [[i > j for j in range(n)] for i in range(n)]


@spelling("mask.strict", replaces="causal_mask")
def strict_spelling_1(n):
    mask = [[False] * n for _ in range(n)]
    for i in range(n):
        for j in range(i):
            mask[i][j] = True
    return mask


@mistake("mask.multiply_after_softmax", replaces="attention")
def multiply_after_softmax(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    if mask is not None:
        weights = [[w * m for w, m in zip(row, mrow)] for row, mrow in zip(weights, mask)]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@spelling("mask.multiply_after_softmax", replaces="attention")
def multiply_after_softmax_spelling_1(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = []
    for i, q in enumerate(Q):
        row = softmax([dot(q, k) / scale for k in K])
        if mask is not None:
            row = [w if mask[i][j] else 0.0 for j, w in enumerate(row)]
        weights.append(row)
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@mistake("mask.softmax_twice", replaces="attention")
def softmax_twice(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    if mask is not None:
        weights = [softmax([w * m for w, m in zip(row, mrow)]) for row, mrow in zip(weights, mask)]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@spelling("mask.softmax_twice", replaces="attention")
def softmax_twice_spelling_1(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = []
    for i, q in enumerate(Q):
        row = softmax([dot(q, k) / scale for k in K])
        if mask is not None:
            row = softmax([w if mask[i][j] else 0.0 for j, w in enumerate(row)])
        weights.append(row)
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@mistake("mask.zero_scores", replaces="attention")
def zero_scores(Q, K, V, mask=None):
    scores = [[dot(q, k) / math.sqrt(len(K[0])) for k in K] for q in Q]
    if mask is not None:
        scores = [[s if m else 0.0 for s, m in zip(row, mrow)] for row, mrow in zip(scores, mask)]
    weights = [softmax(row) for row in scores]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@spelling("mask.zero_scores", replaces="attention")
def zero_scores_spelling_1(Q, K, V, mask=None):
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


@mistake("mask.ignored", replaces="attention")
def ignored(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@spelling("mask.ignored", replaces="attention")
def ignored_spelling_1(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = []
    for q in Q:
        weights.append(softmax([dot(q, k) / scale for k in K]))
    out = [[sum(weights[i][j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))]
           for i in range(len(Q))]
    return out, weights


@mistake("mask.inverted", replaces="attention")
def inverted(Q, K, V, mask=None):
    scores = [[dot(q, k) / math.sqrt(len(K[0])) for k in K] for q in Q]
    if mask is not None:
        scores = [[-math.inf if m else s for s, m in zip(row, mrow)]
                  for row, mrow in zip(scores, mask)]
    weights = [softmax(row) for row in scores]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@spelling("mask.inverted", replaces="attention")
def inverted_spelling_1(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = []
    for i, q in enumerate(Q):
        scores = [dot(q, k) / scale for k in K]
        if mask is not None:
            scores = [s if not mask[i][j] else -math.inf for j, s in enumerate(scores)]
        weights.append(softmax(scores))
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@mistake("mask.all_visible", replaces="causal_mask")
def all_visible(n):
    return [[True] * n for _ in range(n)]


@spelling("mask.all_visible", replaces="causal_mask")
def all_visible_spelling_1(n):
    return [[True for j in range(n)] for i in range(n)]


@mistake("mask.complement", replaces="causal_mask")
def complement(n):
    return [[j > i for j in range(n)] for i in range(n)]


@spelling("mask.complement", replaces="causal_mask")
def complement_spelling_1(n):
    mask = [[False] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            mask[i][j] = True  # the future
    return mask


@mistake("mask.additive", replaces="causal_mask")
def additive(n):
    return [[0.0 if j <= i else -math.inf for j in range(n)] for i in range(n)]


@spelling("mask.additive", replaces="causal_mask")
def additive_spelling_1(n):
    mask = []
    for i in range(n):
        mask.append([0.0] * (i + 1) + [-1e9] * (n - i - 1))
    return mask
