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
# # Part two · Step 2 · Three layers made of `Value`s
#
# Part one wrote softmax and layer norm on plain floats. The GPT needs them again, now on `Value`s, so
# that gradients can flow through them, plus one more piece: a **linear layer**, the only place where
# weights meet the data.
#
# By the end of this notebook `engine.py` also holds `softmax(values)`, `linear(x, W)` and `norm(x)`.

# %% id="xslm02-setup" nbgrader={"grade": false, "grade_id": "xslm02-setup", "locked": true, "schema_version": 3, "solution": false}
from checkpoints.xslm import check, demo, save

with demo():
    from engine import Value


# %% [markdown] id="cell-02"
# ## Softmax, again, with the shift
#
# Subtracting the largest score changes no weight and keeps every exponent at or below 0. The shift is a
# plain number (`max` of the `.data`), so no gradient flows through it, and none needs to: the weights do
# not depend on it. Without it, a score of 1000 overflows exactly as in part one.

# %% [markdown] id="cell-03"
# ## Your turn: `softmax(values)` (2 points)
#
# A list of `Value`s in, a list of `Value`s of the same length out:
# $e^{v_i - m} / \sum_j e^{v_j - m}$ with $m = \max_j v_j$.

# %% id="xslm02-softmax-solution" nbgrader={"grade": false, "grade_id": "xslm02-softmax-solution", "locked": false, "schema_version": 3, "solution": true}
def softmax(values):
    """softmax(v)_i = exp(v_i - max v) / Σ_j exp(v_j - max v)"""
    ### BEGIN SOLUTION
    top = max(v.data for v in values)  # a plain number: shifting by it changes no weight
    exps = [(v - top).exp() for v in values]
    total = sum(exps[1:], exps[0])
    return [e / total for e in exps]
    ### END SOLUTION


# %% id="cell-05"
with demo():
    weights = softmax([Value(1000.0), Value(1001.0), Value(1002.0)])
    print([round(w.data, 4) for w in weights])  # [0.09, 0.2447, 0.6652], as in part one
    weights[2].backward()
    print(round(weights[2].grad, 1))  # 1.0: backward starts from the output it was called on

# %% id="xslm02-save-softmax" nbgrader={"grade": false, "grade_id": "xslm02-save-softmax", "locked": true, "schema_version": 3, "solution": false}
save(softmax)


# %% [markdown] id="cell-07"
# ## A linear layer: where the weights are
#
# A linear layer turns a vector of `in` numbers into `out` numbers. Each output is a weighted sum of
# all the inputs, with its own row of weights, so the weights form a matrix stored as **out × in**: row
# $r$ holds output $r$'s weights.
#
# $$\operatorname{linear}(x, W)_r = \sum_c W_{rc}\, x_c$$
#
# (The course's GPT has no biases, like XSLM, the tiny GPT of the lesson that part two follows.)

# %% [markdown] id="cell-08"
# ## Your turn: `linear(x, W)` (2 points)
#
# `x` is a list of `in` `Value`s, `W` a list of `out` rows of `in` `Value`s. Return `out` `Value`s.

# %% id="xslm02-linear-solution" nbgrader={"grade": false, "grade_id": "xslm02-linear-solution", "locked": false, "schema_version": 3, "solution": true}
def linear(x, W):
    """linear(x, W)_r = Σ_c W[r][c] · x[c]   (W: out × in)"""
    ### BEGIN SOLUTION
    return [sum((w * v for w, v in zip(row, x)), Value(0.0)) for row in W]
    ### END SOLUTION


# %% id="cell-10"
with demo():
    x = [Value(1.0), Value(2.0)]
    W = [
        [Value(1.0), Value(0.0)],
        [Value(0.5), Value(-1.0)],
        [Value(2.0), Value(3.0)],
    ]  # 3 out × 2 in
    print([v.data for v in linear(x, W)])  # [1.0, -1.5, 8.0]

# %% id="xslm02-save-linear" nbgrader={"grade": false, "grade_id": "xslm02-save-linear", "locked": true, "schema_version": 3, "solution": false}
save(linear)


