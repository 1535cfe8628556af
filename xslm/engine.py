"""A scalar autograd engine and the three layers a tiny GPT needs, in plain Python and math.

Reference for part two (issue 12): the learner's engine.py is checked against this one.

    x = Value(3.0); y = x * x + 2 * x; y.backward(); x.grad  ->  8.0
"""

import math


class Value:
    """One number, the graph that made it, and d(output)/d(this) once backward() has run."""

    __slots__ = ("data", "grad", "inputs", "slopes")

    def __init__(self, data, inputs=(), slopes=()):
        self.data = float(data)
        self.grad = 0.0
        self.inputs = inputs  # the Values this one was computed from
        self.slopes = slopes  # ∂this/∂input for each of them, fixed when this was computed

    def __repr__(self):
        return f"Value({self.data!r}, grad={self.grad!r})"

    def __add__(self, other):
        """a + b: ∂/∂a = 1, ∂/∂b = 1."""
        other = lift(other)
        return Value(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        """a · b: ∂/∂a = b, ∂/∂b = a."""
        other = lift(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, k):
        """a^k for a plain number k: ∂/∂a = k a^(k-1)."""
        return Value(self.data**k, (self,), (k * self.data ** (k - 1),))

    def exp(self):
        """e^a: ∂/∂a = e^a."""
        e = math.exp(self.data)
        return Value(e, (self,), (e,))

    def log(self):
        """ln a: ∂/∂a = 1/a."""
        return Value(math.log(self.data), (self,), (1.0 / self.data,))

    def relu(self):
        """max(0, a): ∂/∂a = 1 where a > 0, else 0."""
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
        """d(self)/d(v) into v.grad for every v self depends on; a v used twice gets both paths.

        Iterative (a training step's graph has tens of thousands of nodes, far past Python's
        recursion limit): order the graph so every node comes after its inputs, then walk it
        backwards once.
        """
        order = topological_order(self)
        for v in order:
            v.grad = 0.0
        self.grad = 1.0
        for v in reversed(order):
            for source, slope in zip(v.inputs, v.slopes):
                source.grad += slope * v.grad


def lift(x):
    """x as a Value (a plain number becomes a constant with no inputs)."""
    return x if isinstance(x, Value) else Value(x)


def topological_order(root):
    """Every Value root depends on, each after all of its inputs (explicit stack, no recursion)."""
    order, done, stack = [], set(), [(root, iter(root.inputs))]
    seen = {id(root)}
    while stack:
        node, pending = stack[-1]
        nxt = next((v for v in pending if id(v) not in seen), None)
        if nxt is None:
            stack.pop()
            if id(node) not in done:
                done.add(id(node))
                order.append(node)
        else:
            seen.add(id(nxt))
            stack.append((nxt, iter(nxt.inputs)))
    return order


def softmax(values):
    """e^(v_i - max v) / Σ_j e^(v_j - max v): the max shift keeps exp from overflowing."""
    top = max(v.data for v in values)
    exps = [(v - top).exp() for v in values]
    total = sum(exps[1:], exps[0])
    return [e / total for e in exps]


def linear(x, W):
    """W x for W stored as (out × in) rows: one output per row."""
    return [sum((w * v for w, v in zip(row, x)), Value(0.0)) for row in W]


def norm(x, eps=1e-5):
    """(x - mean) / √(var + eps), no gain and no bias."""
    mean = sum(x, Value(0.0)) / len(x)
    var = sum(((v - mean) ** 2 for v in x), Value(0.0)) / len(x)
    scale = (var + eps) ** -0.5
    return [(v - mean) * scale for v in x]
