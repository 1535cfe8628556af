"""Step 2: model.attention against the independent implementation, the contract and the checkpoints."""
import math

import pytest

import independent
import model
from helpers import (SEEDS, assert_checkpoint_passes, assert_close, assert_hidden_judge_passes, integer_matrix,
                     matrix, rng, shape)

pytestmark = pytest.mark.step02


def qkv(seed):
    """Q n_q × d, K n_k × d, V n_k × d_v; on odd seeds Q and K are whole numbers of size ~100."""
    r = rng("attention", seed)
    n_q, n_k, d, d_v = r.randint(1, 8), r.randint(1, 8), r.randint(8, 64), r.randint(1, 16)
    make = integer_matrix if seed % 2 else matrix
    return make(r, n_q, d), make(r, n_k, d), matrix(r, n_k, d_v)


@pytest.mark.parametrize("seed", SEEDS)
def test_matches_independent(seed):
    """Seeded (out, weights) agree with the loop-and-transpose attention to 1e-12."""
    Q, K, V = qkv(seed)
    out, weights = model.attention(Q, K, V)
    want_out, want_weights = independent.attention(Q, K, V)
    assert_close(weights, want_weights)
    assert_close(out, want_out)


@pytest.mark.parametrize("seed", SEEDS)
def test_shapes_and_row_sums(seed):
    """out is n_q × d_v, weights n_q × n_k, and every weights row sums to 1."""
    Q, K, V = qkv(seed)
    out, weights = model.attention(Q, K, V)
    assert shape(out) == (len(Q), len(V[0])) and shape(weights) == (len(Q), len(K))
    assert_close([sum(row) for row in weights], [1.0] * len(Q))


def test_scores_divide_by_sqrt_key_width():
    """A known answer: scores 4/√4 = 2 and 0 give weights softmax([2, 0])."""
    out, weights = model.attention([[1.0] * 4], [[1.0] * 4, [0.0] * 4], [[1.0], [0.0]])
    top = 1.0 / (1.0 + math.exp(-2.0))
    assert_close(weights, [[top, 1.0 - top]])
    assert_close(out, [[top]])


def test_checkpoint_passes():
    """The visible attention checkpoint holds for the reference."""
    assert_checkpoint_passes("attention", model)


def test_hidden_judge_passes():
    """The hidden attention judge finds no failing case when judging the reference."""
    assert_hidden_judge_passes("attention", model)


def test_artifact_check_says_when_attention_was_never_saved(tmp_path, monkeypatch):
    """With only the stub model.py, the √d artifact check asks for save(attention), not an AttributeError."""
    from checkpoints import CheckpointFailed, check_artifact, ensure_model
    monkeypatch.chdir(tmp_path)
    ensure_model()
    with pytest.raises(CheckpointFailed, match=r"no attention yet: run the cell with save\(attention\)"):
        check_artifact("02-scale.txt")
