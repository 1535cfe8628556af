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
# # Part two · Step 3 · The tiny GPT
#
# Now the pieces come together: part one's block, with weights this time, between an embedding at the
# bottom and a head at the top. The model reads a list of token ids and, at every position, gives a
# score (**logit**) to each token of the vocabulary for what comes next.
#
# The sizes are those of XSLM, the tiny GPT of the lesson that part two follows (named at the end of part
# one, in step 7): a vocabulary of 40 tokens, width 8, a context of 12 tokens, one block with one attention
# head. That makes nine weight matrices and 1,248 numbers to learn. By the end of this
# notebook `gpt.py` holds the class `GPT`.

# %% id="xslm03-setup" nbgrader={"grade": false, "grade_id": "xslm03-setup", "locked": true, "schema_version": 3, "solution": false}
import math
import random

from checkpoints.xslm import check, demo, save

with demo():
    from engine import Value, linear, norm, softmax


# %% [markdown] id="cell-02"
# ## The nine matrices
#
# Every matrix is stored **out × in**, as `linear` expects. With vocabulary $V$, width $d$ and
# context $n$:
#
# | name | shape | what it does |
# |---|---|---|
# | `token` | $V \times d$ | row $t$ is token $t$'s embedding |
# | `position` | $n \times d$ | row $i$ is added at position $i$ |
# | `query`, `key`, `value` | $d \times d$ each | the projections that make part one's queries, keys and values |
# | `project` | $d \times d$ | mixes the attention's output back into `x`, the running sum the residual connections add to |
# | `expand` | $2d \times d$ | the MLP widens to $2d$ ... |
# | `contract` | $d \times 2d$ | ... and comes back to $d$ |
# | `head` | $V \times d$ | one logit per token of the vocabulary |
#
# $2 \cdot 40 \cdot 8 + 12 \cdot 8 + 4 \cdot 64 + 2 \cdot 128 = 1{,}248$. Each weight starts as
# `Value(rng.gauss(0.0, 0.1))` (Gaussian noise with standard deviation 0.1), drawn from one
# `rng = random.Random(seed)`, matrix by matrix in the order of the table and row by row, so the same seed
# always gives the same model (the checkpoint compares the exact numbers).

# %% [markdown] id="embedding-map"
# ## An embedding is a row of a table
#
# Token 5's embedding is row 5 of `token`, fetched as it is: no search and no multiplication. Why not
# use the id itself? A single number only has an order; it cannot say that two tokens are used alike.
# A row of $d$ numbers can be near other rows in many directions at once, and training moves the rows
# of tokens that are used alike closer together.
#
# *Weights or vectors?* The words answer different questions. A weight (a parameter) is a number that
# training changes: that is its role. A vector is numbers in a row: that is its shape. The whole
# `token` table is weights, and the row fetched from it is that token's vector. The queries, keys and
# values that `forward` makes are vectors too, but not weights: they are computed afresh each time.
#
# The same idea with two axes chosen by hand, speed and size, each from 0 to 1. How alike two things
# are is their distance, $\sqrt{(x_1 - x_2)^2 + (y_1 - y_2)^2}$: the shorter, the more alike. The cell
# below draws the map and lists the three things nearest to a snail. In the model the axes have no names:
# training chooses them (XSLM has 8, large models thousands). Finding the rows nearest to a vector is
# what retrieval does (search engines, RAG); the model itself never searches, it only looks rows up.

# %% id="embedding-map-run"
from checkpoints.pictures import show_points

with demo():
    things = {
        "snail": [0.02, 0.05], "cat": [0.45, 0.25], "cheetah": [0.95, 0.45],
        "horse": [0.75, 0.7], "whale": [0.3, 1.0], "bicycle": [0.4, 0.4], "train": [0.85, 0.95],
    }  # fmt: skip
    here = things["snail"]
    others = [name for name in things if name != "snail"]
    for name in sorted(others, key=lambda name: math.dist(things[name], here))[:3]:
        print(f"{math.dist(things[name], here):.3f}  {name}")
    display(show_points(things, "speed", "size"))

# %% [markdown] id="cell-03"
# ## One position at a time
#
# For position $i$ with token $t$, `forward` does what part one's pre-LN block did, on `Value`s:
#
# 1. $x = \text{token}[t] + \text{position}[i]$
# 2. $h = \operatorname{norm}(x)$; this position's key $k_i = \operatorname{linear}(h, \text{key})$ and value
#    $v_i = \operatorname{linear}(h, \text{value})$ join the lists of keys and values **so far**.
# 3. attention: $q = \operatorname{linear}(h, \text{query})$, weights
#    $\operatorname{softmax}(q \cdot k_j / \sqrt{d})$ over $j \le i$, output $\sum_j w_j v_j$, then
#    $x = x + \operatorname{linear}(\text{output}, \text{project})$.
# 4. MLP: $x = x + \operatorname{linear}(\operatorname{relu}(\operatorname{linear}(\operatorname{norm}(x),
#    \text{expand})), \text{contract})$
# 5. logits: $\operatorname{linear}(\operatorname{norm}(x), \text{head})$
#
# Because the keys and values grow as the loop goes, position $i$ can only ever see positions
# $0 \dots i$: no mask is needed, the future is simply not there yet. Adding a token at the end must
# therefore never change the earlier positions' logits. The checkpoint tests exactly that.

