"""Step 2: model.attention against the independent implementation,
the contract and the checkpoints.
"""

import math

import pytest

import model
from tests.fixtures import independent
from tests.fixtures.helpers import (
    SEEDS,
    assert_checkpoint_passes,
    assert_close,
    assert_hidden_judge_passes,
    integer_matrix,
    matrix,
    rng,
    shape,
)

pytestmark = pytest.mark.step02


def qkv(seed):
    """Q n_q × d, K n_k × d, V n_k × d_v; on odd seeds Q and K are whole numbers of size ~100."""
    r = rng("attention", seed)
    n_q, n_k, d, d_v = r.randint(1, 8), r.randint(1, 8), r.randint(8, 64), r.randint(1, 16)
    make = integer_matrix if seed % 2 else matrix
    return make(r, n_q, d), make(r, n_k, d), matrix(r, n_k, d_v)


@pytest.mark.parametrize("seed", SEEDS)
def test_matches_independent(seed):
    """Seeded (out, weights) agree with the loop-and-transpose attention to 1e-12."""
    Q, K, V = qkv(seed)
    out, weights = model.attention(Q, K, V)
    want_out, want_weights = independent.attention(Q, K, V)
    assert_close(weights, want_weights)
    assert_close(out, want_out)


@pytest.mark.parametrize("seed", SEEDS)
def test_shapes_and_row_sums(seed):
    """out is n_q × d_v, weights n_q × n_k, and every weights row sums to 1."""
    Q, K, V = qkv(seed)
    out, weights = model.attention(Q, K, V)
    assert shape(out) == (len(Q), len(V[0])) and shape(weights) == (len(Q), len(K))
    assert_close([sum(row) for row in weights], [1.0] * len(Q))


def test_scores_divide_by_sqrt_key_width():
    """A known answer: scores 4/√4 = 2 and 0 give weights softmax([2, 0])."""
    out, weights = model.attention([[1.0] * 4], [[1.0] * 4, [0.0] * 4], [[1.0], [0.0]])
    top = 1.0 / (1.0 + math.exp(-2.0))
    assert_close(weights, [[top, 1.0 - top]])
    assert_close(out, [[top]])


def test_checkpoint_passes():
    """The visible attention checkpoint holds for the reference."""
    assert_checkpoint_passes("attention", model)


def test_hidden_judge_passes():
    """The hidden attention judge finds no failing case when judging the reference."""
    assert_hidden_judge_passes("attention", model)


def test_artifact_check_says_when_attention_was_never_saved(tmp_path, monkeypatch, capsys):
    """With only the stub model.py, the √d artifact check asks for save(attention),
    not an AttributeError (one line; raised while nbgrader validates).
    """
    from checkpoints import CheckpointFailed, check_artifact, ensure_model

    monkeypatch.chdir(tmp_path)
    ensure_model()
    check_artifact("02-scale.txt")
    assert "✗ model.py has no attention yet: run the cell with save(attention)" in (
        capsys.readouterr().out
    )
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    with pytest.raises(
        CheckpointFailed, match=r"no attention yet: run the cell with save\(attention\)"
    ):
        check_artifact("02-scale.txt")


def test_a_crash_is_reported_with_its_line_and_input_then_the_checks_hint(tmp_path):
    """An IndexError inside attention: the report names it, the line of model.py and the call,
    then the check's first hint tier, as for any ✗ (the closer tiers only when asked)."""
    from checkpoints.attention.modelfile import load_model
    from checkpoints.attention.steps import CHECKS
    from grading.judge.reference import reference_source

    source = reference_source().replace(
        "    scale = math.sqrt(len(K[0]))", "    scale = math.sqrt(len(K[0]))\n    Q[99]"
    )
    (tmp_path / "model.py").write_text(source)
    line = source.splitlines().index("    Q[99]") + 1
    report = CHECKS["attention"](load_model(str(tmp_path / "model.py")))
    first = "\n".join(report.checks[0].lines())
    assert (
        "raised IndexError: list index out of range at model.py"
        f" line {line}, in attention(3×4, 5×4, 5×6)" in first
    )
    hint = report.checks[0].hint.tiers()
    assert first.index(f"line {line}") < first.index(f"hint: {hint[0]}")
    assert hint[1] not in first and hint[2] not in first
    from grading.judge.attention import (
        judge_folder,  # the same through the judge's sandboxed worker
    )

    verdicts, _ = judge_folder(str(tmp_path), ["step02-attention-checks"])
    assert (
        f"at model.py line {line}, in attention(3×4, 5×4, 5×6)"
        in verdicts["step02-attention-checks"].text
    )


def test_a_failing_softmax_is_named_first_not_blamed_on_attention(tmp_path, monkeypatch, capsys):
    """With a wrong softmax, the attention checkpoint says to fix step 1 first
    and names no attention mistake.
    """
    from checkpoints import check
    from grading.authoring.mistakes import buggy_source

    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text(buggy_source("softmax.divide_by_max"))
    check("attention")
    out = capsys.readouterr().out
    assert "✗ attention: " in out and "The notebook goes on" in out
    assert "first: your softmax fails its own checkpoint (step 1)" in out
    assert "looks like" not in out


def test_scale_artifact_says_when_attention_does_not_divide(tmp_path):
    """With no √d_k division the two numbers are nearly equal, and the check says why."""
    from checkpoints.attention.artifacts import SCALE_FILE, check_scale, scale_experiment
    from grading.authoring.mistakes import buggy_model

    learner = buggy_model("attention.no_scaling")
    scaled, unscaled = scale_experiment(learner.attention)
    (tmp_path / SCALE_FILE).write_text(f"scaled: {scaled!r}\nunscaled: {unscaled!r}\n")
    report = check_scale(learner, str(tmp_path))
    assert not report.passed
    assert "does not seem to divide the scores by √d_k" in repr(report)
