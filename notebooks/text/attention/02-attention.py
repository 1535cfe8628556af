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
# # Step 2 · Attention in three lines, and why it divides by √d_k
#
# Each position asks a **query** $q_i$; every position offers a **key** $k_j$ and a **value** $v_j$.
# Query $i$ scores key $j$ with a dot product, softmax turns its row of scores into weights, and the
# output is the weighted average of the values:
#
# $$\text{score}_{ij} = \frac{q_i \cdot k_j}{\sqrt{d_k}}, \qquad w_i = \operatorname{softmax}(\text{score}_i), \qquad \text{out}_i = \sum_j w_{ij}\, v_j$$
#
# `Q`, `K`, `V` are lists of rows: `Q` is $n_q \times d_k$, `K` is $n_k \times d_k$, `V` is $n_k \times d_v$.
# The result is the pair `(out, weights)`: `out` is $n_q \times d_v$, `weights` is $n_q \times n_k$.

# %% id="step02-setup" nbgrader={"grade": false, "grade_id": "step02-setup", "locked": true, "schema_version": 3, "solution": false}
import math

from checkpoints import check, demo, ensure_model, save

ensure_model()
with demo():
    from model import softmax

# %% [markdown] id="cell-02"
# ## A worked example you can check by hand
#
# Two keys, one query. The query points the same way as the first key, so it should lean towards the
# first value. With $d_k = 2$ the scores are $(1\cdot 1 + 0\cdot 0)/\sqrt 2 \approx 0.707$ and $0$.

# %% id="cell-03"
with demo():
    q, k1, k2 = [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]
    scores = [sum(a * b for a, b in zip(q, k)) / math.sqrt(2) for k in (k1, k2)]
    weights = softmax(scores)
    v1, v2 = [10.0, 0.0], [0.0, 10.0]
    print("scores ", [round(s, 4) for s in scores])
    print("weights", [round(w, 4) for w in weights])
    print("out    ", [round(weights[0] * a + weights[1] * b, 4) for a, b in zip(v1, v2)])


# %% [markdown] id="cell-04"
# ## Your turn: `attention(Q, K, V, mask=None)` (5 points)
#
# Write `dot` and `attention`. You may leave `mask` alone for now: step 3 uses it. There it means
# "where `mask[i][j]` is false, the score becomes `-math.inf` before the softmax"; if you like, write
# now the one line in `attention` that does this to a score, or leave it for step 3.
# Use `len(K[0])` for $d_k$.

# %% id="step02-attention-solution" nbgrader={"grade": false, "grade_id": "step02-attention-solution", "locked": false, "schema_version": 3, "solution": true}
def dot(a, b):
    """a · b = Σ_k a_k b_k"""
    ### BEGIN SOLUTION
    return sum(x * y for x, y in zip(a, b))
    ### END SOLUTION


def attention(Q, K, V, mask=None):
    """(softmax(Q Kᵀ / √d_k) V, weights); mask[i][j] false → score -inf"""
    ### BEGIN SOLUTION
    scale = math.sqrt(len(K[0]))
    scores = [[dot(q, k) / scale for k in K] for q in Q]  # n_q rows × n_k cols
    if mask is not None:
        scores = [
            [s if visible else -math.inf for s, visible in zip(row, row_mask)]
            for row, row_mask in zip(scores, mask)
        ]
    weights = [softmax(row) for row in scores]  # each row sums to 1
    # n_q rows × d_v cols
    out = [[sum(w * v[c] for w, v in zip(row, V)) for c in range(len(V[0]))] for row in weights]
    return out, weights
    ### END SOLUTION


# %% id="cell-06"
with demo():
    out, weights = attention([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[10.0, 0.0], [0.0, 10.0]])
    print(out, weights)  # the same numbers as the worked example

# %% id="step02-save-attention" nbgrader={"grade": false, "grade_id": "step02-save-attention", "locked": true, "schema_version": 3, "solution": false}
save(attention)

# %% [markdown] id="checkpoint"
# ## Checkpoint 2
#
# The cell below checks the `attention` in `model.py`: it returns `(out, weights)` of the right
# shapes, every row of `weights` sums to 1, and it gives the known answers.

# %% id="step02-attention-checks" nbgrader={"grade": true, "grade_id": "step02-attention-checks", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check("attention")

# %% id="step02-attention-hidden" nbgrader={"grade": true, "grade_id": "step02-attention-hidden", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from checkpoints import hidden

hidden("attention")
### BEGIN HIDDEN TESTS
# scored outside the kernel by the course's judge (grading/judge/; cases: attention_hidden.py)
### END HIDDEN TESTS

# %% [markdown] id="cell-10"
# ## The √d_k experiment (1 point)
#
# Why divide by $\sqrt{d_k}$? If the entries of $q$ and $k$ are independent, with mean 0 and variance 1, then
# $q \cdot k$ is a sum of $d_k$ such products and has variance $d_k$: at $d_k = 64$ their standard deviation is
# $\sqrt{64} = 8$, so scores of ±8 are typical and ±16 (two standard deviations) are not rare.
# Softmax of numbers that far apart is nearly one-hot: the query stops *averaging* and
# starts *choosing* a single key, and gradients through the other keys vanish. Dividing by $\sqrt{d_k}$
# brings the variance back to 1.
#
# The experiment below measures the largest attention weight on seeded random $8 \times 64$ matrices,
# once as written and once with the division undone (multiplying `Q` by $\sqrt{d_k}$ cancels it).
# Here is its code, then run it:

# %% id="step02-scale-source" nbgrader={"grade": false, "grade_id": "step02-scale-source", "locked": true, "schema_version": 3, "solution": false}
from checkpoints import show_source, write_artifact
from checkpoints.attention.artifacts import SCALE_FILE, scale_experiment

show_source(scale_experiment)

# %% id="cell-12"
with demo():
    scaled, unscaled = scale_experiment(attention)
    print(f"largest weight, dividing by √d_k: {scaled:.4f}")
    print(f"largest weight, not dividing:     {unscaled:.4f}")
    write_artifact(SCALE_FILE, f"scaled: {scaled!r}\nunscaled: {unscaled!r}")

# %% [markdown] id="scale-picture-intro"
# The same two weight matrices as pictures (white is 0, dark blue is 1). With the division each row
# spreads its weight over several keys; without it, most rows are nearly one dark cell.

# %% id="scale-picture"
from checkpoints.attention.artifacts import scale_picture

with demo():
    display(scale_picture(attention))

# %% [markdown] id="cell-13"
# Without the division the largest weight sits next to 1.0: that row of attention has collapsed onto a
# single key. Keep both numbers: the notes in step 8 quote them.

# %% id="step02-scale-artifact" nbgrader={"grade": true, "grade_id": "step02-scale-artifact", "locked": true, "points": 1, "schema_version": 3, "solution": false}
from checkpoints import check_artifact

check_artifact("02-scale.txt")
