"""Step 4: model.multi_head against the independent implementation,
the contract and the checkpoints.
"""

import re

import pytest

import model
from tests.fixtures import independent
from tests.fixtures.helpers import (
    SEEDS,
    assert_checkpoint_passes,
    assert_close,
    assert_hidden_judge_passes,
    heads_and_width,
    integer_matrix,
    matrix,
    random_mask,
    rng,
    shape,
)

pytestmark = pytest.mark.step04


def mh_case(seed):
    """Q, K, V n × d, h, and a causal mask on odd seeds;
    ×100 whole-number Q, K on seeds 2, 3 mod 4.
    """
    r = rng("multi_head", seed)
    n = r.randint(1, 8)
    h, d = heads_and_width(r)
    make = integer_matrix if seed % 4 >= 2 else matrix
    return (
        make(r, n, d),
        make(r, n, d),
        matrix(r, n, d),
        h,
        model.causal_mask(n) if seed % 2 else None,
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_matches_independent(seed):
    """Seeded multi_head outputs agree with the independent one to 1e-12 and are n × d."""
    Q, K, V, h, mask = mh_case(seed)
    got = model.multi_head(Q, K, V, h, mask=mask)
    assert shape(got) == shape(Q)
    assert_close(got, independent.multi_head(Q, K, V, h, mask=mask))


@pytest.mark.parametrize("seed", SEEDS)
def test_matches_independent_with_a_non_causal_mask(seed):
    """With a random mask in which queries see later keys, multi_head agrees with the independent
    one to 1e-12, and differs from what the causal mask would give (so the mask given is used)."""
    r = rng("multi_head.patchy", seed)
    n = r.randint(2, 8)
    h, d = heads_and_width(r)
    Q, K, V = (matrix(r, n, d) for _ in range(3))
    mask = random_mask(r, n, n)
    mask[0][n - 1] = True  # query 0 sees the last key: never causal
    got = model.multi_head(Q, K, V, h, mask=mask)
    assert_close(got, independent.multi_head(Q, K, V, h, mask=mask))
    causal = independent.multi_head(Q, K, V, h, mask=independent.causal_mask(n))
    assert max(abs(a - b) for ra, rb in zip(got, causal) for a, b in zip(ra, rb)) > 1e-6


@pytest.mark.parametrize("seed", range(4))
def test_one_head_is_attention(seed):
    """With h = 1 the output equals attention(Q, K, V, mask)[0] to 1e-12
    (with and without a mask).
    """
    Q, K, V, _, mask = mh_case(seed)
    assert_close(model.multi_head(Q, K, V, 1, mask=mask), model.attention(Q, K, V, mask=mask)[0])


@pytest.mark.parametrize("d, h", [(8, 3), (6, 4), (10, 4), (7, 2)])
def test_indivisible_width_raises(d, h):
    """d % h != 0 raises ValueError whose message mentions h."""
    X = matrix(rng("multi_head.bad", d * h), 3, d)
    with pytest.raises(ValueError) as err:
        model.multi_head(X, X, X, h)
    assert re.search(r"\bh\b", str(err.value)), str(err.value)
    with pytest.raises(ValueError):
        independent.multi_head(X, X, X, h)


def test_checkpoint_passes():
    """The visible multi-head checkpoint holds for the reference."""
    assert_checkpoint_passes("multi_head", model)


def test_hidden_judge_passes():
    """The hidden multi-head judge finds no failing case when judging the reference."""
    assert_hidden_judge_passes("multi_head", model)
