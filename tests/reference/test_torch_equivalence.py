"""The reference against PyTorch in float64:
softmax, scaled dot-product attention, layer norm, multi-head.
"""

import pytest

import model
from tests.fixtures.helpers import SEEDS, assert_close, heads_and_width, matrix, random_mask, rng

pytestmark = pytest.mark.torch
torch = pytest.importorskip("torch")
F = torch.nn.functional


def t(values):
    """A float64 tensor (or a bool tensor for masks)."""
    return torch.tensor(
        values, dtype=torch.bool if isinstance(values[0][0], bool) else torch.float64
    )


def masks(r, n_q, n_k):
    """No mask, a random mask, and (for square shapes) the causal mask."""
    out = [None, random_mask(r, n_q, n_k)]
    return out + [model.causal_mask(n_q)] if n_q == n_k else out


@pytest.mark.parametrize("seed", SEEDS)
def test_softmax(seed):
    """model.softmax equals torch.softmax on seeded vectors (×100 on odd seeds)."""
    r = rng("torch.softmax", seed)
    xs = [r.gauss(0.0, 1.0) * (100.0 if seed % 2 else 1.0) for _ in range(r.randint(1, 8))]
    assert_close(model.softmax(xs), torch.softmax(t([xs]), dim=-1)[0].tolist())


@pytest.mark.parametrize("seed", SEEDS)
def test_attention(seed):
    """attention equals F.scaled_dot_product_attention (bool attn_mask, True = attend);
    weights the masked softmax.
    """
    r = rng("torch.attention", seed)
    n_q, n_k, d = r.randint(1, 8), r.randint(1, 8), r.randint(8, 64)
    Q, K, V = matrix(r, n_q, d), matrix(r, n_k, d), matrix(r, n_k, r.randint(1, 16))
    for mask in masks(r, n_q, n_k):
        out, weights = model.attention(Q, K, V, mask=mask)
        attn_mask = None if mask is None else t(mask)
        assert_close(
            out, F.scaled_dot_product_attention(t(Q), t(K), t(V), attn_mask=attn_mask).tolist()
        )
        scores = t(Q) @ t(K).T / d**0.5
        if mask is not None:
            scores = scores.masked_fill(~attn_mask, float("-inf"))
        assert_close(weights, torch.softmax(scores, dim=-1).tolist())


@pytest.mark.parametrize("seed", range(4))
def test_causal_attention_is_torch_causal(seed):
    """attention with causal_mask(n) equals scaled_dot_product_attention(is_causal=True)."""
    r = rng("torch.causal", seed)
    n, d = r.randint(1, 8), r.randint(8, 64)
    Q, K, V = (matrix(r, n, d) for _ in range(3))
    out, _ = model.attention(Q, K, V, mask=model.causal_mask(n))
    assert_close(out, F.scaled_dot_product_attention(t(Q), t(K), t(V), is_causal=True).tolist())


@pytest.mark.parametrize("seed", SEEDS)
def test_layer_norm(seed):
    """layer_norm equals F.layer_norm(eps=1e-5) without weight or bias."""
    r = rng("torch.layer_norm", seed)
    X = matrix(r, r.randint(1, 8), r.randint(8, 64), 100.0 if seed % 2 else 1.0)
    want = F.layer_norm(t(X), (len(X[0]),), eps=1e-5).tolist()
    assert_close([model.layer_norm(row) for row in X], want)


def torch_multi_head(Q, K, V, h, mask):
    """View n × d as n × h × d/h, move heads first, run sdpa per head, move back and flatten."""
    n, d = len(Q), len(Q[0])
    q, k, v = (t(M).view(n, h, d // h).transpose(0, 1) for M in (Q, K, V))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=None if mask is None else t(mask))
    return out.transpose(0, 1).reshape(n, d).tolist()


@pytest.mark.parametrize("seed", SEEDS)
def test_multi_head(seed):
    """multi_head equals a reshape-based torch multi-head attention (no projections),
    masked and not.
    """
    r = rng("torch.multi_head", seed)
    n = r.randint(1, 8)
    h, d = heads_and_width(r)
    Q, K, V = (matrix(r, n, d) for _ in range(3))
    for mask in masks(r, n, n):
        assert_close(model.multi_head(Q, K, V, h, mask=mask), torch_multi_head(Q, K, V, h, mask))
