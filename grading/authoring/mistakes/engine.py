"""Part two, engine.py (the Value engine): the catalogued mistakes "engine.*" as code.

Each function is the reference's function or method as a learner with that mistake writes
it, under the name of its mistake (@change(name, file, replaces=...)); a function the mistake
adds keeps its own name (@change(name, file, adds=..., before=...)). A method is here
at the left margin; it goes into its class indented. The text stays exactly as written.
"""

from typing import TYPE_CHECKING

from grading.authoring.mistakes.register import change

if TYPE_CHECKING:  # the reference's own names, which the learner's file holds beside the mistake
    from engine import Value, lift, topological_order


# A learner's code, exactly as written: the formatter keeps out of it.
# fmt: off
@change("engine.recursive_backward", "engine.py", replaces="Value.backward")
def recursive_backward(self):
    """v.grad = ∂self/∂v for every v in the graph, summed over every path"""
    order = recursive_order(self, [], set())
    for v in order:  # afresh: a second backward() must not add to the first one's gradients
        v.grad = 0.0
    self.grad = 1.0
    for v in reversed(order):  # outputs before inputs: v.grad is complete when v is reached
        for source, slope in zip(v.inputs, v.slopes):
            source.grad += slope * v.grad


@change("engine.recursive_backward", "engine.py", adds="recursive_order", before="softmax")
def recursive_order(node, order, seen):
    if id(node) not in seen:
        seen.add(id(node))
        for parent in node.inputs:
            recursive_order(parent, order, seen)
        order.append(node)
    return order


@change("engine.overwrite_gradients", "engine.py", replaces="Value.backward")
def overwrite_gradients(self):
    """v.grad = ∂self/∂v for every v in the graph, summed over every path"""
    order = topological_order(self)
    for v in order:  # afresh: a second backward() must not add to the first one's gradients
        v.grad = 0.0
    self.grad = 1.0
    for v in reversed(order):  # outputs before inputs: v.grad is complete when v is reached
        for source, slope in zip(v.inputs, v.slopes):
            source.grad = slope * v.grad


@change("engine.no_zeroing", "engine.py", replaces="Value.backward")
def no_zeroing(self):
    """v.grad = ∂self/∂v for every v in the graph, summed over every path"""
    order = topological_order(self)
    self.grad = 1.0
    for v in reversed(order):  # outputs before inputs: v.grad is complete when v is reached
        for source, slope in zip(v.inputs, v.slopes):
            source.grad += slope * v.grad


@change("engine.softmax_no_shift", "engine.py", replaces="softmax")
def softmax_no_shift(values):
    """softmax(v)_i = exp(v_i - max v) / Σ_j exp(v_j - max v)"""
    top = max(v.data for v in values)  # a plain number: shifting by it changes no weight
    exps = [v.exp() for v in values]
    total = sum(exps[1:], exps[0])
    return [e / total for e in exps]


@change("engine.reflected_sub", "engine.py", replaces="Value.__rsub__")
def reflected_sub(self, other):
    return self - lift(other)


@change("engine.reflected_div", "engine.py", replaces="Value.__rtruediv__")
def reflected_div(self, other):
    return self * lift(other) ** -1.0


@change("engine.wrong_slope", "engine.py", replaces="Value.__pow__")
def wrong_slope(self, k):
    """a^k for a plain number k: ∂/∂a = k a^(k-1)"""
    return Value(self.data**k, (self,), (k * self.data ** k,))


@change("engine.wrong_value", "engine.py", replaces="Value.relu")
def wrong_value(self):
    """max(0, a): ∂/∂a = 1 if a > 0 else 0"""
    return Value(abs(self.data), (self,), (1.0 if self.data > 0 else 0.0,))


@change("engine.linear_transposed", "engine.py", replaces="linear")
def linear_transposed(x, W):
    """linear(x, W)_r = Σ_c W[r][c] · x[c]   (W: out × in)"""
    return [sum((x[r] * W[r][c] for r in range(len(x))), Value(0.0)) for c in range(len(W[0]))]


@change("engine.norm_rms", "engine.py", replaces="norm")
def norm_rms(x, eps=1e-5):
    """norm(x)_i = (x_i - mean) / √(var + eps)"""
    square = sum((v * v for v in x), Value(0.0)) / len(x)
    return [v * (square + eps) ** -0.5 for v in x]


@change("engine.norm_unbiased", "engine.py", replaces="norm")
def norm_unbiased(x, eps=1e-5):
    """norm(x)_i = (x_i - mean) / √(var + eps)"""
    mean = sum(x, Value(0.0)) / len(x)
    var = sum(((v - mean) ** 2 for v in x), Value(0.0)) / (len(x) - 1)
    scale = (var + eps) ** -0.5
    return [(v - mean) * scale for v in x]
