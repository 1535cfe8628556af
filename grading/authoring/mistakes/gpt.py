"""Part two, gpt.py (the tiny GPT): the catalogued mistakes "gpt.*" as code.

Each function is the reference's function or method as a learner with that mistake writes
it, under the name of its mistake (@change(name, file, replaces=...)); a function the mistake
adds keeps its own name (@change(name, file, adds=..., before=...)). A method is here
at the left margin; it goes into its class indented. The text stays exactly as written.
"""

import math
from typing import TYPE_CHECKING

from grading.authoring.mistakes.register import change

if TYPE_CHECKING:  # the reference's own names, which the learner's file holds beside the mistake
    from gpt import Value, add, linear, loss, norm, softmax


# A learner's code, exactly as written: the formatter keeps out of it.
# fmt: off
@change("gpt.future_visible", "gpt.py", replaces="GPT.forward")
def future_visible(self, ids):
    """one row of vocab logits per position; position i sees ids[: i + 1] only"""
    if not 0 < len(ids) <= self.context:
        raise ValueError(f"{len(ids)} tokens: give between 1 and {self.context}")
    w, keys, values, logits = self.weights, [], [], []
    for i, token in enumerate(ids):
        h = norm(add(w["token"][token], w["position"][i]))
        keys.append(linear(h, w["key"]))
        values.append(linear(h, w["value"]))
    for i, token in enumerate(ids):
        x = add(w["token"][token], w["position"][i])
        h = norm(x)
        x = add(x, linear(self.attend(linear(h, w["query"]), keys, values), w["project"]))
        hidden = [v.relu() for v in linear(norm(x), w["expand"])]  # 2 width
        x = add(x, linear(hidden, w["contract"]))  # width
        logits.append(linear(norm(x), w["head"]))  # vocab
    return logits


@change("gpt.no_sqrt_width", "gpt.py", replaces="GPT.attend")
def no_sqrt_width(self, q, keys, values):
    """softmax(q · k_j / √width) over the keys so far, then Σ_j weight_j · value_j"""
    scale = math.sqrt(self.width)
    scores = [sum((a * b for a, b in zip(q, k)), Value(0.0)) for k in keys]
    weights = softmax(scores)
    return [sum((p * v[i] for p, v in zip(weights, values)), Value(0.0))
            for i in range(self.width)]  # fmt: skip


@change("gpt.loss_no_minus", "gpt.py", replaces="loss")
def loss_no_minus(model, inputs, targets):
    """L = -(1/n) Σ_i log softmax(forward(inputs)_i)[targets_i]"""
    rows = model.forward(inputs)
    terms = [softmax(row)[t].log() for row, t in zip(rows, targets)]
    return sum(terms[1:], terms[0]) / len(terms)


@change("gpt.loss_no_log", "gpt.py", replaces="loss")
def loss_no_log(model, inputs, targets):
    """L = -(1/n) Σ_i log softmax(forward(inputs)_i)[targets_i]"""
    rows = model.forward(inputs)
    terms = [-softmax(row)[t] for row, t in zip(rows, targets)]
    return sum(terms[1:], terms[0]) / len(terms)


@change("gpt.stale_gradients", "gpt.py", replaces="train_step")
def stale_gradients(model, inputs, targets, rate):
    """∂L/∂w := 0, then w ← w - rate · ∂L/∂w for each w; returns L (before)"""
    value = loss(model, inputs, targets)
    value.backward()
    for p in model.parameters:
        p.data -= rate * p.grad
    return value.data


@change("gpt.greedy_sampling", "gpt.py", replaces="generate")
def greedy_sampling(model, prompt, steps, temperature=1.0, seed=0):
    """ids + `steps` draws ~ softmax(forward(ids[-context:])[-1] / temperature)"""
    ids = list(prompt)
    for _ in range(steps):
        row = model.forward(ids[-model.context :])[-1]
        ids.append(max(range(model.vocab), key=lambda i: row[i].data))
    return ids
