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
# # Step 7 · The block: pre-LN attention with a residual
#
# A transformer block (its attention half) is one line once the pieces exist:
#
# $$\text{block}(X) = X + \text{MultiHead}(N, N, N), \qquad N_i = \operatorname{LN}(X_i)$$
#
# - **Pre-LN**: each row is normalised *before* attention. The original transformer normalised
#   *after* the sum (post-LN: $\operatorname{LN}(X + \text{Attn}(X))$), which needs a learning-rate
#   warm-up to train deep stacks; pre-LN trains without it because the residual path stays an identity.
# - **Residual**: adding $X$ back means the block only has to learn a correction, and gradients reach
#   the input through the $+X$ path unchanged however many blocks are stacked.
# - The output has the input's shape, so blocks stack.
#
# (A full block adds a feed-forward network after this; part one stops at attention, and part two
# adds the rest.)

# %% id="step07-setup" nbgrader={"grade": false, "grade_id": "step07-setup", "locked": true, "schema_version": 3, "solution": false}
from checkpoints import check, demo, ensure_model, save

ensure_model()
with demo():
    from model import causal_mask, layer_norm, multi_head

# %% id="cell-02"
with demo():
    X = [[1.0, 2.0, 3.0, 4.0], [10.0, 0.0, 10.0, 0.0]]
    N = [layer_norm(r) for r in X]
    print("each normalised row has mean ~0:", [round(sum(r) / len(r), 9) for r in N])

# %% [markdown] id="block-worked-example-intro"
# ### A worked example, stage by stage
#
# Two positions, four features, one head, no mask. Watch each stage: normalise each row, attend, add back.

# %% id="block-worked-example"
with demo():
    X = [[1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]]
    N = [layer_norm(r) for r in X]
    print("N = LN(X)      ", [[round(v, 3) for v in r] for r in N])
    A = multi_head(N, N, N, 1)
    print("A = attention  ", [[round(v, 3) for v in r] for r in A])
    print("X + A          ", [[round(x + a, 3) for x, a in zip(xr, ar)] for xr, ar in zip(X, A)])


# %% [markdown] id="block-worked-example-read"
# The two normalised rows are exact opposites, each with squared length $\lVert N_i \rVert^2 \approx 4$ (variance 1
# over 4 features). So each query scores itself at $4/\sqrt 4 = 2$ and the other row at $-2$, and the
# softmax keeps about 98% of each row's weight on itself. The attention output is a correction of size
# about 1, and the residual adds it to the original $X$, whose shape and scale survive.

# %% [markdown] id="cell-03"
# ## Your turn: `block(X, h, mask=None)` (5 points)
#
# Normalise every row of `X` with your `layer_norm`, run `multi_head` on the normalised rows
# (they are the queries, the keys and the values here), pass `mask` on, and add the result to the
# **original** `X`, row by row and feature by feature. The output has `X`'s shape.

# %% id="step07-block-solution" nbgrader={"grade": false, "grade_id": "step07-block-solution", "locked": false, "schema_version": 3, "solution": true}
def block(X, h, mask=None):
    """X + multi_head(N, N, N, h, mask), N = [layer_norm(x) for x in X]"""
    ### BEGIN SOLUTION
    N = [layer_norm(row) for row in X]
    A = multi_head(N, N, N, h, mask)  # n × d, like X
    return [[x + a for x, a in zip(x_row, a_row)] for x_row, a_row in zip(X, A)]
    ### END SOLUTION


# %% id="cell-05"
with demo():
    X = [[0.5 * (i - c) for c in range(8)] for i in range(4)]
    Y = block(X, 2, causal_mask(4))
    print(len(Y), "×", len(Y[0]))  # 4 × 8, like X

# %% id="step07-save-block" nbgrader={"grade": false, "grade_id": "step07-save-block", "locked": true, "schema_version": 3, "solution": false}
save(block)

# %% [markdown] id="checkpoint"
# ## Checkpoint 7
#
# The cell below checks your `block`: it keeps the shape of `X`, respects the causal mask and
# gives the known answers.

# %% id="step07-block-checks" nbgrader={"grade": true, "grade_id": "step07-block-checks", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check("block")

# %% id="step07-block-hidden" nbgrader={"grade": true, "grade_id": "step07-block-hidden", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from checkpoints import hidden

hidden("block")
### BEGIN HIDDEN TESTS
# scored outside the kernel by the course's judge (grading/judge/; cases: attention_hidden.py)
### END HIDDEN TESTS

# %% [markdown] id="real-transformer"
# ## What a real transformer adds, and where it would go
#
# This block has no weights: nothing in it can learn. A trained transformer block adds four kinds of
# learned parameters, each a small change to `model.py`:
#
# | what | formula | where in `model.py` |
# |---|---|---|
# | projections $W_Q, W_K, W_V$ ($d \times d$) and $W_O$ | $\text{MultiHead}(XW_Q, XW_K, XW_V)\,W_O$ | a `matmul(X, W)` helper; `block` multiplies before and after `multi_head` |
# | gain $\gamma$ and bias $\beta$ per feature | $\gamma \odot \operatorname{LN}(x) + \beta$ ($\odot$: feature by feature) | two extra arguments of `layer_norm` |
# | the MLP: two linear layers, usually $4d$ wide, with a ReLU or GELU between | $X' + \text{MLP}(\operatorname{LN}(X'))$, a second residual after attention | a new `mlp(row, W1, b1, W2, b2)`; `block` gains a second half |
# | many blocks, plus token embeddings in and a linear head out | $\text{block}_L(\cdots\text{block}_1(E[\text{tokens}] + PE))$ | a `gpt(tokens, params)` that loops over blocks |
#
# With the projections, $Q$, $K$ and $V$ stop being the same matrix: each head learns what to look for
# ($W_Q$), what to offer ($W_K$) and what to pass on ($W_V$). Part two of this course builds a small
# version of this: XSLM, the tiny GPT (1,248 parameters) of the lesson after "Attention without
# libraries" in TT Lab's Transformer course, and trains it with backpropagation. It has the
# projections, token and position embeddings in and a linear head out, but one block with one head,
# an MLP $2d$ wide with a ReLU, and no $\gamma$, $\beta$ or biases.
