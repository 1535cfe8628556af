"""Issue 4: every catalogued mistake, written as real code, is caught and named;
correct variants never are.
"""

import html

import pytest

from checkpoints.attention.catalogue import BY_NAME, MISTAKES
from checkpoints.attention.steps import CHECKS
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


def test_every_mistake_has_at_least_two_spellings():
    """Each catalogued mistake is recognised in more than one way of writing it."""
    assert set(SPELLINGS) == set(BUGGY)
    assert all(len(more) >= 1 for more in SPELLINGS.values())
