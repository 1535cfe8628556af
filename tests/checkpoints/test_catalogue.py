"""Issue 4: every catalogued mistake, written as real code, is caught and named;
correct variants never are.
"""

import html

import pytest

from checkpoints.attention.catalogue import BY_NAME, MISTAKES, PAIRS, pair_name
from checkpoints.attention.steps import CHECKS
from checkpoints.compare import first_difference
from grading.authoring.fingerprints import build, render
from grading.authoring.mistakes import (
    BUGGY,
    SPELLINGS,
    buggy_model,
    buggy_source,
    check_catalogue_complete,
    replace_function,
)
from grading.judge import attention_hidden as hidden
from grading.judge.attention import CELLS, judge_folder
from grading.judge.isolation import underlay
from grading.judge.reference import load_source_module, reference, reference_source
from tests.fixtures.alternatives import ALTERNATIVES


def test_catalogue_has_code_for_every_entry_and_at_least_25():
    """Each catalogue entry has its buggy implementation, and the catalogue is large enough."""
    check_catalogue_complete()
    assert len(MISTAKES) >= 25
    assert len({m.name for m in MISTAKES}) == len(MISTAKES)


def test_committed_fingerprints_are_current():
    """fingerprints.json is exactly what the reference and the mistakes produce now."""
    from checkpoints.attention.diagnose import FINGERPRINTS_FILE

    with open(FINGERPRINTS_FILE, encoding="utf-8") as f:
        assert f.read() == render(build()), "run: python -m grading fingerprints"


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_visible_check_fails_and_names_the_mistake(name):
    """The checkpoint that owns a mistake fails on it and names it first."""
    mistake = BY_NAME[name]
    report = CHECKS[mistake.checkpoint](buggy_model(name))
    assert not report.passed
    assert report.diagnosis and report.diagnosis[0].name == name, [
        m.name for m in report.diagnosis or []
    ]
    assert f"looks like: {mistake.title}" in repr(report)
    assert html.escape(mistake.hint) not in report._repr_html_()  # the fix waits for hint(...)
    report = report.but(level=1)
    assert html.escape(mistake.hint) in report._repr_html_()


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_hidden_check_fails_and_records_the_mistake(name, tmp_path):
    """The judge's hidden check of a buggy model.py (through the sandboxed worker)
    fails and names it.
    """
    (tmp_path / "model.py").write_text(buggy_source(name))
    checkpoint = BY_NAME[name].checkpoint
    grade_id = next(
        g for g, (kind, what) in CELLS.items() if kind == "hidden" and what == checkpoint
    )
    verdicts, _ = judge_folder(str(tmp_path), [grade_id])
    assert not verdicts[grade_id].passed
    assert f"looks like: {BY_NAME[name].title}" in verdicts[grade_id].text
    assert verdicts[grade_id].record["diagnosis"][0] == name


def alternative_model(name):
    function, code = ALTERNATIVES[name]
    return load_source_module(
        replace_function(reference_source(), function, code), "alt", f"<{name}>"
    )


def test_at_least_ten_alternatives():
    """The list of correct alternative implementations is long enough to mean something."""
    assert len(ALTERNATIVES) >= 10


@pytest.mark.parametrize("name", sorted(ALTERNATIVES))
def test_correct_alternatives_pass_every_check_without_diagnosis(name):
    """A correct but differently written function passes every visible and hidden check."""
    model = alternative_model(name)
    for checkpoint, check in CHECKS.items():
        report = check(model)
        assert report.passed, repr(report)
        assert not report.diagnosis
        total, failures = hidden.judge(checkpoint, underlay(alternative_model(name), checkpoint))
        assert failures == [], failures


def test_no_mistake_matches_the_reference():
    """The reference itself passes every checkpoint, so nothing is diagnosed on it."""
    for check in CHECKS.values():
        report = check(reference())
        assert report.passed and not report.diagnosis, repr(report)


def test_unknown_mistake_reports_first_difference_honestly():
    """A wrong answer that matches no catalogue entry says so and points at the first difference."""
    code = """
def layer_norm(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((x - mean) ** 2 for x in row) / len(row)
    return [(x - mean) / math.sqrt(var + eps) * 1.5 for x in row]
"""
    model = load_source_module(
        replace_function(reference_source(), "layer_norm", code), "odd", "<odd>"
    )
    report = CHECKS["layer_norm"](model)
    text = repr(report)
    assert not report.passed and not report.diagnosis
    assert "no known mistake matches" in text and "first difference: item 0" in text


@pytest.mark.parametrize(
    "name,spelling", [(n, k + 1) for n, more in sorted(SPELLINGS.items()) for k in range(len(more))]
)
def test_other_spellings_are_named_too(name, spelling):
    """A mistake written another way (loops, another helper, another name) is still named first."""
    mistake = BY_NAME[name]
    report = CHECKS[mistake.checkpoint](buggy_model(name, spelling))
    assert not report.passed
    assert report.diagnosis and report.diagnosis[0].name == name, [
        m.name for m in report.diagnosis or []
    ]


