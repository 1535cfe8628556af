"""Step 1: model.softmax against the independent implementation,
the contract and the checkpoints.
"""

import math

import pytest

import model
from tests.fixtures import independent
from tests.fixtures.helpers import (
    SEEDS,
    assert_checkpoint_passes,
    assert_close,
    assert_hidden_judge_passes,
    rng,
)

pytestmark = pytest.mark.step01


@pytest.mark.parametrize("seed", SEEDS)
def test_matches_independent(seed):
    """Seeded vectors of length 1-8, ×100 on odd seeds,
    agree with the log-sum-exp softmax to 1e-12.
    """
    r = rng("softmax", seed)
    xs = [r.gauss(0.0, 1.0) * (100.0 if seed % 2 else 1.0) for _ in range(r.randint(1, 8))]
    assert_close(model.softmax(xs), independent.softmax(xs))


@pytest.mark.parametrize(
    "xs", [[1000.0, 1001.0, 1002.0], [-1000.0, -1001.0, -999.0], [3.0], [2.5, 2.5, 2.5]]
)
def test_edge_inputs(xs):
    """Huge, tiny, single and tied inputs give finite values that sum to 1
    and match the independent one.
    """
    got = model.softmax(xs)
    assert all(math.isfinite(v) for v in got)
    assert_close(sum(got), 1.0)
    assert_close(got, independent.softmax(xs))


def test_checkpoint_passes():
    """The visible softmax checkpoint holds for the reference."""
    assert_checkpoint_passes("softmax", model)


def test_hidden_judge_passes():
    """The hidden softmax judge finds no failing case when judging the reference."""
    assert_hidden_judge_passes("softmax", model)


def test_failed_checkpoint_shows_one_line_not_a_traceback():
    """IPython renders a CheckpointFailed as one line (the report above it carries the details)."""
    from checkpoints import CheckpointFailed

    lines = CheckpointFailed("softmax: 2 of 7 checks fail")._render_traceback_()
    assert len(lines) == 1 and "softmax: 2 of 7 checks fail" in lines[0]
