"""Small statistics of the learner's answers that both parts' detectors read: a mean, a spread, a
straight-line fit, a tolerance. Computed on the answers and the probes' inputs, never the functions
the learner writes."""

import math

CLOSE = 1e-9  # two numbers computed the same way in floats agree to this (relative)
NEAR = 1e-3  # a statistic read from answers matches a candidate to this (relative)


def numbers(value):
    """value as a list of floats, or None when it is not a flat list of numbers."""
    if isinstance(value, list) and value and all(isinstance(v, float) for v in value):
        return value if all(math.isfinite(v) for v in value) else None
    return None


def close(a, b, tol=CLOSE):
    """|a - b| <= tol · max(1, |a|, |b|)."""
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def mean(xs):
    """Σ x / n."""
    return sum(xs) / len(xs)


def spread(xs, divisor):
    """Σ (x - mean)² / divisor."""
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / divisor


def affine_fit(xs, ys):
    """(a, b) with y = a·x + b for every pair, or None when no straight line holds them."""
    lo, hi = xs.index(min(xs)), xs.index(max(xs))
    if xs[hi] == xs[lo]:
        return None
    a = (ys[hi] - ys[lo]) / (xs[hi] - xs[lo])
    b = ys[lo] - a * xs[lo]
    scale = max(abs(y) for y in ys) or 1.0
    if all(abs(a * x + b - y) <= CLOSE * scale for x, y in zip(xs, ys)):
        return a, b
    return None
