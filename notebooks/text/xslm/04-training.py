# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
#   language_info:
#     name: python
# ---

# %% [markdown] id="cell-00"
# # Part two · Step 4 · Learning
#
# An untrained GPT gives every next token about the same chance. To make it better we need one number
# that says how wrong it is (the **loss**), the gradient of that number with respect to all 1,248
# weights (your `backward`), and a rule that moves each weight a little against its gradient
# (**gradient descent**). Repeat a few hundred times on a small corpus and the loss falls.
#
# By the end of this notebook `gpt.py` also holds `loss` and `train_step`, and `outputs/` holds the loss
# curve and the trained weights.

# %% id="xslm04-setup" nbgrader={"grade": false, "grade_id": "xslm04-setup", "locked": true, "schema_version": 3, "solution": false}
import json
import math
import random

from checkpoints.xslm import (
    check,
    check_artifact,
    demo,
    save,
    show_curve,
    steps_to_train,
    write_artifact,
)
from checkpoints.xslm.corpus import decode, encode, read_corpus, vocabulary, windows

with demo():
    from engine import softmax
    from gpt import GPT

# %% [markdown] id="cell-02"
# ## The corpus
#
# The course ships a small corpus written for it: 60 short sentences about a cat, a dog, a bird, a fox and
# an owl, by day and by night. A token is a word, `"."` or the end of a line, which makes exactly the lesson's 40 tokens.
# A token's id is its place in the sorted vocabulary.

# %% id="cell-03"
text = read_corpus()
vocab = vocabulary(text)
ids = encode(text, vocab)
print(len(vocab), "tokens,", len(ids), "in the corpus")
print(vocab[:10], "...")
print(text.splitlines()[:3])
print(ids[:12], "->", repr(decode(ids[:12], vocab)))


# %% [markdown] id="cell-04"
# ## Cross-entropy
#
# At each position the model's logits become probabilities through softmax, and the loss is how
# surprised the model is by the token that really comes next: $-\log p(\text{target})$. A sure and right
# model scores 0; guessing uniformly among 40 tokens scores $\ln 40 \approx 3.69$. The loss of a window is
# the mean over its positions:
#
# $$\mathcal{L} = -\frac{1}{n}\sum_{i=0}^{n-1} \log \operatorname{softmax}(\text{logits}_i)_{\,t_i}$$
#
# Here $\log$ is the natural logarithm, $\ln$, the one `Value.log` computes; $t_i$ is `targets[i]`,
# the token after position $i$ (the targets are the inputs shifted by one), and $n$ is `len(inputs)`. An untrained model scores a little above $\ln 40$: its random logits are not
# quite uniform, and being unsure *and* wrong costs extra.

# %% [markdown] id="cell-05"
# ## Your turn: `loss(model, inputs, targets)` (3 points)
#
# Return a single `Value` (so that `.backward()` can run from it).

# %% id="xslm04-loss-solution" nbgrader={"grade": false, "grade_id": "xslm04-loss-solution", "locked": false, "schema_version": 3, "solution": true}
def loss(model, inputs, targets):
    """L = -(1/n) Σ_i log softmax(forward(inputs)_i)[targets_i]"""
    ### BEGIN SOLUTION
    rows = model.forward(inputs)
    terms = [-softmax(row)[t].log() for row, t in zip(rows, targets)]
    return sum(terms[1:], terms[0]) / len(terms)
    ### END SOLUTION


# %% id="cell-07"
with demo():
    model = GPT(len(vocab), 8, 12)
    inputs, targets = windows(ids, 12)[0]
    print(round(loss(model, inputs, targets).data, 3), "vs ln 40 =", round(math.log(40), 3))

# %% id="xslm04-save-loss" nbgrader={"grade": false, "grade_id": "xslm04-save-loss", "locked": true, "schema_version": 3, "solution": false}
save(loss)


# %% [markdown] id="cell-09"
# ## One step downhill
#
# `train_step` computes the loss of one window, runs `backward()` from it, and moves every parameter by
# $-\text{rate} \times \text{grad}$. It returns the loss *before* the step, as a plain float.
#
# Set every parameter's `grad` to 0 first. Your `backward()` resets only the values in this loss's graph,
# and a parameter the window does not use is not in that graph: the row of a token that does not occur
# in the window, say. Left alone, that row would keep the previous step's gradient and be moved by it
# again, although this window says nothing about it. Its gradient for this window is 0.

# %% [markdown] id="cell-10"
# ## Your turn: `train_step(model, inputs, targets, rate)` (2 points)