# %% [markdown] id="cell-12"
# ## Norm, without gain or bias
#
# Part one's layer norm had no gain or bias either (a full transformer learns both), and the tiny GPT's
# `norm` is the same formula, now on `Value`s: subtract the mean, divide by the standard deviation (with a
# small $\varepsilon$ so a constant vector does not divide by zero). The result has mean 0 and variance
# close to 1.
#
# $$\operatorname{norm}(x)_i = \frac{x_i - \mu}{\sqrt{\sigma^2 + \varepsilon}},\qquad
# \mu = \frac1n\sum_i x_i,\quad \sigma^2 = \frac1n\sum_i (x_i - \mu)^2,\quad \varepsilon = 10^{-5}$$
#
# Here the mean and the variance are `Value`s: the gradient flows through them too. `math.sqrt` takes
# plain numbers only, but your `Value` already has the power: $1/\sqrt{s} = s^{-1/2}$, so dividing by
# $\sqrt{\sigma^2 + \varepsilon}$ is multiplying by $(\sigma^2 + \varepsilon)^{-0.5}$.

# %% [markdown] id="cell-13"
# ## Your turn: `norm(x)` (2 points)

# %% id="xslm02-norm-solution" nbgrader={"grade": false, "grade_id": "xslm02-norm-solution", "locked": false, "schema_version": 3, "solution": true}
def norm(x, eps=1e-5):
    """norm(x)_i = (x_i - mean) / √(var + eps)"""
    ### BEGIN SOLUTION
    mean = sum(x, Value(0.0)) / len(x)
    var = sum(((v - mean) ** 2 for v in x), Value(0.0)) / len(x)
    scale = (var + eps) ** -0.5
    return [(v - mean) * scale for v in x]
    ### END SOLUTION


# %% id="cell-15"
with demo():
    out = norm([Value(1.0), Value(2.0), Value(3.0), Value(6.0)])
    print([round(v.data, 4) for v in out])  # mean 0, variance about 1
    print(round(sum(v.data for v in out), 12), round(sum(v.data**2 for v in out) / 4, 4))

# %% id="xslm02-save-norm" nbgrader={"grade": false, "grade_id": "xslm02-save-norm", "locked": true, "schema_version": 3, "solution": false}
save(norm)

# %% [markdown] id="lesson-attention-example"
# ## A worked example, with your layers
#
# One query mixes three hand-made values, and attention needs nothing but your layers: the scores
# are `linear(query, keys)` divided by $\sqrt{2}$ (the width is 2), the weights are their softmax,
# and the mix is `linear(weights, columns)`, where `zip(*values)` turns the three value rows into
# their two columns, $[10, 0, 5]$ and $[0, 10, 5]$ (plain floats work as `W`: your `Value` treats
# them as constants).
# The query $[2, 0]$ looks for the first feature, which the first and third keys have: they get
# $0.446$ each and the second key $0.108$, and the mix leans towards the first and third values,
# $[6.687, 3.313]$. The cell below computes them with your layers; its comments hold the numbers
# it should print.

# %% id="lesson-attention-example-run"
with demo():
    keys = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    values = [[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]]
    query = [Value(2.0), Value(0.0)]
    scores = [s / 2**0.5 for s in linear(query, keys)]
    weights = softmax(scores)
    mixed = linear(weights, [list(column) for column in zip(*values)])
    print([round(s.data, 3) for s in scores])  # [1.414, 0.0, 1.414]
    print([round(w.data, 3) for w in weights])  # [0.446, 0.108, 0.446]
    print([round(m.data, 3) for m in mixed])  # [6.687, 3.313]

# %% [markdown] id="cell-17"
# ## Checkpoint 2
#
# Each cell below checks one layer from `engine.py`: values and gradients on known inputs, softmax on
# scores in the thousands, one output per row of `W`, and norm of `[1, 2, 3, 6]` and of a constant
# vector.

# %% id="xslm02-softmax-checks" nbgrader={"grade": true, "grade_id": "xslm02-softmax-checks", "locked": true, "points": 1, "schema_version": 3, "solution": false}
check("softmax")

# %% id="xslm02-linear-checks" nbgrader={"grade": true, "grade_id": "xslm02-linear-checks", "locked": true, "points": 1, "schema_version": 3, "solution": false}
check("linear")

# %% id="xslm02-norm-checks" nbgrader={"grade": true, "grade_id": "xslm02-norm-checks", "locked": true, "points": 1, "schema_version": 3, "solution": false}
check("norm")

# %% id="xslm02-layers-hidden" nbgrader={"grade": true, "grade_id": "xslm02-layers-hidden", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from checkpoints.xslm import hidden

hidden("layers")
### BEGIN HIDDEN TESTS
### END HIDDEN TESTS
