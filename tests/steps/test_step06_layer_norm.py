"""Step 6: model.layer_norm against the independent implementation,
the contract and the checkpoints.
"""

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

pytestmark = pytest.mark.step06


def row_and_eps(seed):
    """A row of 8..64 values around an offset, ×100 on odd seeds; eps varies on every third seed."""
    r = rng("layer_norm", seed)
    scale = 100.0 if seed % 2 else 1.0
    offset = r.gauss(0.0, 10.0 * scale)
    row = [offset + r.gauss(0.0, scale) for _ in range(r.randint(8, 64))]
    return row, (r.choice([1e-3, 0.5, 2.0]) if seed % 3 == 0 else 1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_matches_independent(seed):
    """Seeded rows agree with the loop-based layer norm to 1e-12 (default eps and others)."""
    row, eps = row_and_eps(seed)
    assert_close(model.layer_norm(row, eps=eps), independent.layer_norm(row, eps=eps))
    assert_close(model.layer_norm(row), independent.layer_norm(row))


@pytest.mark.parametrize("seed", SEEDS)
def test_mean_zero_and_variance(seed):
    """The result has mean 0 and population variance var / (var + eps)."""
    row, eps = row_and_eps(seed)
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    got = model.layer_norm(row, eps=eps)
    assert_close(sum(got) / len(got), 0.0)
    assert_close(sum(x * x for x in got) / len(got), var / (var + eps))


@pytest.mark.parametrize("value, d", [(3.0, 4), (-7.5, 8), (0.1, 5), (1e6, 16)])
def test_constant_row_gives_zeros(value, d):
    """A constant row has nothing to normalise: the result is all zeros
    (eps keeps √ away from 0).
    """
    assert_close(model.layer_norm([value] * d), [0.0] * d)


def test_checkpoint_passes():
    """The visible layer-norm checkpoint holds for the reference."""
    assert_checkpoint_passes("layer_norm", model)


def test_hidden_judge_passes():
    """The hidden layer-norm judge finds no failing case when judging the reference."""
    assert_hidden_judge_passes("layer_norm", model)
