"""engine.py: your autograd engine and layers, saved by part two's notebooks 1 and 2."""

import math


# ── step 1: Value ────────────────────────────────────────
class Value:
    """v.data, v.inputs, v.slopes = ∂v/∂input; v.grad = ∂out/∂v once out.backward() ran"""

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


def lift(x):
    """x ↦ x if isinstance(x, Value) else Value(x)"""
    return x if isinstance(x, Value) else Value(x)


def topological_order(root):
    """[v₁, …, root]: every v after v.inputs (iterative)"""
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


# ── end of step 1: Value ─────────────────────────────────


# ── step 2: softmax ────────────────────────────────────────
def softmax(values):
    """softmax(v)_i = exp(v_i - max v) / Σ_j exp(v_j - max v)"""
    top = max(v.data for v in values)  # a plain number: shifting by it changes no weight
    exps = [(v - top).exp() for v in values]
    total = sum(exps[1:], exps[0])
    return [e / total for e in exps]


# ── end of step 2: softmax ─────────────────────────────────


# ── step 2: linear ────────────────────────────────────────
def linear(x, W):
    """linear(x, W)_r = Σ_c W[r][c] · x[c]   (W: out × in)"""
    return [sum((w * v for w, v in zip(row, x)), Value(0.0)) for row in W]


# ── end of step 2: linear ─────────────────────────────────


# ── step 2: norm ────────────────────────────────────────
def norm(x, eps=1e-5):
    """norm(x)_i = (x_i - mean) / √(var + eps)"""
    mean = sum(x, Value(0.0)) / len(x)
    var = sum(((v - mean) ** 2 for v in x), Value(0.0)) / len(x)
    scale = (var + eps) ** -0.5
    return [(v - mean) * scale for v in x]


# ── end of step 2: norm ─────────────────────────────────


# ── self-test: python3 engine.py ───────────────────────────────────────
if __name__ == "__main__":
    if "Value" not in globals():
        raise SystemExit("engine.py has no Value yet: save it in notebook 1, then run this again")

    def product_and_sum():
        """[L, ∂L/∂a, ∂L/∂b] of L = (a·b + a)² at a = 3, b = 5."""
        a, b = Value(3.0), Value(5.0)
        L = (a * b + a) ** 2
        L.backward()
        return [L.data, a.grad, b.grad]

    checks = [("(a·b + a)², ∂/∂a, ∂/∂b at a = 3, b = 5", product_and_sum, [324.0, 216.0, 108.0])]
    if "softmax" in globals():
        big = lambda: [w.data for w in softmax([Value(1000.0), Value(1000.0)])]  # noqa: E731
        checks.append(("softmax([1000, 1000])", big, [0.5, 0.5]))
    failed = 0
    for what, run, want in checks:
        try:
            got = run()
            held = all(abs(g - w) <= 1e-9 * max(1.0, abs(w)) for g, w in zip(got, want))
        except Exception as err:
            got, held = f"{type(err).__name__}: {err}", False
        failed += not held
        print("✓" if held else "✗", what, "=", got, "" if held else f"(expected {want})")
    raise SystemExit(1 if failed else 0)
# ── end of self-test ───────────────────────────────────────────────────
