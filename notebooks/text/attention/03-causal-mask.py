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
# # Step 3 · Hiding the future: the causal mask
#
# A language model predicts token $i+1$ from tokens $0..i$. If position $i$ could attend to position
# $i+1$, training would let it copy the answer. A **causal mask** forbids it:
# `mask[i][j]` is true exactly when query $i$ may look at key $j$, that is when $i \ge j$.
#
# For $n = 4$ (1 = visible):
#
# ```
#       key 0 1 2 3
# query 0   1 0 0 0
# query 1   1 1 0 0
# query 2   1 1 1 0
# query 3   1 1 1 1
# ```

# %% id="step03-setup" nbgrader={"grade": false, "grade_id": "step03-setup", "locked": true, "schema_version": 3, "solution": false}
import math

from checkpoints import check, demo, ensure_model, save

ensure_model()
with demo():
    from model import attention, softmax

# %% [markdown] id="cell-02"
# ## Mask *before* the softmax
#
# Setting a score to $-\infty$ makes its weight $e^{-\infty} = 0$ exactly, and the softmax then shares
# the whole weight of 1 among the visible keys. The classic bug is to take the softmax first and then
# multiply the hidden weights by 0: the hidden weights are 0, but the row no longer sums to 1. See both:

# %% id="cell-03"
with demo():
    scores = [2.0, 1.0, 3.0]
    visible = [True, True, False]

    after = [w * keep for w, keep in zip(softmax(scores), visible)]
    before = softmax([s if keep else -math.inf for s, keep in zip(scores, visible)])
    print("mask after softmax :", [round(w, 4) for w in after], " sum", round(sum(after), 4))
    print("mask before softmax:", [round(w, 4) for w in before], " sum", round(sum(before), 4))


# %% [markdown] id="cell-04"
# The masked-before row is the unmasked softmax of the visible scores alone, so the two visible
# weights keep their ratio ($e^{2} : e^{1}$) and fill the whole row. A very negative number such as
# `-1e9` works as well as `-math.inf`, because `math.exp(-1e9)` is exactly `0.0` in floating point.
#
# ## Your turn: `causal_mask(n)` (5 points)
#
# Return an $n \times n$ list of booleans with `mask[i][j] = i >= j`. Then make sure your `attention`
# from step 2 applies `mask` to the **scores**. If it does not yet, edit `02-attention.ipynb` and re-run
# its save cell; the checkpoint reads `model.py` afresh, but this notebook still holds the old
# `attention`, so restart its kernel (Kernel → Restart) and run it again from the top.

# %% id="step03-causal-mask-solution" nbgrader={"grade": false, "grade_id": "step03-causal-mask-solution", "locked": false, "schema_version": 3, "solution": true}
def causal_mask(n):
    """mask[i][j] = (i >= j)"""
    ### BEGIN SOLUTION
    return [[i >= j for j in range(n)] for i in range(n)]
    ### END SOLUTION


# %% id="cell-06"
with demo():
    for row in causal_mask(4):
        print([int(v) for v in row])

# %% [markdown] id="causal-picture-intro"
# Here is causal attention on six seeded positions: row $i$ (a query) has weight only in columns
# $0..i$, so the picture is a lower triangle. Hover over a cell to read its value.

# %% id="causal-picture"
from checkpoints.attention.probes import seeded_matrix
from checkpoints.pictures import show_attention

with demo():
    X = seeded_matrix(6, 8, seed=3)
    display(
        show_attention(
            attention(X, X, X, causal_mask(6))[1],
            "causal attention: each query sees itself and the past",
        )
    )

# %% id="step03-save-causal-mask" nbgrader={"grade": false, "grade_id": "step03-save-causal-mask", "locked": true, "schema_version": 3, "solution": false}
save(causal_mask)

# %% [markdown] id="checkpoint"
# ## Checkpoint 3
#
# The cell below checks `causal_mask` and your `attention` with a mask: `mask[i][j]` is `i >= j`,
# hidden weights are exactly 0, every row still sums to 1, and the visible weights keep their
# unmasked proportions.

# %% id="step03-causal-mask-checks" nbgrader={"grade": true, "grade_id": "step03-causal-mask-checks", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check("causal_mask")

# %% id="step03-causal-mask-hidden" nbgrader={"grade": true, "grade_id": "step03-causal-mask-hidden", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from checkpoints import hidden

hidden("causal_mask")
### BEGIN HIDDEN TESTS
# scored outside the kernel by the course's judge (grading/judge/; cases: attention_hidden.py)
### END HIDDEN TESTS
