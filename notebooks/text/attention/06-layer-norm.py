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
# # Step 6 · Layer norm: one vector at a time
#
# Layer normalisation rescales **one token's vector** to mean 0 and variance 1:
#
# $$\mu = \frac1d\sum_c x_c, \qquad \sigma^2 = \frac1d\sum_c (x_c-\mu)^2, \qquad \operatorname{LN}(x)_c = \frac{x_c - \mu}{\sqrt{\sigma^2 + \varepsilon}}$$
#
# The statistics come from the features of that one vector, never from other positions or other
# examples in a batch (that would be batch norm). So a token's normalised vector does not depend on the
# sequence length or on its neighbours, which is what a causal model needs.
#
# Two details:
# - $\sigma^2$ divides by $d$ (the population variance), not by $d - 1$.
# - $\varepsilon$ (default `1e-5`) sits **inside** the square root, so a constant vector
#   ($\sigma^2 = 0$) gives zeros instead of a division by zero.

# %% id="step06-setup" nbgrader={"grade": false, "grade_id": "step06-setup", "locked": true, "schema_version": 3, "solution": false}
import math

from checkpoints import check, demo, ensure_model, save

ensure_model()

# %% id="cell-02"
row = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
print("mean:", sum(row), "/ 8 =", sum(row) / 8)  # 5.0
deviations = [x - 5.0 for x in row]
print("squared deviations:", [d * d for d in deviations])  # they add up to 32
print("population variance: 32 / 8 = 4.0, standard deviation 2.0")
print("sample variance (the wrong one here): 32 / 7 =", round(32 / 7, 4))


# %% [markdown] id="layer-norm-why"
# So by hand, $\operatorname{LN}(x) = (x - 5) / \sqrt{4 + 10^{-5}} \approx (x - 5)/2$:
# `[-1.5, -0.5, -0.5, -0.5, 0, 0, 1, 2]`. Its mean is 0 and its variance $(2.25 + 3 \cdot 0.25 + 1 + 4)/8 = 1$.
#
# ### Why normalise at all?
#
# Attention's scores are dot products, so they grow with the size of the vectors: a vector twice as
# long gives scores twice as large, and (as step 2 showed) large scores make the softmax pick one key.
# As blocks are stacked, each adds its output to the running vector, and without a brake the sizes
# drift from block to block. Layer norm resets every token's vector to the same scale before attention
# reads it, so the scores stay in the range the $\sqrt{d_k}$ scaling was designed for, however deep
# the stack.

# %% [markdown] id="cell-03"
# ## Your turn: `layer_norm(row, eps=1e-5)` (5 points)
#
# One row in, one row out: subtract the row's mean $\mu$, then divide by $\sqrt{\sigma^2 + \text{eps}}$,
# where $\sigma^2$ is the **population** variance (the sum of squares divided by `len(row)`, not
# `len(row) - 1`). `eps` keeps a constant row from dividing by zero; it goes inside the square root.

# %% id="step06-layer-norm-solution" nbgrader={"grade": false, "grade_id": "step06-layer-norm-solution", "locked": false, "schema_version": 3, "solution": true}
def layer_norm(row, eps=1e-5):
    """(x - mean) / √(var + eps), var = Σ(x - mean)² / len(row)"""
    ### BEGIN SOLUTION
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [(x - mean) / math.sqrt(var + eps) for x in row]
    ### END SOLUTION


# %% id="cell-05"
with demo():
    # (x - 5) / 2, nearly
    print([round(v, 4) for v in layer_norm([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])])
    print(layer_norm([3.0, 3.0, 3.0]))  # zeros, no error

# %% [markdown] id="layer-norm-picture-intro"
# Before and after, each on its own scale (the label gives its largest magnitude): the shape of the
# vector stays, its mean moves to 0 and its spread to 1.

# %% id="layer-norm-picture"
from checkpoints.pictures import show_bars

with demo():
    row = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
    display(show_bars({"row": row, "layer_norm(row)": layer_norm(row)}))

# %% id="step06-save-layer-norm" nbgrader={"grade": false, "grade_id": "step06-save-layer-norm", "locked": true, "schema_version": 3, "solution": false}
save(layer_norm)

# %% [markdown] id="checkpoint"
# ## Checkpoint 6
#
# The cell below checks your `layer_norm`: mean 0 and variance 1, zeros for a constant vector, `eps`
# taken into account, and the known answers.

# %% id="step06-layer-norm-checks" nbgrader={"grade": true, "grade_id": "step06-layer-norm-checks", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check("layer_norm")

# %% id="step06-layer-norm-hidden" nbgrader={"grade": true, "grade_id": "step06-layer-norm-hidden", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from checkpoints import hidden

hidden("layer_norm")
### BEGIN HIDDEN TESTS
# scored outside the kernel by the course's judge (grading/judge/; cases: attention_hidden.py)
### END HIDDEN TESTS