# %% [markdown] id="design-why"
# ## Why it is built this way, and how real models differ
#
# - **A bend between the two MLP layers.** Two linear layers in a row are one linear layer:
#   $B(Ax) = (BA)x$, so stacking them adds nothing. The ReLU between them bends the line, and only then
#   can the MLP express what no single matrix can. The cell below shows, with your `linear`, that
#   $B(Ax)$ equals $(BA)x$, and that the ReLU changes the answer (the $-1$ in $Ax$ becomes $0$).
# - **Why the MLP widens to $2d$.** The wider middle gives room to switch combinations of features on
#   and off separately. In each block of GPT-2 the MLP holds two thirds of the weights, and much of what
#   a model has learned (facts included) is thought to be stored there.
# - **Why the weights start random, not at 0.** If every weight of the MLP started at the same value,
#   every one of the $2d$ numbers in its middle (the *hidden units*) would compute the same thing and
#   receive the same gradient at every step, so they would stay copies of one another forever. Small random numbers make them differ from
#   the first step on.
# - **Real models.** GPT-2 widens its MLP $4\times$ and uses GELU, a ReLU with a smooth bend; it reuses
#   the token table as its head (*weight tying*), where this model keeps a separate `head`; its
#   context is 1,024 tokens, not 12, and many recent models rotate queries and keys by their position
#   (RoPE) instead of adding a learned position table. The lists of keys and values that `forward`
#   keeps are the idea behind the *KV cache*: a model that stores them while it generates computes only
#   the new position, reusing the stored keys and values of the earlier ones; `generate` in step 5
#   simply runs the whole context again.
# - **Memory.** Parameters × bytes per parameter: these 1,248 numbers take 4,992 bytes as 32-bit
#   floats (as `Value` objects in Python, far more); GPT-2 small's 124 million take about 500 MB.

# %% id="design-why-run"
with demo():
    A = [[1.0, 2.0], [0.0, 1.0], [-1.0, 1.0]]
    B = [[1.0, 0.0, 1.0], [2.0, -1.0, 0.0]]
    BA = [[sum(B[r][k] * A[k][c] for k in range(3)) for c in range(2)] for r in range(2)]
    x = [Value(1.5), Value(0.5)]
    print("B(Ax):      ", [v.data for v in linear(linear(x, A), B)])
    print("(BA)x:      ", [v.data for v in linear(x, BA)])
    print("B relu(Ax): ", [v.data for v in linear([h.relu() for h in linear(x, A)], B)])

# %% [markdown] id="cell-04"
# ## Your turn: `GPT` (5 points)
#
# `GPT(vocab, width, context, seed=7)` with:
# - the sizes kept as attributes `vocab`, `width` and `context` (step 5 uses them);
# - `weights`: a dict of the nine matrices (lists of rows of `Value`s) named as in the table, and
#   `parameters`: all their `Value`s in one list (the same objects);
# - `forward(ids)`: a list of rows of `Value`s, one row of `vocab` logits per position (refuse an empty
#   list or more than `context` ids with a `ValueError`);
# - `state()`: the weights as plain numbers, `{name: rows}`, and `load(state)`, which writes such numbers
#   into the `.data` of the model's existing `Value`s, so `parameters` stays the same objects (and refuses
#   a state of another shape with a `ValueError` before changing anything).
#
# The helpers (`shapes`, `add`) belong in the same cell.

# %% id="xslm03-gpt-solution" nbgrader={"grade": false, "grade_id": "xslm03-gpt-solution", "locked": false, "schema_version": 3, "solution": true}
def shapes(vocab, width, context):
    """{name: (out, in)} × 9"""
    ### BEGIN SOLUTION
    return {
        "token": (vocab, width),
        "position": (context, width),
        "query": (width, width),
        "key": (width, width),
        "value": (width, width),
        "project": (width, width),
        "expand": (2 * width, width),
        "contract": (width, 2 * width),
        "head": (vocab, width),
    }
    ### END SOLUTION


def add(a, b):
    """(a + b)_i = a_i + b_i: the residual"""
    ### BEGIN SOLUTION
    return [x + y for x, y in zip(a, b)]
    ### END SOLUTION


INIT_STD = 0.1  # w ~ N(0, 0.1²)


