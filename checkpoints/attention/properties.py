"""The properties the checkpoints test, as small predicates on plain lists (no solution code).

The grader's hidden checks use the same ones, so each fact about attention is stated once.
"""

import math

from ..compare import shape

SUM_TOLERANCE = 1e-9


def crashed(value):
    """True for the exception a call returned instead of raising (see probes.call)."""
    return isinstance(value, BaseException)


def is_matrix(value, rows=None, cols=None):
    """A list of equal-length rows, optionally of a given size."""
    s = shape(value)
    return len(s) == 2 and rows in (None, s[0]) and cols in (None, s[1])


def is_pair(value):
    """attention's contract: the pair (out, weights), both matrices."""
    return isinstance(value, (tuple, list)) and len(value) == 2 and all(map(is_matrix, value))


def pair_part(value, k):
    """Item k of a returned pair (0: out, 1: weights); anything else is passed on as it is."""
    return value[k] if isinstance(value, (tuple, list)) and len(value) == 2 else value


def sums_to_one(values):
    """Σ values = 1, to 1e-9."""
    return abs(sum(values) - 1.0) <= SUM_TOLERANCE


def rows_sum_to_one(weights):
    """Every row of a weight matrix is a probability distribution's total."""
    return is_matrix(weights) and all(sums_to_one(row) for row in weights)


def all_finite(values):
    """No inf and no nan: what an overflowing exp leaves behind."""
    return all(math.isfinite(v) for v in values)


def mean(values):
    """Σ x / n."""
    return sum(values) / len(values)


def variance(values):
    """Σ (x - mean)² / n: the population variance layer norm divides by."""
    m = mean(values)
    return sum((x - m) ** 2 for x in values) / len(values)


def hidden_keys(mask):
    """(query, key) positions a mask hides."""
    return [(i, j) for i, row in enumerate(mask) for j, keep in enumerate(row) if not keep]


def leaks(weights, mask):
    """(i, j, weight) for hidden positions whose weight is not exactly 0.

    Exactly zero is the contract: exp(-inf) is 0.0, and so is exp of any huge negative score.
    """
    return [(i, j, weights[i][j]) for i, j in hidden_keys(mask) if weights[i][j] != 0.0]


def renormalised(weights, mask):
    """Unmasked weights restricted to the visible keys, each row rescaled to sum to 1.

    Masking must give exactly this: softmax over fewer keys keeps the visible keys' proportions.
    """
    kept = [[w if keep else 0.0 for w, keep in zip(row, mrow)] for row, mrow in zip(weights, mask)]
    return [[w / sum(row) for w in row] for row in kept]


def proportions(weights, mask):
    """Each row's visible weights as shares of their own total (a row whose visible weights are
    all 0 stays as it is): wᵢⱼ / Σ_visible wᵢₖ. The proportions, whatever the row sums to."""
    kept = [[w if keep else 0.0 for w, keep in zip(row, mrow)] for row, mrow in zip(weights, mask)]
    return [[w / sum(row) for w in row] if sum(row) else row for row in kept]
