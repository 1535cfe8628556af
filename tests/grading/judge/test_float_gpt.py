"""The judge's plain-float GPT (grading/judge/float_gpt.py) against the autograd reference
(xslm/gpt.py): the same logits, losses, held-out loss and samples, on many seeded models."""

import json
import os
import random

import pytest

import xslm
from checkpoints.xslm import artifacts
from grading.judge import float_gpt
from grading.judge import xslm as xslm_judge
from grading.paths import OUTPUTS

TOLERANCE = 1e-9


def seeded_state(seed, spread):
    """A 40/8/12 model's weights drawn from N(0, spread²) with this seed."""
    rng = random.Random(seed)
    shapes = xslm.gpt.shapes(*artifacts.DIMS)
    return {n: [[rng.gauss(0.0, spread) for _ in range(c)] for _ in range(r)]
            for n, (r, c) in shapes.items()}  # fmt: skip


def trained_state():
    """The weights the master notebooks trained (outputs/xslm-weights.json)."""
    with open(os.path.join(OUTPUTS, artifacts.WEIGHTS_FILE), encoding="utf-8") as f:
        return json.load(f)


def autograd_model(state):
    """The reference GPT with these weights."""
    model = xslm.gpt.GPT(*artifacts.DIMS)
    model.load(state)
    return model


def close(a, b):
    """Equal within TOLERANCE, relative to the larger magnitude (absolute near zero)."""
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


@pytest.mark.parametrize("seed", range(24))
def test_logits_and_loss_agree_on_seeded_models(seed):
    """Every logit and the loss of random windows, on models from small to large weights."""
    spread = [0.05, 0.1, 0.5, 1.5][seed % 4]
    state, rng = seeded_state(seed, spread), random.Random(1000 + seed)
    exact, floats = autograd_model(state), float_gpt.load(state)
    for _ in range(3):
        length = rng.randint(1, artifacts.DIMS[2])
        ids = [rng.randrange(artifacts.DIMS[0]) for _ in range(length)]
        targets = [rng.randrange(artifacts.DIMS[0]) for _ in range(length)]
        want = [[v.data for v in row] for row in exact.forward(ids)]
        got = floats.forward(ids)
        assert len(got) == len(want)
        assert all(close(g, w) for gr, wr in zip(got, want) for g, w in zip(gr, wr))
        assert close(float_gpt.loss(floats, ids, targets), xslm.gpt.loss(exact, ids, targets).data)


@pytest.mark.parametrize("which", ["trained", "seeded"])
def test_the_artifacts_numbers_agree(which):
    """The held-out loss and the three samples the judge recomputes, both ways."""
    state = trained_state() if which == "trained" else seeded_state(99, 0.3)
    exact = artifacts.learner_model(xslm.engine, xslm.gpt)
    floats = xslm_judge.reference_model()
    assert close(floats[0](state), exact[0](state))
    more = [("a", 2.0), ("the owl sits on the hill and", 0.25)]
    for prompt, temperature in artifacts.PROMPTS + more:
        assert floats[1](state, prompt, temperature) == exact[1](state, prompt, temperature)


def test_the_sums_add_from_left_to_right():
    """total() is plain left-to-right addition: no compensation (1e16 + 1 - 1e16 is 0, not 1)."""
    assert float_gpt.total([1.0, -1e16], 1e16) == 0.0
    assert float_gpt.total([]) == 0.0


def test_unusable_weights_fail_as_the_reference_does():
    """A weight too large for a float, or a row one number short past the first, raises in
    both, before any number is computed."""
    state = seeded_state(3, 0.1)
    state["head"][0][0] = 10**400
    with pytest.raises(OverflowError):
        float_gpt.load(state)
    with pytest.raises(OverflowError):
        autograd_model(state)
    state = seeded_state(3, 0.1)
    state["expand"][5].pop()
    with pytest.raises(ValueError):
        float_gpt.load(state)
    with pytest.raises(ValueError):
        autograd_model(state)


def test_an_overflow_at_an_earlier_position_raises_in_both():
    """Weights whose first position overflows (the residual near 1e160, its square infinite):
    the reference raises while sampling even though only the last row is drawn from; so does the
    float model, so the samples' check fails alike."""
    state = seeded_state(4, 0.1)
    state["position"][0] = [1e160 * (-1) ** k for k in range(artifacts.DIMS[1])]
    exact = artifacts.learner_model(xslm.engine, xslm.gpt)
    floats = xslm_judge.reference_model()
    for text in (exact[1], floats[1]):
        with pytest.raises((OverflowError, ValueError)):
            text(state, "the cat", 0.5)
