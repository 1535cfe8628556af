"""Part two's reference GPT in plain floats: the judge's model for the artifacts' checks.

The artifacts' checks need numbers only (a held-out loss, three samples), yet the autograd
reference (xslm/gpt.py) builds a graph of Values for every window it reads: about 2 s of the
judge's time per submission. Here every operation is the reference's, in the reference's order,
on floats (a - b as a + (-b), a / b as a · b⁻¹, each sum from its first term left to right), so the
numbers are the reference's; tests/grading/judge/test_float_gpt.py holds them to 1e-9 on many
seeded models, and the samples letter for letter.

Never shipped, never imported by learner code; it follows xslm/gpt.py and xslm/engine.py, and
the test fails the day they part.
"""

import math
import random

from checkpoints.xslm.artifacts import DIMS
from checkpoints.xslm.probes import stated_shapes


def total(terms, start=0.0):
    """start + t₀ + t₁ + … from left to right, as sum(terms, Value(start)) adds: no compensation."""
    for t in terms:
        start += t
    return start


def dot(a, b):
    """Σ_i a_i · b_i, from 0.0 and left to right (a loop, not total(): no generator per sum)"""
    s = 0.0
    for x, y in zip(a, b):
        s += x * y
    return s


def linear(x, W):
    """linear(x, W)_r = Σ_c W[r][c] · x[c]   (W: out × in)"""
    return [dot(row, x) for row in W]


def norm(x, eps=1e-5):
    """norm(x)_i = (x_i - mean) · (var + eps)^(-1/2)"""
    mean = total(x) * len(x) ** -1.0
    var = total((v + -mean) ** 2 for v in x) * len(x) ** -1.0
    scale = (var + eps) ** -0.5
    return [(v + -mean) * scale for v in x]


def softmax(values):
    """softmax(v)_i = exp(v_i - max v) · (Σ_j exp(v_j - max v))⁻¹"""
    top = max(values)
    exps = [math.exp(v + -top) for v in values]
    whole = total(exps[1:], exps[0])
    return [e * whole**-1.0 for e in exps]


def add(a, b):
    """(a + b)_i = a_i + b_i"""
    return [x + y for x, y in zip(a, b)]


class FloatGPT:
    """The reference GPT's forward pass on a state {name: rows of floats}."""

    def __init__(self, state, vocab, width, context):
        mine = {n: [r, [c]] for n, (r, c) in stated_shapes(vocab, width, context).items()}
        theirs = {n: [len(m), sorted({len(row) for row in m})] for n, m in state.items()}
        if mine != theirs:  # as GPT.load refuses it: every row's length, not the first one's
            raise ValueError(f"the state's shapes {theirs} are not this model's {mine}")
        self.w = {name: [[float(x) for x in row] for row in m] for name, m in state.items()}
        self.vocab, self.width, self.context = vocab, width, context

    def attend(self, q, keys, values):
        """softmax(q · k_j · √width⁻¹) over the keys so far, then Σ_j weight_j · value_j"""
        scale = math.sqrt(self.width) ** -1.0
        weights = softmax([dot(q, k) * scale for k in keys])
        return [dot(weights, column) for column in zip(*values)]  # width

    def forward(self, ids):
        """one row of vocab logits per position; position i sees ids[: i + 1] only"""
        w, keys, values, logits = self.w, [], [], []
        for i, token in enumerate(ids):
            x = add(w["token"][token], w["position"][i])  # width
            h = norm(x)
            keys.append(linear(h, w["key"]))
            values.append(linear(h, w["value"]))
            x = add(x, linear(self.attend(linear(h, w["query"]), keys, values), w["project"]))
            hidden = [max(0.0, v) for v in linear(norm(x), w["expand"])]  # 2 width
            x = add(x, linear(hidden, w["contract"]))  # width
            logits.append(linear(norm(x), w["head"]))  # vocab: every row, as the reference
            # computes it (one that overflows raises there too, even if only the last is used)
        return logits


def load(state):
    """The course's 40/8/12 model with these weights."""
    return FloatGPT(state, *DIMS)


def loss(model, inputs, targets):
    """L = -(1/n) Σ_i log softmax(forward(inputs)_i)[targets_i]"""
    terms = [-math.log(softmax(row)[t]) for row, t in zip(model.forward(inputs), targets)]
    return total(terms[1:], terms[0]) * float(len(terms)) ** -1.0


def generate(model, prompt, steps, temperature=1.0, seed=0):
    """ids + `steps` draws ~ softmax(forward(ids[-context:])[-1] / temperature)"""
    rng, ids = random.Random(seed), list(prompt)
    for _ in range(steps):
        row = model.forward(ids[-model.context :])[-1]
        probs = softmax([v * float(temperature) ** -1.0 for v in row])
        ids.append(rng.choices(range(model.vocab), weights=probs)[0])
    return ids
