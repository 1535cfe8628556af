"""Step 3: model.causal_mask and masked attention against the independent implementation
and the checkpoints.
"""

import pytest

import model
from tests.fixtures import independent
from tests.fixtures.helpers import (
    SEEDS,
    assert_checkpoint_passes,
    assert_close,
    assert_hidden_judge_passes,
    integer_matrix,
    matrix,
    random_mask,
    rng,
)

pytestmark = pytest.mark.step03


def masked_case(seed):
    """Q, K, V and a mask, causal on even seeds, random on odd;
    ×100 whole-number Q, K on seeds 2, 3 mod 4.
    """
    r = rng("causal_mask", seed)
    n_q, d = r.randint(1, 8), r.randint(8, 64)
    n_k = n_q if seed % 2 == 0 else r.randint(1, 8)
    mask = model.causal_mask(n_q) if seed % 2 == 0 else random_mask(r, n_q, n_k)
    make = integer_matrix if seed % 4 >= 2 else matrix
    return make(r, n_q, d), make(r, n_k, d), matrix(r, n_k, r.randint(1, 16)), mask


@pytest.mark.parametrize("n", range(1, 9))
def test_mask_is_lower_triangle(n):
    """causal_mask(n)[i][j] is True exactly when i >= j, like the independent one."""
    assert model.causal_mask(n) == [[i >= j for j in range(n)] for i in range(n)]
    assert_close(model.causal_mask(n), independent.causal_mask(n))


@pytest.mark.parametrize("seed", SEEDS)
def test_masked_attention_matches_independent(seed):
    """Seeded masked (out, weights) agree with the huge-negative-then-zero masking to 1e-12."""
    Q, K, V, mask = masked_case(seed)
    out, weights = model.attention(Q, K, V, mask=mask)
    want_out, want_weights = independent.attention(Q, K, V, mask=mask)
    assert_close(weights, want_weights)
    assert_close(out, want_out)


@pytest.mark.parametrize("seed", SEEDS)
def test_hidden_weights_exactly_zero(seed):
    """Masked weights are exactly 0.0 and every row still sums to 1."""
    Q, K, V, mask = masked_case(seed)
    _, weights = model.attention(Q, K, V, mask=mask)
    assert all(w == 0.0 for row, keep in zip(weights, mask) for w, k in zip(row, keep) if not k)
    assert_close([sum(row) for row in weights], [1.0] * len(Q))


def test_checkpoint_passes():
    """The visible causal-mask checkpoint holds for the reference."""
    assert_checkpoint_passes("causal_mask", model)


def test_hidden_judge_passes():
    """The hidden causal-mask judge (incl. masked attention)
    finds no failing case for the reference.
    """
    assert_hidden_judge_passes("causal_mask", model)


def test_multiplying_after_the_softmax_fails_only_the_row_sums():
    """Weights zeroed after the softmax keep the visible keys' proportions and only lose their
    row sum: the report says exactly that, and nothing it did not see."""
    from checkpoints.attention.steps import CHECKS
    from grading.authoring.mistakes import buggy_model

    report = CHECKS["causal_mask"](buggy_model("mask.multiply_after_softmax"))
    failing = {c.what for c in report.checks if not c.passed}
    assert failing and all("sums to 1" in what for what in failing), failing
    assert any("proportions" in c.what and c.passed for c in report.checks)
