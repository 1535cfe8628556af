"""Hints in tiers: why first, then where, the formula only when asked twice;
never the solution unasked.
"""

import json
import os
import re

import pytest

import checkpoints
from checkpoints.attention.claims import CLAIMS
from checkpoints.attention.steps import CHECKS
from checkpoints.hints import HINTS
from grading.authoring.mistakes import BUGGY, buggy_model, buggy_source
from grading.paths import ROOT


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_a_failing_report_shows_no_formula_unasked(name):
    """For every catalogued mistake, the first report shows tier-1 hints only: no formula line."""
    from checkpoints.attention.catalogue import BY_NAME

    report = CHECKS[BY_NAME[name].checkpoint](buggy_model(name))
    text = repr(report)
    assert not report.passed and ("hint: " in text or "raised " in text)
    assert not [h.formula for h in HINTS.values() if h.formula in text]
    assert "closer:" not in text and "formula:" not in text


def test_hint_reveals_one_tier_per_call(tmp_path, monkeypatch, capsys):
    """hint('layer_norm') adds the closer tier;
    a second call adds the formula; a third stays there.
    """
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(checkpoints, "HINT_LEVELS", {})
    (tmp_path / "model.py").write_text(buggy_source("layer_norm.unbiased_variance"))
    checkpoints.hint("layer_norm")
    first = capsys.readouterr().out
    assert "closer: " in first and "formula: " not in first
    checkpoints.hint("layer_norm")
    second = capsys.readouterr().out
    assert HINTS["ln.variance"].formula in second
    checkpoints.hint("layer_norm")
    assert capsys.readouterr().out == second


def test_every_hint_is_used_by_a_check():
    """No hint text is dead: each key names a check in steps.py, and every check has a claim."""
    source = open(
        os.path.join(ROOT, "checkpoints", "attention", "steps.py"), encoding="utf-8"
    ).read()
    used = set(re.findall(r'(?:holds|answer|raises|known_answers)\(\s*"([\w.]+)"', source))
    used |= set(re.findall(r'HINTS\["([\w.]+)"\]', source))  # a check built by hand
    assert used == set(HINTS)
    assert set(CLAIMS) == set(HINTS)


def test_the_stuck_line_is_a_call_a_notebook_can_run():
    """The notebooks import check and save, not hint: the 'stuck?' line names the whole call,
    from part one's package or part two's, and that call runs as written."""
    from checkpoints.xslm import checks as xslm_checks
    from grading.authoring.mistakes.part_two import buggy

    part_one = repr(CHECKS["layer_norm"](buggy_model("layer_norm.unbiased_variance")))
    assert "from checkpoints import hint; hint('layer_norm')" in part_one
    part_two = repr(
        xslm_checks.checkpoint_report("Value", xslm_checks.Local(*buggy("engine.no_zeroing")))
    )
    call = re.search(r"stuck\? (from checkpoints\.xslm import hint); hint\('Value'\)", part_two)
    assert call, part_two
    namespace = {}
    exec(call.group(1), namespace)
    assert callable(namespace["hint"])


def test_no_hint_or_message_holds_a_solution_line():
    """The third tier gives the formula or a worked number, never the code: no locale file (nor
    any other file of the package) holds a line of a master solution."""
    from tests.fixtures.leaks import leaked_lines, solution_lines

    secrets = solution_lines()
    assert len(secrets) > 60
    assert leaked_lines(os.path.join(ROOT, "checkpoints"), secrets) == {}


# Python where maths should be: a library call, a built-in over a list, indexing, an operator or a
# statement of the language, a call with three or more named arguments
PYTHON = re.compile(
    r"\b(math|random|np|torch)\.\w+|\b(len|range|zip|enumerate|sum|dot|max|min)\("
    r"|\w\[[\w+\- ]*\]|\]\[|\*\*|//|\.\w+\(\)|[=!<>]="
    r"|\b(return|def|lambda)\b|\bfor \w+ in\b|\bif\b[^.]*\belse\b"
    r"|\b[a-z_]+\(([a-z_]\w*, ){2,}[a-z_]\w*\)"
)


def fixes_and_formulas(edition):
    """{where: text} of an edition: every mistake's title, explanation and fix, and every hint's
    third tier."""
    with open(
        os.path.join(ROOT, "checkpoints", "locales", f"{edition}.json"), encoding="utf-8"
    ) as f:
        texts = json.load(f)
    found = {}
    for section in ("mistakes", "xslm_mistakes"):
        for key, mistake in texts[section].items():
            found |= {f"{section}.{key}.{field}": mistake[field] for field in mistake}
    for section in ("hints", "xslm_hints"):
        found |= {f"{section}.{k}[2]": tiers[2] for k, tiers in texts[section].items()}
    return found


@pytest.mark.parametrize("edition", ["en", "ko", "ja"])
def test_fixes_and_formulas_are_written_as_maths_not_python(edition):
    """A fix or a third tier says what to compute, in maths or words and a worked number, and
    leaves the Python to the learner: no call, no indexing, no statement of the language."""
    texts = fixes_and_formulas(edition)
    assert len(texts) > 200
    code = {where: m.group(0) for where, t in texts.items() if (m := PYTHON.search(t))}
    assert code == {}


def test_the_python_finder_sees_code_in_a_fix():
    for code in ("divide by math.sqrt(d_k)", "weights[i] = softmax(scores[i])", "use i >= j",
                 "def layer_norm(row, eps=1e-5):", "len(K[0])", "take .log() of it", "d // h",
                 "m = max(xs)", "V[j][c]", "1 if a > 0 else 0",
                 "attention(q_k, k_k, v_k, mask)"):  # fmt: skip
        assert PYTHON.search(code), code
    assert not PYTHON.search("outᵢ = Σⱼ wᵢⱼ vⱼ, in [−1, 1], √(σ² + ε), j ≤ i, e^(−∞) = 0")
    assert not PYTHON.search("MultiHead(N, N, N; h, mask), softmax(1, 2, 3), backward(), N(0, 1)")


def test_the_leak_finder_sees_a_solution_line_in_a_hint(tmp_path):
    """A solution line copied into a hint, re-spaced, is found in the JSON it is stored in."""
    from tests.fixtures.leaks import leaked_lines, solution_lines

    secret = sorted(solution_lines())[0]
    hint = {"hints": {"x": ["why", "where", "first  " + secret.replace(" ", "   ") + "; then"]}}
    (tmp_path / "xx.json").write_text(json.dumps(hint, ensure_ascii=True), encoding="utf-8")
    assert leaked_lines(str(tmp_path), {secret}) == {"xx.json": [secret]}


def test_a_check_that_fails_by_raising_gets_its_hints_in_tiers():
    """softmax without the max shift overflows on the large probe: that ✗ names the exception and
    its line, and each hint level reveals one more tier for it, as for any other ✗."""
    report = CHECKS["softmax"](buggy_model("softmax.no_max_shift"))
    crashed = [c for c in report.checks if not c.passed and "OverflowError" in str(c.got)]
    assert crashed and all(c.hint for c in crashed), repr(report)
    why, where, formula = crashed[0].hint.tiers()
    first, second, third = (repr(report.but(level=level)) for level in range(3))
    assert why in first and where not in first and formula not in first
    assert where in second and formula not in second
    assert formula in third
