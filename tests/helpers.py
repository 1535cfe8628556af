"""Shared by the step tests: seeded inputs, and comparing nested lists of floats to a tolerance."""

import math
import random

from grading.hidden import random_mask  # noqa: F401 (one mask generator for grader and tests)

TOL = 1e-12
SEEDS = range(12)  # parametrised seeds; odd seeds use large (×100) magnitudes where apt


def assert_close(got, want, tol=TOL, where="value"):
    """Same nesting and lengths; bools equal; floats within tol · (1 + max(|got|, |want|))."""
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)), f"{where}: expected a list, got {got!r}"
        assert len(got) == len(want), f"{where}: length {len(got)}, expected {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, tol, f"{where}[{i}]")
    elif isinstance(want, bool):
        assert got is want, f"{where}: {got!r}, expected {want!r}"
    else:
        assert isinstance(got, (int, float)) and math.isfinite(got), (
            f"{where}: {got!r} is not a finite number"
        )
        assert abs(got - want) <= tol * (1.0 + max(abs(got), abs(want))), (
            f"{where}: {got!r}, expected {want!r}"
        )


def rng(tag, seed):
    """A random.Random private to one test and seed."""
    return random.Random(f"{tag}:{seed}")


def matrix(r, rows, cols, scale=1.0):
    """rows × cols Gaussian values of standard deviation scale."""
    return [[r.gauss(0.0, scale) for _ in range(cols)] for _ in range(rows)]


def integer_matrix(r, rows, cols, scale=100.0):
    """Like matrix, rounded to whole numbers: dot products are then exact in any summation order,
    so large-magnitude scores agree to the last bit and 1e-12 tests the algorithm, not rounding."""
    return [[float(round(r.gauss(0.0, scale))) for _ in range(cols)] for _ in range(rows)]


def heads_and_width(r):
    """h from {1, 2, 4, 8} and a d in 8..64 that h divides."""
    h = r.choice((1, 2, 4, 8))
    return h, h * r.randint(-(-8 // h), 64 // h)


def shape(M):
    """(rows, cols) of a rectangular matrix."""
    widths = {len(row) for row in M}
    assert len(widths) == 1, f"ragged matrix, row widths {sorted(widths)}"
    return len(M), widths.pop()


def assert_checkpoint_passes(name, module):
    """checkpoints.steps.CHECKS[name] holds for module."""
    from checkpoints.steps import CHECKS

    report = CHECKS[name](module)
    assert report.passed, repr(report)


def assert_hidden_judge_passes(name, module):
    """grading.hidden.judge finds no failing case for module."""
    from grading.hidden import judge

    total, failures = judge(name, module)
    assert total > 0 and failures == [], (
        f"{len(failures)} of {total} hidden cases fail: {failures[:3]}"
    )
