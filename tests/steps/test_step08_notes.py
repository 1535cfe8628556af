"""Step 8: the notes artifact quotes step 2's numbers as the learner's own attention gives them."""

import pytest

from checkpoints.attention.artifacts import NOTES_FILE, SCALE_FILE, check_notes, scale_experiment
from grading.authoring.mistakes import buggy_model
from grading.judge.reference import reference

pytestmark = pytest.mark.step08

IDEAS = "- scaling: {scaled:.4f} with the division, {unscaled:.4f} without\n- order\n- square: 4×\n"


def outputs(folder, attention, quoted=None):
    """02-scale.txt from this attention's experiment; notes quoting quoted's numbers (or its)."""
    scaled, unscaled = scale_experiment(attention)
    (folder / SCALE_FILE).write_text(f"scaled: {scaled!r}\nunscaled: {unscaled!r}\n")
    q_scaled, q_unscaled = scale_experiment(quoted or attention)
    (folder / NOTES_FILE).write_text(IDEAS.format(scaled=q_scaled, unscaled=q_unscaled))
    return str(folder)


def quote_checks(report):
    return [c for c in report.checks if "quotes the" in c.what]


def test_notes_quoting_the_reference_pass_for_the_reference(tmp_path):
    """The reference's numbers, quoted to four decimals, pass every check with its attention."""
    report = check_notes(reference(), outputs(tmp_path, reference().attention))
    assert report.passed, repr(report)


def test_numbers_copied_from_the_reference_fail_with_another_attention(tmp_path):
    """The reference's 02-scale.txt and notes quoting it fail the notes when the learner's
    attention (here: no √d_k) gives other numbers: each quote holds only if its number is the
    learner's own (to 0.005)."""
    learner = buggy_model("attention.no_scaling")
    report = check_notes(learner, outputs(tmp_path, reference().attention))
    want, copied = scale_experiment(learner.attention), scale_experiment(reference().attention)
    same = [abs(w - c) <= 0.005 for w, c in zip(want, copied)]
    assert not all(same)  # the scaled weight: 0.455 with the division, near 1 without
    assert not report.passed
    assert [c.passed for c in quote_checks(report)] == same
    assert all(c.passed for c in report.checks if c not in quote_checks(report))
    assert f"{want[0]:.3f}" in repr(report)


def test_the_learners_own_numbers_pass_even_when_attention_is_wrong(tmp_path):
    """The notes record what the learner measured: a wrong attention's own numbers, in its own
    02-scale.txt and quoted, pass the notes (the √d artifact is what judges the numbers)."""
    learner = buggy_model("attention.no_scaling")
    report = check_notes(learner, outputs(tmp_path, learner.attention))
    assert report.passed, repr(report)


def test_a_missing_or_crashing_attention_earns_no_quotes(tmp_path):
    """With no attention, or one that raises, the quotes fail and say the experiment raised."""

    class Stub:
        @staticmethod
        def attention(Q, K, V, mask=None):
            raise NotImplementedError

    folder = outputs(tmp_path, reference().attention)
    for model in (Stub(), object()):
        report = check_notes(model, folder)
        assert [c.passed for c in quote_checks(report)] == [False, False]
        assert "the experiment raised" in repr(report)


def test_the_artifact_check_asks_for_attention_first(tmp_path, monkeypatch, capsys):
    """In a workspace with only the stub model.py, the notes check asks for save(attention)."""
    from checkpoints import check_artifact, ensure_model

    monkeypatch.chdir(tmp_path)
    ensure_model()
    (tmp_path / "outputs").mkdir()
    outputs(tmp_path / "outputs", reference().attention)
    check_artifact(NOTES_FILE)
    assert "model.py has no attention yet" in capsys.readouterr().out
