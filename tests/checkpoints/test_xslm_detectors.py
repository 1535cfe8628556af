"""Part two's properties (checkpoints/xslm/detectors.py) and the words around them: an engine with
several bugs has each named apart, with the operation it shows in; every catalogued mistake
shows its own property and no other; the hint about gradients leaving the graph comes only when
the values are right."""

import pytest

from checkpoints import i18n
from checkpoints.xslm import detectors
from checkpoints.xslm.checks import (
    BY_NAME,
    MISTAKES,
    VISIBLE,
    Checkpoint,
    Local,
    Mistake,
    checkpoint_report,
    written,
)
from grading.authoring.mistakes import replace_function
from grading.authoring.mistakes.part_two import buggy, buggy_texts, modules, source
from xslm import engine as reference_engine
from xslm import gpt as reference_gpt

pytestmark = pytest.mark.xslm


def found_for(checkpoint, engine, gpt):
    """What the checkpoint's detector reads from these modules' answers (a Found, or None)."""
    c = Checkpoint(checkpoint, Local(engine, gpt))
    return detectors.detect(
        checkpoint, c.answers, c.known, detectors.Course(VISIBLE, written, Mistake)
    )


@pytest.mark.parametrize("name", [m.name for m in MISTAKES])
def test_a_catalogued_mistake_shows_its_own_property_and_no_other(name):
    """Where a detector reads the mistake's checkpoint, it finds the mistake's name among those
    it knows, and nothing else."""
    found = found_for(BY_NAME[name].checkpoint, *buggy(name))
    if found is not None:
        assert set(found.names) == {name} & found.knows, found.names


@pytest.mark.parametrize("checkpoint", sorted(detectors.DETECTORS))
def test_the_reference_engine_shows_no_property(checkpoint):
    """The reference's answers read as the contract."""
    found = found_for(checkpoint, reference_engine, reference_gpt)
    assert found is not None and found.names == ()


# micrograd's order, written as a recursion, and a backward that never starts afresh
RECURSIVE_UNZEROED = """
def backward(self):
    order, seen = [], set()

    def visit(v):
        if id(v) not in seen:
            seen.add(id(v))
            for parent in v.inputs:
                visit(parent)
            order.append(v)

    visit(self)
    self.grad = 1.0
    for v in reversed(order):
        for source, slope in zip(v.inputs, v.slopes):
            source.grad += slope * v.grad
"""


def test_an_engine_with_three_bugs_has_each_named_apart_with_its_operation():
    """A recursive backward that never zeroes, with __rsub__ the wrong way round: three names,
    each with its own fix, and the reflected subtraction said as the learner writes it."""
    texts = buggy_texts("engine.reflected_sub")
    texts["engine.py"] = replace_function(texts["engine.py"], "Value.backward", RECURSIVE_UNZEROED)
    report = checkpoint_report("Value", Local(*modules(texts, "three_bugs")))
    assert not report.passed
    found = report.diagnosis[0]
    assert set(found.names) == {
        "engine.recursive_backward", "engine.no_zeroing", "engine.reflected_sub",
    }  # fmt: skip
    assert "3.0 - a" in found.title
    for name in found.names:
        assert BY_NAME[name].hint in found.hint


def hint_of(report, claim):
    """The first tier of the hint of a report's check with this claim's words."""
    words = i18n.lookup("xslm_claims", claim).format(layer=report.name)
    (check,) = [c for c in report.checks if c.what == words]
    return check.hint.why if check.hint else None


def test_the_left_the_graph_hint_comes_only_when_the_values_are_right():
    """linear by W's columns gets wrong values: its gradients' hint sends the learner to the
    values. A softmax whose sum leaves the graph (.data) gets right values and wrong gradients:
    its hint is the one about the graph."""
    values_first = i18n.lookup("xslm_hints", "values_first")[0]
    left_graph = i18n.lookup("xslm_hints", "layer_grads")[0]
    transposed = checkpoint_report("linear", Local(*buggy("engine.linear_transposed")))
    assert hint_of(transposed, "layer_grads") == values_first

    detached = replace_function(
        source("engine.py"),
        "softmax",
        "def softmax(values):\n"
        "    top = max(v.data for v in values)\n"
        "    exps = [(v - top).exp() for v in values]\n"
        "    total = sum(e.data for e in exps)\n"
        "    return [e / total for e in exps]\n",
    )
    engine, gpt = modules({"engine.py": detached, "gpt.py": source("gpt.py")}, "detached")
    report = checkpoint_report("softmax", Local(engine, gpt))
    assert hint_of(report, "layer_values") is None  # the values hold
    assert hint_of(report, "layer_grads") == left_graph


def test_a_gpt_without_the_norm_before_its_mlp_is_sent_to_its_logits():
    """The GPT a learner wrote with no norm before the MLP: its logits are wrong, so the
    gradients' hint is the one about the values (not 'the logits are right but ...')."""
    normed, plain = 'linear(norm(x), w["expand"])', 'linear(x, w["expand"])'
    text = source("gpt.py")
    assert text.count(normed) == 1
    texts = {"engine.py": source("engine.py"), "gpt.py": text.replace(normed, plain)}
    report = checkpoint_report("GPT", Local(*modules(texts, "no_mlp_norm")))
    assert hint_of(report, "gpt_logits") is not None  # the logits fail
    assert hint_of(report, "gpt_gradients") == i18n.lookup("xslm_hints", "values_first")[0]
