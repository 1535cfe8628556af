"""Step 7: model.block against the independent implementation, the contract and the checkpoints."""

import pytest

import model
from tests.fixtures import independent
from tests.fixtures.helpers import (
    SEEDS,
    assert_checkpoint_passes,
    assert_close,
    assert_hidden_judge_passes,
    heads_and_width,
    matrix,
    random_mask,
    rng,
    shape,
)

pytestmark = pytest.mark.step07


def block_case(seed):
    """X n × d (scale 3, ×10 on seeds 2, 3 mod 4), h, and a causal mask on odd seeds."""
    r = rng("block", seed)
    n = r.randint(1, 8)
    h, d = heads_and_width(r)
    X = matrix(r, n, d, 30.0 if seed % 4 >= 2 else 3.0)
    return X, h, model.causal_mask(n) if seed % 2 else None


@pytest.mark.parametrize("seed", SEEDS)
def test_matches_independent(seed):
    """Seeded block outputs agree with the independent block to 1e-12 and keep the input's shape."""
    X, h, mask = block_case(seed)
    got = model.block(X, h, mask=mask)
    assert shape(got) == shape(X)
    assert_close(got, independent.block(X, h, mask=mask))


@pytest.mark.parametrize("seed", SEEDS)
def test_matches_independent_with_a_non_causal_mask(seed):
    """With a random mask in which queries see later keys, block agrees with the independent block
    to 1e-12, and differs from what the causal mask would give (so the mask given is used)."""
    r = rng("block.patchy", seed)
    n = r.randint(2, 8)
    h, d = heads_and_width(r)
    X = matrix(r, n, d, 3.0)
    mask = random_mask(r, n, n)
    mask[0][n - 1] = True  # query 0 sees the last key: never causal
    got = model.block(X, h, mask=mask)
    assert_close(got, independent.block(X, h, mask=mask))
    causal = independent.block(X, h, mask=independent.causal_mask(n))
    assert max(abs(a - b) for ra, rb in zip(got, causal) for a, b in zip(ra, rb)) > 1e-6


def test_is_residual_of_normed_attention():
    """block(X) - X equals multi_head(N, N, N, h, mask) with N the row-wise layer norm of X."""
    X, h, mask = block_case(101)
    N = [model.layer_norm(row) for row in X]
    delta = [
        [b - x for b, x in zip(brow, xrow)] for brow, xrow in zip(model.block(X, h, mask=mask), X)
    ]
    assert_close(delta, model.multi_head(N, N, N, h, mask=mask))


def test_checkpoint_passes():
    """The visible block checkpoint holds for the reference."""
    assert_checkpoint_passes("block", model)


def test_hidden_judge_passes():
    """The hidden block judge finds no failing case when judging the reference."""
    assert_hidden_judge_passes("block", model)
