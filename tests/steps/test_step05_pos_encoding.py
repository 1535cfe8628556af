"""Step 5: model.pos_encoding against the independent implementation,
the contract and the checkpoints.
"""

import pytest

import model
from tests.fixtures import independent
from tests.fixtures.helpers import (
    SEEDS,
    assert_checkpoint_passes,
    assert_close,
    assert_hidden_judge_passes,
    rng,
    shape,
)

pytestmark = pytest.mark.step05


def sizes(seed):
    """n in 1..64 (1..8 on even seeds), d in 8..64."""
    r = rng("pos_encoding", seed)
    return r.randint(1, 64 if seed % 2 else 8), r.randint(8, 64)


@pytest.mark.parametrize("seed", SEEDS)
def test_matches_independent(seed):
    """Seeded tables agree with the frequency-list encoding to 1e-12 and are n × d."""
    n, d = sizes(seed)
    got = model.pos_encoding(n, d)
    assert shape(got) == (n, d)
    assert_close(got, independent.pos_encoding(n, d))


@pytest.mark.parametrize("seed", SEEDS)
def test_bounded_and_rows_distinct(seed):
    """Every value lies in [-1, 1] and no two positions share a row."""
    n, d = sizes(seed)
    got = model.pos_encoding(n, d)
    assert all(-1.0 <= v <= 1.0 for row in got for v in row)
    assert all(
        max(abs(a - b) for a, b in zip(got[p], got[q])) > 1e-9 for p in range(n) for q in range(p)
    )


def test_position_zero():
    """Position 0 has angle 0 in every column: sin 0 = 0 in even columns, cos 0 = 1 in odd ones."""
    assert_close(model.pos_encoding(1, 9), [[0.0, 1.0] * 4 + [0.0]])


def test_checkpoint_passes():
    """The visible positional-encoding checkpoint holds for the reference."""
    assert_checkpoint_passes("pos_encoding", model)


def test_hidden_judge_passes():
    """The hidden positional-encoding judge finds no failing case when judging the reference."""
    assert_hidden_judge_passes("pos_encoding", model)


def test_permutation_artifact_says_when_the_encoding_is_not_added(tmp_path):
    """An encoding of zeros gives two tiny differences:
    the check says the encoding is not being added.
    """
    from checkpoints.attention.artifacts import PERM_FILE, check_perm, permutation_experiment
    from grading.judge.reference import load_source_module, reference_source

    zeros = (
        reference_source()
        + "\n\ndef pos_encoding(n, d):\n    return [[0.0] * d for _ in range(n)]\n"
    )
    learner = load_source_module(zeros, "zeros", "model.py")
    without, with_pe = permutation_experiment(learner.attention, learner.pos_encoding)
    (tmp_path / PERM_FILE).write_text(
        f"without_pe: {without!r}\nwith_pe: {with_pe!r}\nconclusion: none\n"
    )
    report = check_perm(learner, str(tmp_path))
    assert not report.passed
    assert "the encoding is not being added" in repr(report)


@pytest.mark.parametrize(
    "conclusion, named",
    [
        ("bananas", False),
        ("order matters", False),  # which numbers show it, and how: not said
        ("shuffling the rows only shuffles the output: order is invisible without positions", True),
        ("위치 인코딩이 없으면 행을 섞어도 출력이 섞일 뿐이라 순서가 보이지 않는다", True),
        ("位置エンコーディングがないと、行を並べ替えても順序は見えない", True),
    ],
)
def test_the_permutation_conclusion_must_name_what_the_numbers_show(tmp_path, conclusion, named):
    """The conclusion line is read: it names the order and the shuffle (or the positions), in
    any of the three languages; a sentence that names neither fails with a hint."""
    from checkpoints.attention.artifacts import PERM_FILE, check_perm, permutation_experiment, say
    from grading.judge.reference import load_source_module, reference_source

    model = load_source_module(reference_source(), "reference", "model.py")
    without, with_pe = permutation_experiment(model.attention, model.pos_encoding)
    (tmp_path / PERM_FILE).write_text(
        f"without_pe: {without!r}\nwith_pe: {with_pe!r}\nconclusion: {conclusion}\n",
        encoding="utf-8",
    )
    report = check_perm(model, str(tmp_path))
    failing = [c for c in report.checks if not c.passed]
    assert report.passed is named
    assert named or [c.what for c in failing] == [say("perm_conclusion")]


PAIRWISE = """

def pos_encoding(n, d):
    rows = []
    for p in range(n):
        row = []
        for i in range(0, d, 2):
            angle = p / 10000 ** (i / d)
            row += [math.sin(angle), math.cos(angle)]
        rows.append(row)
    return rows
"""


def test_an_encoding_that_breaks_at_odd_widths_fails_the_hidden_check():
    """Writing sin and cos in pairs is right at every even d, and one column too wide at an odd
    d: the visible check tries d = 5 and d = 1, and the hidden cases d = 1, 3 and 5."""
    from checkpoints.attention.steps import check_pos_encoding
    from grading.judge import attention as judge
    from grading.judge import attention_hidden as hidden
    from grading.judge.reference import load_source_module, reference_source

    learner = load_source_module(reference_source() + PAIRWISE, "pairwise", "model.py")
    report = check_pos_encoding(learner)
    failing = [c for c in report.checks if not c.passed]
    assert len(failing) == 1 and "(7, 5)" in failing[0].what and "(7, 6)" in failing[0].got
    total, failures = hidden.judge("pos_encoding", learner)
    assert total >= 20 and len(failures) == 3  # d = 1, 3 and 5
    verdict = judge.hidden_verdict("step05-hidden", "pos_encoding", model)
    assert verdict.passed and "distinct rows" in verdict.text
