"""Part two's catalogued mistakes (grading/authoring/mistakes/engine.py and gpt.py): each is real
code, and each shows the symptom its checkpoint will name, while the reference does not."""

import math

import pytest

from grading.authoring.mistakes.part_two import MISTAKES, buggy
from xslm import engine as reference_engine
from xslm import gpt as reference_gpt

pytestmark = pytest.mark.xslm


def deep_chain(engine, n=20_000):
    """x, and a chain of n operations on it."""
    x = engine.Value(1.0)
    y = x
    for _ in range(n):
        y = y * 1.0 + 0.0
    return x, y


def twice_used(engine):
    """dc/da for c = a·b + a at a = 2, b = 5 (6 when both paths add)."""
    a, b = engine.Value(2.0), engine.Value(5.0)
    (a * b + a).backward()
    return a.grad


def backward_twice(engine):
    """x.grad after calling backward twice on y = 3x (3 both times when grads start afresh)."""
    x = engine.Value(1.0)
    y = x * 3.0
    y.backward()
    y.backward()
    return x.grad


def row(gpt, ids, position=0):
    """One position's logits from a fresh model."""
    return [v.data for v in gpt.GPT(10, 8, 12, seed=2).forward(ids)[position]]


def window_loss(gpt):
    """The loss of one window of a fresh model."""
    return gpt.loss(gpt.GPT(10, 8, 12, seed=2), [1, 2, 3, 4], [2, 3, 4, 5]).data


def token_row_moved_unused(gpt):
    """Whether token 0's row moves in a training step whose window does not use it (it used it
    the step before): only a gradient left over from that step can move it."""
    model = gpt.GPT(10, 8, 12, seed=2)
    gpt.train_step(model, [0, 1, 2], [1, 2, 3], 0.5)
    before = model.state()["token"][0]
    gpt.train_step(model, [4, 5, 6], [5, 6, 7], 0.5)
    return model.state()["token"][0] != before


SYMPTOMS = {
    "engine.recursive_backward": lambda e, g: _raises(
        RecursionError, lambda: deep_chain(e)[1].backward()
    ),
    "engine.overwrite_gradients": lambda e, g: twice_used(e) != 6.0,
    "engine.no_zeroing": lambda e, g: backward_twice(e) != 3.0,
    "engine.softmax_no_shift": lambda e, g: _raises(
        OverflowError, lambda: e.softmax([e.Value(1000.0), e.Value(999.0)])
    ),
    "gpt.future_visible": lambda e, g: row(g, [1, 2]) != row(g, [1, 2, 3]),
    "gpt.no_sqrt_width": lambda e, g: row(g, [1, 2, 3], 2) != row(reference_gpt, [1, 2, 3], 2),
    "gpt.loss_no_minus": lambda e, g: window_loss(g) < 0,
    "gpt.loss_no_log": lambda e, g: -1.0 < window_loss(g) < 0.0,
    "gpt.stale_gradients": lambda e, g: token_row_moved_unused(g),
    "engine.reflected_sub": lambda e, g: not math.isclose((3.0 - e.Value(0.25)).data, 2.75),
    "engine.reflected_div": lambda e, g: not math.isclose((3.0 / e.Value(0.25)).data, 12.0),
    "engine.wrong_slope": lambda e, g: not math.isclose(slope(e, lambda v: v**3, 1.5), 6.75),
    "engine.wrong_value": lambda e, g: not math.isclose(e.Value(-0.3).relu().data, 0.0),
    "engine.linear_transposed": lambda e, g: (
        not (
            len(linear_sums(e)) == 3
            and all(math.isclose(a, b) for a, b in zip(linear_sums(e), [3.0, 7.0, 11.0]))
        )
    ),
    "engine.norm_rms": lambda e, g: not math.isclose(sum(normed(e)), 0.0, abs_tol=1e-9),
    "engine.norm_unbiased": lambda e, g: (
        not math.isclose(sum(y * y for y in normed(e)) / 4, 3.5 / (3.5 + 1e-5))
    ),
    "gpt.greedy_sampling": lambda e, g: len(drawn(g)) == 1,
}


def slope(engine, f, x):
    """d f(v) / dv at v = x, from backward()."""
    v = engine.Value(x)
    f(v).backward()
    return v.grad


def linear_sums(engine):
    """linear(x, W) with W = [[1, 2], [3, 4], [5, 6]] (out × in) and x = (1, 1): one output per
    row of W, each the sum of that row: 3, 7, 11."""
    W = [[engine.Value(w) for w in row] for row in [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]
    return [o.data for o in engine.linear([engine.Value(1.0), engine.Value(1.0)], W)]


def normed(engine):
    """norm of (1, 2, 3, 6), as plain numbers."""
    return [v.data for v in engine.norm([engine.Value(x) for x in (1.0, 2.0, 3.0, 6.0)])]


def drawn(gpt):
    """The distinct ids a fresh model draws after the same prompt under eight seeds."""
    model = gpt.GPT(10, 8, 12, seed=2)
    return {tuple(gpt.generate(model, [1, 2], 3, 1.0, seed)) for seed in range(8)}


def _raises(kind, action):
    """Whether action raises kind."""
    try:
        action()
    except kind:
        return True
    return False


def test_every_mistake_has_a_symptom():
    """The catalogue and the symptoms name the same mistakes."""
    assert set(SYMPTOMS) == set(MISTAKES)


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_the_mistake_shows_its_symptom_and_the_reference_does_not(name):
    """Buggy: the symptom. Reference: none."""
    engine, gpt = buggy(name)
    assert SYMPTOMS[name](engine, gpt)
    assert not SYMPTOMS[name](reference_engine, reference_gpt)


def test_the_reference_loss_starts_near_log_vocab():
    """A fresh model is close to uniform: its loss is near ln 10 (what loss_no_log misses)."""
    assert abs(window_loss(reference_gpt) - math.log(10)) < 0.5
