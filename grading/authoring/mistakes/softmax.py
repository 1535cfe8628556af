"""Step 1, softmax: the catalogued mistakes "softmax.*" as code.

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
@mistake("softmax.no_max_shift", replaces="softmax")
def no_max_shift(xs):
    exps = [math.exp(x) for x in xs]
    total = sum(exps)
    return [e / total for e in exps]


@spelling("softmax.no_max_shift", replaces="softmax")
def no_max_shift_spelling_1(xs):
    total = 0.0
    for x in xs:
        total += math.exp(x)
    return [math.exp(x) / total for x in xs]


@mistake("softmax.divide_by_max", replaces="softmax")
def divide_by_max(xs):
    exps = [math.exp(x - max(xs)) for x in xs]
    return [e / max(exps) for e in exps]


@spelling("softmax.divide_by_max", replaces="softmax")
def divide_by_max_spelling_1(xs):
    top = max(xs)
    exps = []
    for x in xs:
        exps.append(math.exp(x - top))
    biggest = max(exps)
    return [e / biggest for e in exps]


@mistake("softmax.no_normalising", replaces="softmax")
def no_normalising(xs):
    return [math.exp(x) for x in xs]


@spelling("softmax.no_normalising", replaces="softmax")
def no_normalising_spelling_1(xs):
    out = []
    for x in xs:
        out.append(math.exp(x))
    return out


@mistake("softmax.wrong_axis", replaces="attention")
def wrong_axis(Q, K, V, mask=None):
    scores = [[dot(q, k) / math.sqrt(len(K[0])) for k in K] for q in Q]
    by_column = [softmax([row[j] for row in scores]) for j in range(len(K))]
    weights = [[by_column[j][i] for j in range(len(K))] for i in range(len(Q))]
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights


@spelling("softmax.wrong_axis", replaces="attention")
def wrong_axis_spelling_1(Q, K, V, mask=None):
    d_k = len(K[0])
    scores = [[sum(a * b for a, b in zip(q, k)) / math.sqrt(d_k) for k in K] for q in Q]
    columns = [softmax(list(col)) for col in zip(*scores)]
    weights = [list(row) for row in zip(*columns)]
    out = [[sum(weights[i][j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))]
           for i in range(len(Q))]
    return out, weights


@mistake("softmax.temperature", replaces="softmax")
def temperature(xs):
    top = max(xs)
    exps = [math.exp((x - top) / 2) for x in xs]
    return [e / sum(exps) for e in exps]


@spelling("softmax.temperature", replaces="softmax")
def temperature_spelling_1(xs, temperature=2.0):
    scaled = [x / temperature for x in xs]
    top = max(scaled)
    exps = [math.exp(x - top) for x in scaled]
    total = sum(exps)
    return [e / total for e in exps]


@mistake("softmax.min_shift", replaces="softmax")
def min_shift(xs):
    low = min(xs)
    exps = [math.exp(x - low) for x in xs]
    total = sum(exps)
    return [e / total for e in exps]


@spelling("softmax.min_shift", replaces="softmax")
def min_shift_spelling_1(xs):
    shift = sorted(xs)[0]
    result, total = [], 0.0
    for x in xs:
        e = math.exp(x - shift)
        result.append(e)
        total += e
    return [e / total for e in result]


@mistake("softmax.normalise_scores", replaces="softmax")
def normalise_scores(xs):
    total = sum(xs)
    return [x / total for x in xs]


@spelling("softmax.normalise_scores", replaces="softmax")
def normalise_scores_spelling_1(xs):
    out = []
    for x in xs:
        out.append(x / sum(xs))
    return out
