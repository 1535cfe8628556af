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
# # Part two · Step 1 · A number that remembers where it came from
#
# Part one built a transformer block with no weights: nothing in it could learn. To learn, a model
# needs to know, for every weight, how the error changes when that weight moves a little: the
# **gradient**. Working it out by hand for a GPT is hopeless, so in this step you write a tiny
# **autograd engine**: a `Value` that holds one number, remembers which numbers it was computed
# from, and, when asked, sends gradients back through everything that made it.
#
# By the end of this notebook `engine.py` holds `Value`, with `+ - * / **`, `exp`, `log`, `relu`
# and `backward()`. Everything after this (the layers, the GPT, training) is built from it.

# %% id="xslm01-setup" nbgrader={"grade": false, "grade_id": "xslm01-setup", "locked": true, "schema_version": 3, "solution": false}
import math

from checkpoints.xslm import check, demo, ensure_files, save

ensure_files()

# %% [markdown] id="cell-02"
# ## The chain rule, one step at a time
#
# Take $c = a \cdot b$. If $a$ moves by a tiny $\varepsilon$, $c$ moves by $b\,\varepsilon$: the
# **local slope** $\partial c / \partial a$ is $b$. Now suppose some final number $L$ depends on $c$,
# and we already know $\partial L / \partial c$. Then the chain rule says
#
# $$\frac{\partial L}{\partial a} = \frac{\partial L}{\partial c} \cdot \frac{\partial c}{\partial a}.$$
#
# So each operation only has to know its own local slopes. If every number keeps its inputs and those
# slopes, one walk from $L$ back to the start multiplies them together along every path. Check the
# idea with plain floats and a small nudge, on $L = c^2$ with $c = a \cdot b + a$. There $a$ reaches
# $c$ twice, through the product and directly, so $\partial c / \partial a = b + 1$: the slopes of the two
# paths add up (the first rule below).

# %% id="cell-03"
a, b = 3.0, 5.0
eps = 1e-6
L = lambda a, b: (a * b + a) ** 2  # noqa: E731
print("nudging a:", (L(a + eps, b) - L(a - eps, b)) / (2 * eps))
print("chain rule:", 2 * (a * b + a) * (b + 1))  # dL/dc · dc/da, with c = a·b + a


# %% [markdown] id="cell-04"
# ## Two rules that trip everyone up
#
# 1. **A number used twice gets both paths.** In $c = a \cdot b + a$, the value $a$ reaches $c$ twice:
#    through the product and directly. Its gradient is the *sum* of the two: $b + 1$. Writing
#    `grad = ...` instead of `grad += ...` keeps only one path.
# 2. **No recursion.** A recursive walk goes as deep as the graph's longest chain of operations. One
#    training step of the tiny GPT builds about 30,000 numbers but is only about 200 deep; a context
#    of several hundred tokens, many stacked blocks, or the long chain below go past Python's limit of
#    about 1,000 nested calls, and an engine should not depend on the model staying small. Order the graph with an
#    explicit stack so that every node comes after its inputs, then walk that order backwards.
#
# `backward()` also sets every gradient of the graph afresh (to 0, and 1 for the output itself) before
# it adds anything, so calling it again after a training step never counts old gradients twice.

# %% [markdown] id="value-and-order"
# ## What a `Value` holds, and the order `backward()` walks
#
# `Value(data, inputs=(), slopes=())` makes one number of the graph, which holds:
#
# - `data`: the number itself, as a float;
# - `inputs`: the `Value`s it was computed from (none for a number you typed in);
# - `slopes`: one local slope for each input, $\partial(\text{this}) / \partial(\text{input})$, fixed
#   when it was computed;
# - `grad`: $0$ at first; `backward()` fills it in.
#
# For `a = Value(2.0)` and `b = Value(5.0)`, the product `c = a * b` holds `data` $10$, `inputs`
# $(a, b)$ and `slopes` $(5, 2)$, because $\partial c / \partial a = b$ and $\partial c / \partial b = a$:
#
# ```
#   a = 2 ──(slope 5)──┐
#                      ├──▶ c = a·b = 10
#   b = 5 ──(slope 2)──┘
# ```
#
# A **topological order** lists every node after its inputs: here $a, b, c$. `backward()` walks it
# from the end: $c$ gets gradient $1$, then each of its inputs receives $c$'s gradient times its slope,
# so $a$ gets $5$ and $b$ gets $2$. Every node that uses $v$ comes after $v$ in the order, so when the
# backward walk reaches $v$, all of them have already added to `v.grad`: its gradient is complete.
#
# The order is built with a stack you manage yourself, not with calls that nest. A node stays on the
# stack until all its inputs are placed; then it is placed after them. It pushes one input not yet
# placed at a time:
#
# | step | stack (top on the right) | order so far |
# |---|---|---|
# | 1 | $c$ | |
# | 2 | $c, a$ | |
# | 3 | $c$ | $a$ |
# | 4 | $c, b$ | $a$ |
# | 5 | $c$ | $a, b$ |
# | 6 | | $a, b, c$ |
#
# The stack grows with the graph's depth, but as a list: a chain of 30,000 operations is a list of
# 30,000 entries, where 30,000 nested calls would pass Python's limit of about 1,000.

