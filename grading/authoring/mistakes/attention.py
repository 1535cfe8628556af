"""Step 2, attention: the catalogued mistakes "attention.*" as code.

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
@mistake("attention.no_scaling", replaces="attention")
def no_scaling(Q, K, V, mask=None):
    scores = [[dot(q, k) for k in K] for q in Q]
    if mask is not None:
        scores = [[s if m else -math.inf for s, m in zip(row, mrow)]
                  for row, mrow in zip(scores, mask)]
    weights = [softmax(row) for row in scores]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@spelling("attention.no_scaling", replaces="attention")
def no_scaling_spelling_1(Q, K, V, mask=None):
    weights = []
    for i, q in enumerate(Q):
        row = [sum(a * b for a, b in zip(q, k)) for k in K]
        if mask is not None:
            row = [-math.inf if not mask[i][j] else s for j, s in enumerate(row)]
        weights.append(softmax(row))
    out = [[sum(weights[i][j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))]
           for i in range(len(Q))]
    return out, weights


@mistake("attention.divide_by_d", replaces="attention")
def divide_by_d(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / len(K[0]) for k in K]) for q in Q]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@spelling("attention.divide_by_d", replaces="attention")
def divide_by_d_spelling_1(Q, K, V, mask=None):
    d_k = len(K[0])
    weights = []
    for q in Q:
        weights.append(softmax([dot(q, k) / d_k for k in K]))
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@mistake("attention.scale_by_n_keys", replaces="attention")
def scale_by_n_keys(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K)) for k in K]) for q in Q]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@spelling("attention.scale_by_n_keys", replaces="attention")
def scale_by_n_keys_spelling_1(Q, K, V, mask=None):
    n_k = len(K)
    scores = [[dot(q, k) / n_k ** 0.5 for k in K] for q in Q]
    weights = [softmax(row) for row in scores]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@mistake("attention.scale_after_softmax", replaces="attention")
def scale_after_softmax(Q, K, V, mask=None):
    weights = [[w / math.sqrt(len(K[0])) for w in softmax([dot(q, k) for k in K])] for q in Q]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@spelling("attention.scale_after_softmax", replaces="attention")
def scale_after_softmax_spelling_1(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = []
    for q in Q:
        row = softmax([dot(q, k) for k in K])
        weights.append([w / scale for w in row])
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@mistake("attention.weights_transposed", replaces="attention")
def weights_transposed(Q, K, V, mask=None):
    right = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    weights = [list(column) for column in zip(*right)]
    out = [[sum(weights[j][i] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))]
           for i in range(len(Q))]
    return out, weights


@spelling("attention.weights_transposed", replaces="attention")
def weights_transposed_spelling_1(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    rows = [softmax([dot(q, k) / scale for k in K]) for q in Q]
    weights = [[rows[i][j] for i in range(len(Q))] for j in range(len(K))]
    out = []
    for i in range(len(Q)):
        out.append([sum(weights[j][i] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))])
    return out, weights


@mistake("attention.returns_out_only", replaces="attention")
def returns_out_only(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    return [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]


@spelling("attention.returns_out_only", replaces="attention")
def returns_out_only_spelling_1(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    out = []
    for q in Q:
        w = softmax([dot(q, k) / scale for k in K])
        out.append([sum(w[j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))])
    return out


@mistake("attention.returns_pair_swapped", replaces="attention")
def returns_pair_swapped(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return weights, out


@spelling("attention.returns_pair_swapped", replaces="attention")
def returns_pair_swapped_spelling_1(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights, out = [], []
    for q in Q:
        w = softmax([dot(q, k) / scale for k in K])
        weights.append(w)
        out.append([sum(w[j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))])
    return (weights, out)


@mistake("attention.v_transposed", replaces="attention")
def v_transposed(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    out = [[sum(w * V[c][j] for j, w in enumerate(row)) for c in range(len(V[0]))]
           for row in weights]
    return out, weights


@spelling("attention.v_transposed", replaces="attention")
def v_transposed_spelling_1(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = [softmax([dot(q, k) / scale for k in K]) for q in Q]
    out = []
    for row in weights:
        out.append([sum(row[j] * V[c][j] for j in range(len(row))) for c in range(len(V[0]))])
    return out, weights


@mistake("attention.scores_from_v", replaces="attention")
def scores_from_v(Q, K, V, mask=None):
    weights = [softmax([dot(q, v) / math.sqrt(len(K[0])) for v in V]) for q in Q]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@spelling("attention.scores_from_v", replaces="attention")
def scores_from_v_spelling_1(Q, K, V, mask=None):
    d_k = len(K[0])
    weights = []
    for q in Q:
        weights.append(softmax([sum(a * b for a, b in zip(q, v)) / math.sqrt(d_k) for v in V]))
    out = [[sum(weights[i][j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))]
           for i in range(len(Q))]
    return out, weights


@mistake("attention.output_from_k", replaces="attention")
def output_from_k(Q, K, V, mask=None):
    weights = [softmax([dot(q, k) / math.sqrt(len(K[0])) for k in K]) for q in Q]
    out = [[sum(w * k[c] for w, k in zip(row, K)) for c in range(len(K[0]))] for row in weights]
    return out, weights


@spelling("attention.output_from_k", replaces="attention")
def output_from_k_spelling_1(Q, K, V, mask=None):
    scale = math.sqrt(len(K[0]))
    weights = [softmax([dot(q, k) / scale for k in K]) for q in Q]
    out = []
    for row in weights:
        out.append([sum(row[j] * K[j][c] for j in range(len(K))) for c in range(len(K[0]))])
    return out, weights