# %% id="xslm04-train-step-solution" nbgrader={"grade": false, "grade_id": "xslm04-train-step-solution", "locked": false, "schema_version": 3, "solution": true}
def train_step(model, inputs, targets, rate):
    """∂L/∂w := 0, then w ← w - rate · ∂L/∂w for each w; returns L (before)"""
    ### BEGIN SOLUTION
    for p in model.parameters:
        p.grad = 0.0
    value = loss(model, inputs, targets)
    value.backward()
    for p in model.parameters:
        p.data -= rate * p.grad
    return value.data
    ### END SOLUTION


# %% id="xslm04-save-train-step" nbgrader={"grade": false, "grade_id": "xslm04-save-train-step", "locked": true, "schema_version": 3, "solution": false}
save(train_step)

# %% [markdown] id="cell-13"
# ## Checkpoint 4
#
# The first cell checks `loss`: with every weight 0 it gives $\ln V$, and on a small model with known
# weights it gives the known loss and, after `backward()`, the known gradient of every weight. The second
# checks `train_step`: six steps on two known windows return the known losses, and the loss is lower
# afterwards. The third uses cases you do not see: the loss and gradients of random models, and
# training that lowers the loss.

# %% id="xslm04-loss-checks" nbgrader={"grade": true, "grade_id": "xslm04-loss-checks", "locked": true, "points": 1, "schema_version": 3, "solution": false}
check("loss")

# %% id="xslm04-train-step-checks" nbgrader={"grade": true, "grade_id": "xslm04-train-step-checks", "locked": true, "points": 1, "schema_version": 3, "solution": false}
check("train_step")

# %% id="xslm04-learning-hidden" nbgrader={"grade": true, "grade_id": "xslm04-learning-hidden", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from checkpoints.xslm import hidden

hidden("learning")
### BEGIN HIDDEN TESTS
### END HIDDEN TESTS

# %% [markdown] id="cell-16"
# ## Training
#
# The loop below takes the corpus's windows of 12 tokens (one starting at every token) and holds the last
# tenth out: no held-out window is trained on as a whole, so their loss says whether the model learned
# the language or just the windows it saw (the first few share most of their tokens with the last
# training windows). It then runs 240 steps, each on one window drawn at random, with replacement, by
# `random.Random(0)`, with rate 0.5. Each step builds a graph of about 30,000
# `Value`s, so this takes 20 to 40 seconds.
#
# (When nbgrader grades your notebook, `steps_to_train` gives 0: the loop is skipped, and the curve and
# weights you saved below are judged as they are.)

# %% id="xslm04-train-loop" nbgrader={"grade": false, "grade_id": "xslm04-train-loop", "locked": true, "schema_version": 3, "solution": false}
import time

with demo():
    pairs = windows(ids, 12)
    held_out = pairs[-len(pairs) // 10 :]
    train = pairs[: -len(pairs) // 10]
    rng = random.Random(0)
    model = GPT(len(vocab), 8, 12, seed=7)
    losses, start = [], time.perf_counter()
    for step in range(steps_to_train(240)):
        inputs, targets = train[rng.randrange(len(train))]
        losses.append(train_step(model, inputs, targets, 0.5))
        if step % 40 == 0 or step == 239:
            print(f"step {step:3}: loss {losses[-1]:.3f} ({time.perf_counter() - start:.0f} s)")

    def held_out_loss(model):
        return sum(loss(model, i, t).data for i, t in held_out) / len(held_out)

    if losses:
        print(f"held out: {held_out_loss(model):.3f}, ln 40 = {math.log(40):.3f}")

# %% [markdown] id="cell-18"
# The curve is noisy, because every step sees one window only, but it falls.

# %% id="cell-19"
with demo():
    display(show_curve(losses))

# %% [markdown] id="cell-20"
# ## Artifact: the loss curve and the weights
#
# The cell below writes `outputs/xslm-loss.txt` (one line per step: the step and its loss) and the trained
# weights to `outputs/xslm-weights.json`, which step 5 loads to generate text. The check reads them
# back: at least 200 steps; the mean loss of the last 40 steps at least 0.5 under that of the first 40;
# and weights of the right shapes whose held-out loss is under 2.8 (guessing scores about 3.7).

# %% id="xslm04-write-artifacts" nbgrader={"grade": false, "grade_id": "xslm04-write-artifacts", "locked": true, "schema_version": 3, "solution": false}
with demo():
    write_artifact("xslm-loss.txt", "\n".join(f"{k} {v:.6f}" for k, v in enumerate(losses)))
    write_artifact("xslm-weights.json", json.dumps(model.state()), show=False)

# %% id="xslm04-loss-artifact" nbgrader={"grade": true, "grade_id": "xslm04-loss-artifact", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check_artifact("xslm-loss.txt")
