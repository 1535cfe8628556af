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
# # Step 1 · Softmax that never overflows
#
# Attention turns a row of **scores** (any real numbers) into **weights** (positive numbers that sum to 1).
# The function that does it is softmax:
#
# $$\operatorname{softmax}(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}}$$
#
# ($\sum_j$ means: add up over every $j$, here every score of the row.)
#
# By the end of this notebook `model.py` holds `softmax(xs)`: a list in, a list of the same length out,
# summing to 1, and still correct when the inputs are in the thousands.
#
# Everything in this course is plain Python: lists of floats and the `math` module. It is slow, so the
# sizes stay small, but nothing is hidden from you.

# %% id="step01-setup" nbgrader={"grade": false, "grade_id": "step01-setup", "locked": true, "schema_version": 3, "solution": false}
import math

from checkpoints import check, demo, ensure_model, save

ensure_model()

# %% [markdown] id="cell-02"
# ## Why the naive formula breaks
#
# A Python float tops out near $1.8 \times 10^{308}$, and $e^{710}$ is already bigger than that: any
# score above about 709.78 makes `math.exp` raise `OverflowError`. Scores that large do occur inside a
# network, and even smaller ones can add up to more than a float holds, so the textbook formula can
# crash. Run this:

# %% id="cell-03"
for x in [1.0, 100.0, 709.0, 710.0]:
    try:
        print(f"exp({x}) = {math.exp(x):.4g}")
    except OverflowError as err:
        print(f"exp({x}) -> OverflowError: {err}")

# %% [markdown] id="cell-04"
# ## The fix costs nothing
#
# Subtract the same number $c$ from every input. The factor $e^{-c}$ appears above and below the
# fraction and cancels:
#
# $$\frac{e^{x_i - c}}{\sum_j e^{x_j - c}} = \frac{e^{-c}\,e^{x_i}}{e^{-c}\sum_j e^{x_j}} = \operatorname{softmax}(x)_i$$
#
# Choose $c = \max(x)$. Now every exponent is $\le 0$, so every $e^{x_i - c}$ lies in $(0, 1]$, and the
# largest one is exactly 1, so the sum is at least 1 and never 0. Check the cancellation with numbers:

# %% id="cell-05"
xs = [1.0, 2.0, 3.0]
for c in [0.0, 3.0, -50.0]:
    exps = [math.exp(x - c) for x in xs]
    print(f"c = {c:6}:", [round(e / sum(exps), 6) for e in exps])


# %% [markdown] id="cell-06"
# ## Your turn: `softmax(xs)` (5 points)
#
# Write it in the cell below: find the max, take `math.exp(x - max)` of every input, divide each by their sum.
# Run it, then the demo cell after it to see your numbers, then the `save(softmax)` cell, which copies
# your cell into `model.py`.

# %% id="step01-softmax-solution" nbgrader={"grade": false, "grade_id": "step01-softmax-solution", "locked": false, "schema_version": 3, "solution": true}
def softmax(xs):
    """softmax(x)_i = exp(x_i - max(x)) / Σ_j exp(x_j - max(x))"""
    ### BEGIN SOLUTION
    top = max(xs)  # shifting by the max changes nothing but the overflow
    exps = [math.exp(x - top) for x in xs]  # every exponent is <= 0, so every value is in (0, 1]
    total = sum(exps)
    return [e / total for e in exps]
    ### END SOLUTION


# %% id="cell-08"
with demo():
    print(softmax([1.0, 2.0, 3.0]))  # about [0.090, 0.245, 0.665]
    print(softmax([1000.0, 1001.0, 1002.0]))  # the same numbers: only differences matter
    print(sum(softmax([0.3, -2.0, 5.0, 1.0])))  # 1.0, up to rounding

# %% [markdown] id="softmax-picture-intro"
# The softmax of four scores as a picture: scores on the left, weights on the right (each on its own
# scale).
# The largest score gets the largest weight, and the weights are all positive.

# %% id="softmax-picture"
from checkpoints.pictures import show_bars

with demo():
    scores = [1.0, 2.0, 3.0, -1.0]
    display(show_bars({"scores": scores, "softmax(scores)": softmax(scores)}))

# %% id="step01-save-softmax" nbgrader={"grade": false, "grade_id": "step01-save-softmax", "locked": true, "schema_version": 3, "solution": false}
save(softmax)

# %% [markdown] id="cell-10"
# ## Checkpoint 1
#
# The cell below loads `model.py` fresh from disk and checks your `softmax`: it sums to 1, survives
# `[1000, 1001, 1002]`, ignores a constant shift, and gives the known answers. Each line says ✓ or ✗;
# a ✗ shows your value beside the expected one and a hint. If your outputs look like a classic mistake,
# the checkpoint names it.

# %% id="step01-softmax-checks" nbgrader={"grade": true, "grade_id": "step01-softmax-checks", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check("softmax")

# %% id="step01-softmax-hidden" nbgrader={"grade": true, "grade_id": "step01-softmax-hidden", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from checkpoints import hidden

hidden("softmax")
### BEGIN HIDDEN TESTS
# scored outside the kernel by the course's judge (grading/judge/; cases: attention_hidden.py)
### END HIDDEN TESTS
