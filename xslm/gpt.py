"""A tiny GPT on the scalar engine: one block, one head, pre-norm, a 2× ReLU MLP.

Reference for part two (issue 12). At vocabulary 40, width 8, context 12 it has nine weight
matrices and 1,248 parameters.
"""

import json
import math
import random

from xslm.engine import Value, linear, norm, softmax

INIT_STD = 0.1  # weights start as seeded Gaussian noise of this spread


def shapes(vocab, width, context):
    """{name: (rows, cols)} of the nine weight matrices, each stored as (out × in)."""
    return {
        "token": (vocab, width),  # one row per token id: its embedding
        "position": (context, width),  # one row per position
        "query": (width, width),
        "key": (width, width),
        "value": (width, width),
        "project": (width, width),  # the attention's output, mixed back
        "expand": (2 * width, width),  # MLP: width → 2 width
        "contract": (width, 2 * width),  # MLP: 2 width → width
        "head": (vocab, width),  # one score per vocabulary entry
    }


def add(a, b):
    """a + b, element by element: the residual."""
    return [x + y for x, y in zip(a, b)]


class GPT:
    """The model: its weights, forward pass, loss, sampling, and saving."""

    def __init__(self, vocab, width, context, seed=7):
        self.vocab, self.width, self.context = vocab, width, context
        rng = random.Random(seed)
        self.weights = {
            name: [[Value(rng.gauss(0.0, INIT_STD)) for _ in range(cols)] for _ in range(rows)]
            for name, (rows, cols) in shapes(vocab, width, context).items()
        }
        self.parameters = [v for m in self.weights.values() for row in m for v in row]

    def attend(self, q, keys, values):
        """softmax(q · k / √width) over the keys so far, then the weighted sum of their values."""
        scores = [sum((a * b for a, b in zip(q, k)), Value(0.0)) / math.sqrt(self.width)
                  for k in keys]  # fmt: skip
        weights = softmax(scores)
        return [sum((p * v[i] for p, v in zip(weights, values)), Value(0.0))
                for i in range(self.width)]  # fmt: skip

    def forward(self, ids):
        """One row of vocab scores (logits) per position; position i sees ids[:i+1] only."""
        if not 0 < len(ids) <= self.context:
            raise ValueError(f"{len(ids)} tokens: between 1 and {self.context}")
        w, keys, values, logits = self.weights, [], [], []
        for i, token in enumerate(ids):  # keys and values grow as we go: the future is not there
            x = add(w["token"][token], w["position"][i])  # width
            h = norm(x)
            keys.append(linear(h, w["key"]))
            values.append(linear(h, w["value"]))
            x = add(x, linear(self.attend(linear(h, w["query"]), keys, values), w["project"]))
            hidden = [v.relu() for v in linear(norm(x), w["expand"])]  # 2 width
            x = add(x, linear(hidden, w["contract"]))
            logits.append(linear(norm(x), w["head"]))  # vocab
        return logits

    def loss(self, inputs, targets):
        """Mean cross-entropy −log p(target) of each position's next token."""
        rows = self.forward(inputs)
        terms = [-softmax(row)[t].log() for row, t in zip(rows, targets)]
        return sum(terms[1:], terms[0]) / len(terms)

    def generate(self, prompt, steps, temperature=1.0, seed=0):
        """prompt followed by `steps` sampled ids, each from the last `context` tokens."""
        rng, ids = random.Random(seed), list(prompt)
        for _ in range(steps):
            row = self.forward(ids[-self.context :])[-1]
            probs = softmax([v / temperature for v in row])
            ids.append(rng.choices(range(self.vocab), weights=[p.data for p in probs])[0])
        return ids

    def state(self):
        """The weights as plain numbers: {name: rows}."""
        return {n: [[v.data for v in row] for row in m] for n, m in self.weights.items()}

    def load(self, state):
        """Put saved numbers back; a state of another shape is refused before anything changes."""
        mine = {n: (len(m), len(m[0])) for n, m in self.weights.items()}
        theirs = {n: (len(m), len(m[0]) if m else 0) for n, m in state.items()}
        if mine != theirs:
            raise ValueError(f"the state's shapes {theirs} are not this model's {mine}")
        for name, matrix in self.weights.items():
            for row, saved in zip(matrix, state[name]):
                for v, number in zip(row, saved):
                    v.data = float(number)

    def save(self, path):
        """state() as JSON."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.state(), f)


def train_step(model, inputs, targets, rate):
    """One step of gradient descent on one window; the loss before the step."""
    loss = model.loss(inputs, targets)
    loss.backward()  # sets every parameter's grad afresh (no zeroing to forget)
    for p in model.parameters:
        p.data -= rate * p.grad
    return loss.data
