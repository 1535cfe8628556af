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
# # Step 5 · Attention cannot see order, until you tell it
#
# Shuffle the rows of `X` and run self-attention (attention with $Q = K = V = X$): you get the same
# output rows, shuffled the same way.
# Nothing in $\operatorname{softmax}(QK^\top/\sqrt d)\,V$ depends on *where* a row sits, only on what
# it contains. This is **permutation equivariance**: "dog bites man" and "man bites dog" look alike.
#
# The fix is to add a **positional encoding** to every row: a vector that depends on the position
# $p$ only. The transformer paper used sines and cosines at geometrically spaced frequencies:
#
# $$PE_{p,\,2i} = \sin\!\left(\frac{p}{10000^{2i/d}}\right), \qquad PE_{p,\,2i+1} = \cos\!\left(\frac{p}{10000^{2i/d}}\right)$$
#
# Every value lies in $[-1, 1]$ and no two positions share a row. Any scheme with those two properties
# passes this checkpoint; the sinusoidal one is a good default.

# %% id="step05-setup" nbgrader={"grade": false, "grade_id": "step05-setup", "locked": true, "schema_version": 3, "solution": false}
import math

from checkpoints import check, demo, ensure_model, save

ensure_model()
with demo():
    from model import attention

# %% id="cell-02"
for i, d in [(0, 8), (1, 8), (3, 8)]:
    print(f"feature pair {i}: one cycle every {2 * math.pi * 10000 ** (2 * i / d):8.1f} positions")

# %% [markdown] id="pe-worked-example"
# ### A worked example, by hand
#
# Position $p = 1$ with $d = 4$ features. Features 0 and 1 share $i = 0$, so their angle is
# $1 / 10000^{0/4} = 1$; features 2 and 3 share $i = 1$, so their angle is $1 / 10000^{2/4} = 0.01$.
# Even features take the sine, odd ones the cosine:
#
# $$PE[1] = [\sin 1,\ \cos 1,\ \sin 0.01,\ \cos 0.01] \approx [0.8415,\ 0.5403,\ 0.0100,\ 0.99995]$$
#
# The first pair turns a whole radian per position, the second a hundredth of one: fast and slow
# clocks side by side, so nearby positions differ in the fast features and distant ones in the slow.

