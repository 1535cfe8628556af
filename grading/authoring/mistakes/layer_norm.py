"""Step 6, layer norm: the catalogued mistakes "layer_norm.*" as code.

Each function is what a learner with that mistake writes, under the name of its mistake;
@mistake registers it as the function of model.py it replaces, @spelling as another way
of writing the same mistake. The text stays exactly as a learner writes it (no formatter).
"""

import math
from typing import TYPE_CHECKING

from grading.authoring.mistakes.register import both, mistake, spelling

if TYPE_CHECKING:  # the reference's own functions, which model.py holds beside the mistake
    from model import layer_norm, multi_head


# A learner's code, exactly as written: the formatter keeps out of it.
# fmt: off
@mistake("layer_norm.unbiased_variance", replaces="layer_norm")
def unbiased_variance(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / (len(row) - 1)
    return [(x - mean) / math.sqrt(var + eps) for x in row]


@spelling("layer_norm.unbiased_variance", replaces="layer_norm")
def unbiased_variance_spelling_1(row, eps=1e-5):
    n = len(row)
    mean = sum(row) / n
    sq = 0.0
    for x in row:
        sq += (x - mean) * (x - mean)
    return [(x - mean) / math.sqrt(sq / (n - 1) + eps) for x in row]


@both("layer_norm.unbiased_variance", "layer_norm.no_eps", replaces="layer_norm")
def unbiased_variance_no_eps(row, eps=1e-5):
    mean = sum(row) / len(row)
    sd = math.sqrt(sum((x - mean) ** 2 for x in row) / (len(row) - 1))
    return [(x - mean) / sd for x in row]


@mistake("layer_norm.eps_outside_sqrt", replaces="layer_norm")
def eps_outside_sqrt(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [(x - mean) / (math.sqrt(var) + eps) for x in row]


@spelling("layer_norm.eps_outside_sqrt", replaces="layer_norm")
def eps_outside_sqrt_spelling_1(row, eps=1e-5):
    mean = sum(row) / len(row)
    std = (sum((x - mean) ** 2 for x in row) / len(row)) ** 0.5
    return [(x - mean) / (std + eps) for x in row]


@mistake("layer_norm.no_mean_subtraction", replaces="layer_norm")
def no_mean_subtraction(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [x / math.sqrt(var + eps) for x in row]


@spelling("layer_norm.no_mean_subtraction", replaces="layer_norm")
def no_mean_subtraction_spelling_1(row, eps=1e-5):
    n = len(row)
    mean = sum(row) / n
    var = sum(x * x for x in row) / n - mean * mean
    return [x / math.sqrt(var + eps) for x in row]


@mistake("layer_norm.no_eps", replaces="layer_norm")
def no_eps(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [(x - mean) / math.sqrt(var) for x in row]


@spelling("layer_norm.no_eps", replaces="layer_norm")
def no_eps_spelling_1(row, eps=1e-5):
    mean = sum(row) / len(row)
    std = math.sqrt(sum((x - mean) ** 2 for x in row) / len(row))
    return [(x - mean) / std for x in row]


@mistake("layer_norm.across_positions", replaces="block")
def across_positions(X, h, mask=None):
    columns = [layer_norm(list(col)) for col in zip(*X)]
    N = [list(row) for row in zip(*columns)]
    A = multi_head(N, N, N, h, mask)
    return [[x + a for x, a in zip(xr, ar)] for xr, ar in zip(X, A)]


@spelling("layer_norm.across_positions", replaces="block")
def across_positions_spelling_1(X, h, mask=None):
    n, d = len(X), len(X[0])
    N = [[0.0] * d for _ in range(n)]
    for c in range(d):
        column = layer_norm([X[i][c] for i in range(n)])
        for i in range(n):
            N[i][c] = column[i]
    A = multi_head(N, N, N, h, mask)
    return [[X[i][c] + A[i][c] for c in range(d)] for i in range(n)]


@mistake("layer_norm.divide_by_variance", replaces="layer_norm")
def divide_by_variance(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [(x - mean) / (var + eps) for x in row]


@spelling("layer_norm.divide_by_variance", replaces="layer_norm")
def divide_by_variance_spelling_1(row, eps=1e-5):
    n = len(row)
    mean = sum(row) / n
    var = 0.0
    for x in row:
        var += (x - mean) ** 2 / n
    return [(x - mean) / (var + eps) for x in row]


@mistake("layer_norm.eps_not_in_signature", replaces="layer_norm")
def eps_not_in_signature(row):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [(x - mean) / math.sqrt(var) for x in row]


@spelling("layer_norm.eps_not_in_signature", replaces="layer_norm")
def eps_not_in_signature_spelling_1(row):
    mean = sum(row) / len(row)
    std = math.sqrt(sum((x - mean) * (x - mean) for x in row) / len(row))
    return [(x - mean) / std for x in row]


@mistake("layer_norm.hard_coded_eps", replaces="layer_norm")
def hard_coded_eps(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [(x - mean) / math.sqrt(var + 1e-5) for x in row]


@spelling("layer_norm.hard_coded_eps", replaces="layer_norm")
def hard_coded_eps_spelling_1(row, eps=1e-5):
    EPS = 1e-5
    n = len(row)
    mean = sum(row) / n
    std = math.sqrt(sum((x - mean) ** 2 for x in row) / n + EPS)
    return [(x - mean) / std for x in row]


@mistake("layer_norm.wrong_default_eps", replaces="layer_norm")
def wrong_default_eps(row, eps=1e-6):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [(x - mean) / math.sqrt(var + eps) for x in row]


@spelling("layer_norm.wrong_default_eps", replaces="layer_norm")
def wrong_default_eps_spelling_1(row, eps=0.000001):
    n = len(row)
    mean = sum(row) / n
    var = sum((x - mean) * (x - mean) for x in row) / n
    return [(x - mean) / (var + eps) ** 0.5 for x in row]


@mistake("layer_norm.rms_norm", replaces="layer_norm")
def rms_norm(row, eps=1e-5):
    ms = sum(x * x for x in row) / len(row)
    return [x / math.sqrt(ms + eps) for x in row]


@spelling("layer_norm.rms_norm", replaces="layer_norm")
def rms_norm_spelling_1(row, eps=1e-5):
    rms = math.sqrt(sum(x ** 2 for x in row) / len(row) + eps)
    return [x / rms for x in row]