def test_a_mask_of_ones_and_zeros_is_accepted():
    """causal_mask returning 1/0 integers works as a mask in Python,
    so the checkpoint accepts it.
    """
    source = replace_function(
        reference_source(),
        "causal_mask",
        "def causal_mask(n):\n"
        "    return [[1 if i >= j else 0 for j in range(n)] for i in range(n)]\n",
    )
    report = CHECKS["causal_mask"](load_source_module(source, "int_mask", "model.py"))
    assert report.passed, repr(report)


def test_a_transposed_mask_of_ones_and_zeros_fails_and_is_named():
    """1 and 0 stand for True and False each for its own: a 1 where False belongs is a
    difference (it once matched anything), in the visible check and in the hidden one."""
    assert first_difference(1, True) is None and first_difference(0, False) is None
    assert first_difference(0, True) is not None and first_difference(1, False) is not None
    source = replace_function(
        reference_source(),
        "causal_mask",
        "def causal_mask(n):\n"
        "    return [[1 if j >= i else 0 for j in range(n)] for i in range(n)]\n",
    )
    model = load_source_module(source, "upper_int_mask", "model.py")
    report = CHECKS["causal_mask"](model)
    assert not report.passed
    assert [m.name for m in report.diagnosis][:1] == ["mask.transposed"]
    total, failures = hidden.judge("causal_mask", model)
    assert failures, total


@pytest.mark.parametrize("pair", PAIRS, ids=lambda pair: pair_name(*pair))
def test_a_stored_pair_is_named_as_both_mistakes(pair):
    """Code with two catalogued mistakes that change the same answers (catalogue.PAIRS): no single
    entry fits, and the report names both, each with its fix on request."""
    first, second = BY_NAME[pair[0]], BY_NAME[pair[1]]
    report = CHECKS[first.checkpoint](buggy_model(pair_name(*pair)))
    assert not report.passed
    assert [m.names for m in report.diagnosis] == [pair]
    text = repr(report)
    assert "looks like: two mistakes at once" in text
    assert first.title in text and second.title in text
    shown = report.but(level=1)._repr_html_()
    assert html.escape(first.hint) in shown and html.escape(second.hint) in shown


@pytest.mark.parametrize("pair", PAIRS, ids=lambda pair: pair_name(*pair))
def test_the_hidden_check_records_both_mistakes_of_a_pair(pair, tmp_path):
    """The judge's hidden check (sandboxed worker) fails a stored pair and records both names."""
    (tmp_path / "model.py").write_text(buggy_source(pair_name(*pair)))
    checkpoint = BY_NAME[pair[0]].checkpoint
    grade_id = next(
        g for g, (kind, what) in CELLS.items() if kind == "hidden" and what == checkpoint
    )
    verdicts, _ = judge_folder(str(tmp_path), [grade_id])
    assert not verdicts[grade_id].passed
    assert "looks like: two mistakes at once" in verdicts[grade_id].text
    assert verdicts[grade_id].record["diagnosis"] == list(pair)


def test_every_mistake_has_at_least_two_spellings():
    """Each catalogued mistake is recognised in more than one way of writing it."""
    assert set(SPELLINGS) == set(BUGGY)
    assert all(len(more) >= 1 for more in SPELLINGS.values())


def named(function, code):
    """The names the owning checkpoint gives a model.py with this one function rewritten."""
    model = load_source_module(replace_function(reference_source(), function, code), "m", "<m>")
    report = CHECKS[function](model)
    assert not report.passed
    return [m.name for m in report.diagnosis]


def test_a_guard_on_the_edge_case_does_not_hide_the_mistake():
    """eps left out, but a constant row guarded (0s instead of a division by zero): the answers
    differ from no_eps's only on that edge case, so it is still named."""
    code = (
        "def layer_norm(row, eps=1e-5):\n"
        "    mean = sum(row) / len(row)\n"
        "    std = math.sqrt(sum((x - mean) ** 2 for x in row) / len(row))\n"
        "    return [(x - mean) / std if std else 0.0 for x in row]\n"
    )
    assert named("layer_norm", code)[:1] == ["layer_norm.no_eps"]


def test_any_huge_negative_number_reads_as_minus_infinity_in_a_mask():
    """An additive mask with -1e30 where the catalogue's has -inf is the same mistake."""
    code = (
        "def causal_mask(n):\n"
        "    return [[0 if j <= i else -1e30 for j in range(n)] for i in range(n)]\n"
    )
    assert named("causal_mask", code)[:1] == ["mask.additive"]


def test_a_missing_value_error_is_named_whatever_the_split_then_does():
    """No check of d mod h: whether the split then crashes another way or returns a matrix, the
    missing ValueError is named."""
    crashes = (
        "def multi_head(Q, K, V, h, mask=None):\n"
        "    w = len(Q[0]) // h\n"
        "    heads = [attention([r[k*w:(k+1)*w] for r in Q], [r[k*w:(k+1)*w] for r in K],\n"
        "                       [r[k*w:(k+1)*w] for r in V], mask)[0] for k in range(h)]\n"
        "    assert sum(len(hd[0]) for hd in heads) == len(Q[0])\n"
        "    return [[x for hd in heads for x in hd[i]] for i in range(len(Q))]\n"
    )
    assert named("multi_head", crashes)[:1] == ["multi_head.no_value_error"]
