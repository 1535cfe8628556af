"""Step 8's notes: the ways of writing "4 times" that the check accepts, in the three editions."""

import pytest

from checkpoints.attention.artifacts import FOUR_TIMES, IDEAS


@pytest.mark.parametrize(
    "text",
    [
        "the scores grow 4× when n doubles",
        "4x the memory",
        "it grows 4 times",
        "four times larger",
        "a 4-fold growth",
        "it grows fourfold",
        "by a factor of 4",
        "doubling n quadruples the scores",
        "점수 행렬은 4배가 됩니다",
        "메모리가 네 배가 됩니다",
        "スコア行列は4倍になります",
        "スコア行列は 4 倍になります",
    ],
)
def test_every_usual_spelling_of_four_times_counts(text):
    assert FOUR_TIMES.search(text)


@pytest.mark.parametrize("text", ["it grows 14x", "2 times", "it grows 0.4x", "about 4 more"])
def test_other_factors_do_not_count(text):
    assert not FOUR_TIMES.search(text)


def test_the_square_idea_is_found_in_its_usual_words():
    for text in ["it is quadratic in n", "n² entries", "n^2 entries", "the square of n"]:
        assert any(word in text.lower() for word in IDEAS["square"]), text
