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
# # Step 4 · Multi-head attention: split, attend, concatenate
#
# One attention layer gives every query a single way of mixing the values. **Multi-head** attention
# cuts the $d$ features into $h$ slices of $d/h$ features each, runs attention separately on each slice,
# and puts the $h$ results side by side again. Each head can then attend to different keys.
#
# For $d = 8$ and $h = 2$: head 0 sees columns 0-3 of `Q`, `K` and `V`, head 1 sees columns 4-7;
# each head's output is $n \times 4$. Row $i$ of the result is row $i$ of head 0 followed by row $i$ of
# head 1: the heads are joined side by side, column-wise, which gives $n \times 8$ again.
#
# Two details matter:
# - Each head divides by $\sqrt{d/h}$, the width it actually receives. Passing the slices to your
#   `attention` does that for free, because it computes $d_k$ from `len(K[0])`.
# - With $h = 1$ the only slice is the whole matrix, so `multi_head(Q, K, V, 1)` must equal
#   `attention(Q, K, V)[0]` exactly: the best self-check you have.
#
# The cell below cuts a row of 8 features for 2 heads in two ways. `row[a:b]` keeps items `a` to
# `b − 1`: block $k$ of `width` neighbours, which is what a head sees. `row[k::h]` keeps every $h$-th
# item starting at `k` (*interleaved*): each head would get scattered features, a classic mistake.

# %% id="step04-setup" nbgrader={"grade": false, "grade_id": "step04-setup", "locked": true, "schema_version": 3, "solution": false}
from checkpoints import check, demo, ensure_model, save

ensure_model()
with demo():
    from model import attention

# %% id="cell-02"
row = [0, 1, 2, 3, 4, 5, 6, 7]
h = 2
width = len(row) // h
print("contiguous slices:", [row[k * width : (k + 1) * width] for k in range(h)])
print("interleaved (wrong):", [row[k::h] for k in range(h)])

# %% [markdown] id="heads-why"
# ## Why more than one head?
#
# A query's softmax produces **one** set of weights, so one attention layer can only mix the values in
# one way per position. But a token often needs several things at once: the previous word, the subject
# of the sentence, a matching bracket. With $h$ heads, each head scores the keys on its own slice of the
# features and makes its own choice, and the next layer receives all $h$ choices side by side.
#
# The cost is the same as one big head: $h$ slices of width $d/h$ multiply out to the same number of
# products. What changes is that the softmax is taken $h$ times, once per head.
#
# ### A worked example, by hand
#
# Two positions, four features, two heads. Head 0 sees features 0-1, head 1 sees features 2-3. The
# first two features make position 1 look like position 0; the last two make them opposites:

# %% id="heads-worked-example"
with demo():
    X = [[1.0, 0.0, 2.0, 0.0], [1.0, 0.0, -2.0, 0.0]]
    halves = [[row[0:2] for row in X], [row[2:4] for row in X]]
    outputs = []
    for k, S in enumerate(halves):
        out, weights = attention(S, S, S)
        outputs.append(out)
        print(f"head {k}: slice {S}")
        print(f"         weights {[[round(w, 3) for w in r] for r in weights]}")
        print(f"         output  {[[round(v, 3) for v in r] for r in out]}")
    joined = [a + b for a, b in zip(outputs[0], outputs[1])]
    print("concatenated rows:", [[round(v, 3) for v in row] for row in joined])


# %% [markdown] id="heads-worked-example-read"
# Head 0 cannot tell the positions apart (equal scores, weights ½ and ½); head 1 sees that they are
# opposites and keeps each position almost entirely to itself (scores $\pm 4/\sqrt 2 \approx \pm 2.83$,
# weights about 0.997 and 0.003). One head alone would have had to choose one of these views; two heads
# keep both.

# %% [markdown] id="cell-03"
# ## Your turn: `multi_head(Q, K, V, h, mask=None)` (5 points)
#
# Write `columns` (the slice of every row that a head sees) and `multi_head`. When $d$ is not divisible
# by $h$, raise a `ValueError` with a message that says so: `raise ValueError("...")` stops the
# function there, with your message in place of the dots. Pass `mask` on to every head.

# %% id="step04-multi-head-solution" nbgrader={"grade": false, "grade_id": "step04-multi-head-solution", "locked": false, "schema_version": 3, "solution": true}
def columns(M, start, stop):
    """Row i of M, columns start … stop − 1, for each i."""
    ### BEGIN SOLUTION
    return [row[start:stop] for row in M]
    ### END SOLUTION


def multi_head(Q, K, V, h, mask=None):
    """concat_k attention(Q_k, K_k, V_k), Q_k = columns(Q, k·d/h, (k+1)·d/h)"""
    ### BEGIN SOLUTION
    d = len(Q[0])
    if not isinstance(h, int) or h < 1 or d % h != 0:
        raise ValueError(
            f"multi_head: cannot split d = {d} features into h = {h!r} equal heads; "
            f"h must be a positive integer that divides d"
        )
    width = d // h
    heads = []  # h matrices, n × width each
    for s in range(0, d, width):
        Q_k, K_k, V_k = columns(Q, s, s + width), columns(K, s, s + width), columns(V, s, s + width)
        heads.append(attention(Q_k, K_k, V_k, mask)[0])
    return [[x for head in heads for x in head[i]] for i in range(len(Q))]  # n × d
    ### END SOLUTION


# %% id="cell-05"
with demo():
    X = [[0.1 * (i + c) for c in range(8)] for i in range(3)]
    print(multi_head(X, X, X, 1)[0][:3])
    print(attention(X, X, X)[0][0][:3])  # the same as the line above

# %% [markdown] id="heads-picture-intro"
# Each head attends with its own slice of the features, so each head has its own matrix of attention
# weights.
# The first picture runs `attention` on each slice of the same seeded input, as `multi_head` does.
# The second is your own `multi_head`'s output for that input, cut into its $h$ blocks of columns:
# block $k$ must be head $k$'s output, so a mistake in the split or the concatenation shows there
# (a missing block, a block in the wrong place, or heads that all look alike). To compare block $k$
# exactly, print `attention(slices[k], slices[k], slices[k])[0]`.

# %% id="heads-picture"
from checkpoints.attention.probes import seeded_matrix
from checkpoints.pictures import show_head_outputs, show_heads

with demo():
    X, h = seeded_matrix(5, 8, seed=7, scale=2.0), 4
    width = len(X[0]) // h
    slices = [[row[k * width : (k + 1) * width] for row in X] for k in range(h)]
    display(show_heads([attention(S, S, S)[1] for S in slices]))
    display(show_head_outputs(multi_head(X, X, X, h), h))

# %% id="step04-save-multi-head" nbgrader={"grade": false, "grade_id": "step04-save-multi-head", "locked": true, "schema_version": 3, "solution": false}
save(multi_head)

# %% [markdown] id="checkpoint"
# ## Checkpoint 4
#
# The cell below checks your `multi_head`: an $n \times d$ output, `h = 1` equal to `attention`, a
# `ValueError` when $h$ does not divide $d$, each head independent of the others, and the known
# answers.

# %% id="step04-multi-head-checks" nbgrader={"grade": true, "grade_id": "step04-multi-head-checks", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check("multi_head")

# %% id="step04-multi-head-hidden" nbgrader={"grade": true, "grade_id": "step04-multi-head-hidden", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from checkpoints import hidden

hidden("multi_head")
### BEGIN HIDDEN TESTS
# scored outside the kernel by the course's judge (grading/judge/; cases: attention_hidden.py)
### END HIDDEN TESTS
