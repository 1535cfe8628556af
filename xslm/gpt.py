"""gpt.py: your tiny GPT, saved by part two's notebooks 3 to 5."""

import math
import random

from engine import Value, linear, norm, softmax


# ── step 3: GPT ────────────────────────────────────────
def shapes(vocab, width, context):
    """{name: (out, in)} × 9"""
    return {
        "token": (vocab, width),
        "position": (context, width),
        "query": (width, width),
        "key": (width, width),
        "value": (width, width),
        "project": (width, width),
        "expand": (2 * width, width),
        "contract": (width, 2 * width),
        "head": (vocab, width),
    }


def add(a, b):
    """(a + b)_i = a_i + b_i: the residual"""
    return [x + y for x, y in zip(a, b)]


INIT_STD = 0.1  # w ~ N(0, 0.1²)


class GPT:
    """GPT(V, d, n, seed) → .weights, .parameters, .forward(ids), .state(), .load(s)"""

    def __init__(self, vocab, width, context, seed=7):
        self.vocab, self.width, self.context = vocab, width, context
        rng = random.Random(seed)
        self.weights = {
            name: [[Value(rng.gauss(0.0, INIT_STD)) for _ in range(cols)] for _ in range(rows)]
            for name, (rows, cols) in shapes(vocab, width, context).items()
        }
        self.parameters = [v for m in self.weights.values() for row in m for v in row]

    def attend(self, q, keys, values):
        """softmax(q · k_j / √width) over the keys so far, then Σ_j weight_j · value_j"""
        scale = math.sqrt(self.width)
        scores = [sum((a * b for a, b in zip(q, k)), Value(0.0)) / scale for k in keys]
        weights = softmax(scores)
        return [sum((p * v[i] for p, v in zip(weights, values)), Value(0.0))
                for i in range(self.width)]  # fmt: skip

    def forward(self, ids):
        """one row of vocab logits per position; position i sees ids[: i + 1] only"""
        if not 0 < len(ids) <= self.context:
            raise ValueError(f"{len(ids)} tokens: give between 1 and {self.context}")
        w, keys, values, logits = self.weights, [], [], []
        for i, token in enumerate(ids):  # keys and values grow as we go: the future is not there
            x = add(w["token"][token], w["position"][i])  # width
            h = norm(x)
            keys.append(linear(h, w["key"]))
            values.append(linear(h, w["value"]))
            x = add(x, linear(self.attend(linear(h, w["query"]), keys, values), w["project"]))
            hidden = [v.relu() for v in linear(norm(x), w["expand"])]  # 2 width
            x = add(x, linear(hidden, w["contract"]))  # width
            logits.append(linear(norm(x), w["head"]))  # vocab
        return logits

    def state(self):
        """the weights as plain numbers: {name: rows}"""
        return {n: [[v.data for v in row] for row in m] for n, m in self.weights.items()}

    def load(self, state):
        """put saved numbers back; a state of another shape is refused before anything changes"""
        mine = {n: [len(m), sorted({len(row) for row in m})] for n, m in self.weights.items()}
        theirs = {n: [len(m), sorted({len(row) for row in m})] for n, m in state.items()}
        if mine != theirs:  # every row's length: a short row must not leave a weight stale
            raise ValueError(f"the state's shapes {theirs} are not this model's {mine}")
        for name, matrix in self.weights.items():
            for row, saved in zip(matrix, state[name]):
                for v, number in zip(row, saved):
                    v.data = float(number)


# ── end of step 3: GPT ─────────────────────────────────


# ── step 4: loss ────────────────────────────────────────
def loss(model, inputs, targets):
    """L = -(1/n) Σ_i log softmax(forward(inputs)_i)[targets_i]"""
    rows = model.forward(inputs)
    terms = [-softmax(row)[t].log() for row, t in zip(rows, targets)]
    return sum(terms[1:], terms[0]) / len(terms)


# ── end of step 4: loss ─────────────────────────────────


# ── step 4: train_step ────────────────────────────────────────
def train_step(model, inputs, targets, rate):
    """∂L/∂w := 0, then w ← w - rate · ∂L/∂w for each w; returns L (before)"""
    for p in model.parameters:
        p.grad = 0.0
    value = loss(model, inputs, targets)
    value.backward()
    for p in model.parameters:
        p.data -= rate * p.grad
    return value.data


# ── end of step 4: train_step ─────────────────────────────────


# ── step 5: generate ────────────────────────────────────────
def generate(model, prompt, steps, temperature=1.0, seed=0):
    """ids + `steps` draws ~ softmax(forward(ids[-context:])[-1] / temperature)"""
    rng, ids = random.Random(seed), list(prompt)
    for _ in range(steps):
        row = model.forward(ids[-model.context :])[-1]
        probs = softmax([v / temperature for v in row])
        ids.append(rng.choices(range(model.vocab), weights=[p.data for p in probs])[0])
    return ids


# ── end of step 5: generate ─────────────────────────────────