class GPT:
    """GPT(V, d, n, seed) → .weights, .parameters, .forward(ids), .state(), .load(s)"""

    ### BEGIN SOLUTION
    def __init__(self, vocab, width, context, seed=7):
        self.vocab, self.width, self.context = vocab, width, context
        rng = random.Random(seed)
        self.weights = {
            name: [[Value(rng.gauss(0.0, INIT_STD)) for _ in range(cols)] for _ in range(rows)]
            for name, (rows, cols) in shapes(vocab, width, context).items()
        }
        self.parameters = [v for m in self.weights.values() for row in m for v in row]

    def attend(self, q, keys, values):
        """softmax(q · k_j / √width) over the keys so far, then Σ_j weight_j · value_j"""
        scale = math.sqrt(self.width)
        scores = [sum((a * b for a, b in zip(q, k)), Value(0.0)) / scale for k in keys]
        weights = softmax(scores)
        return [sum((p * v[i] for p, v in zip(weights, values)), Value(0.0))
                for i in range(self.width)]  # fmt: skip

    def forward(self, ids):
        """one row of vocab logits per position; position i sees ids[: i + 1] only"""
        if not 0 < len(ids) <= self.context:
            raise ValueError(f"{len(ids)} tokens: give between 1 and {self.context}")
        w, keys, values, logits = self.weights, [], [], []
        for i, token in enumerate(ids):  # keys and values grow as we go: the future is not there
            x = add(w["token"][token], w["position"][i])  # width
            h = norm(x)
            keys.append(linear(h, w["key"]))
            values.append(linear(h, w["value"]))
            x = add(x, linear(self.attend(linear(h, w["query"]), keys, values), w["project"]))
            hidden = [v.relu() for v in linear(norm(x), w["expand"])]  # 2 width
            x = add(x, linear(hidden, w["contract"]))  # width
            logits.append(linear(norm(x), w["head"]))  # vocab
        return logits

    def state(self):
        """the weights as plain numbers: {name: rows}"""
        return {n: [[v.data for v in row] for row in m] for n, m in self.weights.items()}

    def load(self, state):
        """put saved numbers back; a state of another shape is refused before anything changes"""
        mine = {n: [len(m), sorted({len(row) for row in m})] for n, m in self.weights.items()}
        theirs = {n: [len(m), sorted({len(row) for row in m})] for n, m in state.items()}
        if mine != theirs:  # every row's length: a short row must not leave a weight stale
            raise ValueError(f"the state's shapes {theirs} are not this model's {mine}")
        for name, matrix in self.weights.items():
            for row, saved in zip(matrix, state[name]):
                for v, number in zip(row, saved):
                    v.data = float(number)

    ### END SOLUTION


# %% [markdown] id="cell-06"
# Count the parameters, and look at the first position's logits of an untrained model: small numbers
# near 0, because nothing has been learned yet. Token 5's embedding row and position 0's row are the
# numbers in the cell's comments: the same seed, with the weights drawn in the same order, gives the
# same model on every machine.

# %% id="cell-07"
with demo():
    model = GPT(40, 8, 12)
    print(len(model.parameters), "parameters")  # 1248
    print({name: (len(m), len(m[0])) for name, m in model.weights.items()})
    print([round(v.data, 3) for v in model.forward([3, 1, 4])[0][:6]], "...")
    print([round(v.data, 3) for v in model.weights["token"][5]])  # [-0.081, 0.024, 0.043, ...]
    print([round(v.data, 3) for v in model.weights["position"][0]])  # [-0.102, -0.036, ...]

# %% [markdown] id="cell-08"
# The causal property, seen directly, on a small model with a vocabulary of 10 tokens: the logits of
# positions 0 and 1 are the same whether or not a third token follows, and the third position's first
# four logits are $[0.159, 0.011, -0.239, 0.428]$.

# %% id="cell-09"
with demo():
    small = GPT(10, 8, 12)
    short = small.forward([1, 2])
    longer = small.forward([1, 2, 3])
    print(all(a.data == b.data for r, s in zip(short, longer) for a, b in zip(r, s)))  # True
    print([round(v.data, 3) for v in longer[2][:4]], "...")

# %% id="xslm03-save-gpt" nbgrader={"grade": false, "grade_id": "xslm03-save-gpt", "locked": true, "schema_version": 3, "solution": false}
save(GPT)

# %% [markdown] id="cell-11"
# ## Checkpoint 3
#
# The cell below loads `gpt.py` (with your `engine.py`) and checks: the nine shapes and 1,248 parameters,
# logits of a model loaded with known weights, the causal property, `state()` and `load()` (and refusing a
# wrong shape), and gradients through the whole model.

# %% id="xslm03-gpt-checks" nbgrader={"grade": true, "grade_id": "xslm03-gpt-checks", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check("GPT")

# %% id="xslm03-gpt-hidden" nbgrader={"grade": true, "grade_id": "xslm03-gpt-hidden", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from checkpoints.xslm import hidden

hidden("GPT")
### BEGIN HIDDEN TESTS
### END HIDDEN TESTS