# %% id="pe-worked-example-code"
p, d = 1, 4
angles = [p / 10000 ** (2 * (c // 2) / d) for c in range(d)]
print("angles:", angles)
print(
    "PE[1]: ", [round(math.sin(a) if c % 2 == 0 else math.cos(a), 5) for c, a in enumerate(angles)]
)


# %% [markdown] id="cell-03"
# ## Your turn: `pos_encoding(n, d)` (5 points)
#
# Return $n$ rows (positions) of $d$ values (features).
# Aim for the sinusoidal scheme of the cell above (the checkpoint accepts any encoding whose values
# lie in $[-1, 1]$ and whose rows all differ): for feature $c$, let $i = \lfloor c/2 \rfloor$ (`c // 2`) and
# angle $= p / 10000^{2i/d}$; even features take the sine of the angle, odd ones the cosine.

# %% id="step05-pos-encoding-solution" nbgrader={"grade": false, "grade_id": "step05-pos-encoding-solution", "locked": false, "schema_version": 3, "solution": true}
def pos_encoding(n, d):
    """PE[p][c] = sin(p / 10000^(2i/d)) for c = 2i, cos(p / 10000^(2i/d)) for c = 2i + 1."""

    ### BEGIN SOLUTION
    def angle(p, c):
        return p / 10000 ** ((c - c % 2) / d)

    # n rows × d cols
    return [
        [math.sin(angle(p, c)) if c % 2 == 0 else math.cos(angle(p, c)) for c in range(d)]
        for p in range(n)
    ]
    ### END SOLUTION


# %% id="cell-05"
with demo():
    for row in pos_encoding(4, 6):
        print([round(v, 3) for v in row])

# %% [markdown] id="pe-picture-intro"
# The whole pattern for 50 positions and 16 features (blue is -1, red is +1): the first columns
# change from one position to the next, the last ones slowly, so every row is a different mix.

# %% id="pe-picture"
from checkpoints.pictures import show_encoding

with demo():
    display(show_encoding(pos_encoding(50, 16)))

# %% id="step05-save-pos-encoding" nbgrader={"grade": false, "grade_id": "step05-save-pos-encoding", "locked": true, "schema_version": 3, "solution": false}
save(pos_encoding)

# %% [markdown] id="checkpoint"
# ## Checkpoint 5
#
# The cell below checks your `pos_encoding`: $n \times d$, every value in $[-1, 1]$, and no two rows
# alike, also for the sizes people forget: an odd $d$ (the last sine has no cosine), $d = 1$, and a
# single position.

# %% id="step05-pos-encoding-checks" nbgrader={"grade": true, "grade_id": "step05-pos-encoding-checks", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check("pos_encoding")

# %% id="step05-pos-encoding-hidden" nbgrader={"grade": true, "grade_id": "step05-pos-encoding-hidden", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from checkpoints import hidden

hidden("pos_encoding")
### BEGIN HIDDEN TESTS
# scored outside the kernel by the course's judge (grading/judge/; cases: attention_hidden.py)
### END HIDDEN TESTS

# %% [markdown] id="cell-09"
# ## The permutation experiment (1 point)
#
# The experiment reverses the rows of a seeded $6 \times 16$ matrix `X` and compares
# $f(PX)$ with $P\,f(X)$, where $f(X) = \text{attention}(X, X, X)$ and $P$ is the reversal.
# It does it twice: on `X` as it is, and with `pos_encoding` added after the rows have moved
# (a position belongs to a place in the sequence, not to the row that happens to sit there).
# Here is the code:

# %% id="step05-perm-source" nbgrader={"grade": false, "grade_id": "step05-perm-source", "locked": true, "schema_version": 3, "solution": false}
from checkpoints import show_source, write_artifact
from checkpoints.attention.artifacts import PERM_FILE, permutation_experiment

show_source(permutation_experiment)

# %% id="cell-11"
with demo():
    without_pe, with_pe = permutation_experiment(attention, pos_encoding)
    print(f"max |f(PX) - P f(X)| without positional encoding: {without_pe:.3g}")
    print(f"max |f(PX) - P f(X)| with positional encoding:    {with_pe:.3g}")

# %% [markdown] id="cell-12"
# A number like `1e-15` is zero up to floating-point rounding. Write one sentence saying what the two
# numbers show, and assign it to `conclusion` in the cell below: the check wants the word *order* and a
# word for the shuffle or the positions (shuffle, permutation, position; in Korean 순서 with 섞다, 순열 or
# 위치; in Japanese 順序 with 並べ替え or 位置). The same cell writes `outputs/05-perm.txt` with your two
# numbers and your sentence.

# %% id="step05-perm-conclusion" nbgrader={"grade": false, "grade_id": "step05-perm-conclusion", "locked": false, "schema_version": 3, "solution": true}
with demo():
    ### BEGIN SOLUTION
    conclusion = (
        "without positional encoding attention is permutation-equivariant: shuffling the rows only "
        "shuffles the output, so order is invisible; with pos_encoding added the output changes, "
        "so order matters"
    )
    ### END SOLUTION
    write_artifact(
        PERM_FILE, f"without_pe: {without_pe!r}\nwith_pe: {with_pe!r}\nconclusion: {conclusion}"
    )

# %% id="step05-perm-artifact" nbgrader={"grade": true, "grade_id": "step05-perm-artifact", "locked": true, "points": 1, "schema_version": 3, "solution": false}
from checkpoints import check_artifact

check_artifact("05-perm.txt")