# %% [markdown] id="cell-05"
# ## Your turn: `Value` (5 points)
#
# Write the class in the cell below. Each operation returns a new `Value` with its inputs and the local
# slope for each input (`+`: 1 and 1; `·`: the other factor; `a**k`: $k a^{k-1}$; `exp`: $e^a$;
# `log`: $1/a$; `relu`: 1 where $a > 0$, else 0). Subtraction and division are written with the others
# ($a - b = a + (-1)b$, $a / b = a \cdot b^{-1}$), and plain numbers on either side become constants.
#
# Python turns `v + w` into the call `v.__add__(w)`, `v * w` into `v.__mul__(w)`, and so on. For
# `3 + v` it first asks the number, `(3).__add__(v)`, which does not know a `Value` and gives up; Python
# then calls `v.__radd__(3)`, the "reflected" add of the right-hand side. So `3 + v`, `3 - v`, `3 * v`
# and `3 / v` reach `__radd__`, `__rsub__`, `__rmul__` and `__rtruediv__`, and `-v` reaches `__neg__`.
# The helpers `lift` and `topological_order` belong in the same cell: `save(Value)` copies the whole
# cell into `engine.py`.

# %% id="xslm01-value-solution" nbgrader={"grade": false, "grade_id": "xslm01-value-solution", "locked": false, "schema_version": 3, "solution": true}
class Value:
    """v.data, v.inputs, v.slopes = ∂v/∂input; v.grad = ∂out/∂v once out.backward() ran"""

    ### BEGIN SOLUTION
    __slots__ = ("data", "grad", "inputs", "slopes")

    def __init__(self, data, inputs=(), slopes=()):
        self.data = float(data)
        self.grad = 0.0
        self.inputs = inputs  # the Values this one was computed from
        self.slopes = slopes  # ∂this/∂input for each, fixed when this was computed

    def __repr__(self):
        return f"Value({self.data!r}, grad={self.grad!r})"

    def __add__(self, other):
        """a + b: ∂/∂a = 1, ∂/∂b = 1"""
        other = lift(other)
        return Value(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        """a · b: ∂/∂a = b, ∂/∂b = a"""
        other = lift(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, k):
        """a^k for a plain number k: ∂/∂a = k a^(k-1)"""
        return Value(self.data**k, (self,), (k * self.data ** (k - 1),))

    def exp(self):
        """e^a: ∂/∂a = e^a"""
        e = math.exp(self.data)
        return Value(e, (self,), (e,))

    def log(self):
        """ln a: ∂/∂a = 1/a"""
        return Value(math.log(self.data), (self,), (1.0 / self.data,))

    def relu(self):
        """max(0, a): ∂/∂a = 1 if a > 0 else 0"""
        return Value(max(0.0, self.data), (self,), (1.0 if self.data > 0 else 0.0,))

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-lift(other))

    def __rsub__(self, other):
        return lift(other) - self

    def __truediv__(self, other):
        return self * lift(other) ** -1.0

    def __rtruediv__(self, other):
        return lift(other) * self**-1.0

    __radd__ = __add__
    __rmul__ = __mul__

    def backward(self):
        """v.grad = ∂self/∂v for every v in the graph, summed over every path"""
        order = topological_order(self)
        for v in order:  # afresh: a second backward() must not add to the first one's gradients
            v.grad = 0.0
        self.grad = 1.0
        for v in reversed(order):  # outputs before inputs: v.grad is complete when v is reached
            for source, slope in zip(v.inputs, v.slopes):
                source.grad += slope * v.grad

    ### END SOLUTION


def lift(x):
    """x ↦ x if isinstance(x, Value) else Value(x)"""
    ### BEGIN SOLUTION
    return x if isinstance(x, Value) else Value(x)
    ### END SOLUTION


def topological_order(root):
    """[v₁, …, root]: every v after v.inputs (iterative)"""
    ### BEGIN SOLUTION
    order, done, seen = [], set(), {id(root)}
    stack = [(root, iter(root.inputs))]
    while stack:
        node, pending = stack[-1]
        nxt = next((v for v in pending if id(v) not in seen), None)
        if nxt is None:  # every input of node is placed: node can follow them
            stack.pop()
            if id(node) not in done:
                done.add(id(node))
                order.append(node)
        else:
            seen.add(id(nxt))
            stack.append((nxt, iter(nxt.inputs)))
    return order
    ### END SOLUTION


# %% [markdown] id="cell-07"
# Try it on the example from above. `a` is used twice, so its gradient should be
# $2(ab + a)(b + 1) = 216$, the number the nudge gave (and $b$'s is $2(ab + a)\,a = 108$):

# %% id="cell-08"
with demo():
    a, b = Value(3.0), Value(5.0)
    L = (a * b + a) ** 2
    L.backward()
    print(L.data, a.grad, b.grad)  # 324.0 216.0 108.0

# %% [markdown] id="cell-09"
# And a chain far deeper than Python's recursion limit (30,000 operations in a row):

# %% id="cell-10"
with demo():
    x = Value(1.0)
    y = x
    for _ in range(30_000):
        y = y * 1.0001
    y.backward()
    print(f"{y.data:.4f} {x.grad:.4f}")  # both 1.0001 ** 30000, about 20.08

# %% id="xslm01-save-value" nbgrader={"grade": false, "grade_id": "xslm01-save-value", "locked": true, "schema_version": 3, "solution": false}
save(Value)

# %% [markdown] id="cell-12"
# ## Checkpoint 1
#
# The cell below loads `engine.py` fresh from disk and checks your `Value`: every operation's value and
# gradient on known inputs, a number used twice, `backward()` called twice, and a chain of 20,000
# operations. If your gradients look like a classic mistake, the checkpoint names it.

# %% id="xslm01-value-checks" nbgrader={"grade": true, "grade_id": "xslm01-value-checks", "locked": true, "points": 2, "schema_version": 3, "solution": false}
check("Value")

# %% id="xslm01-value-hidden" nbgrader={"grade": true, "grade_id": "xslm01-value-hidden", "locked": true, "points": 3, "schema_version": 3, "solution": false}
from checkpoints.xslm import hidden

hidden("Value")
### BEGIN HIDDEN TESTS
### END HIDDEN TESTS
