"""grading/report/stats.py against numbers worked out by hand."""

import pytest

from grading.report.stats import correlation, difficulty, discrimination, histogram


def test_difficulty_is_the_share_of_points_earned():
    assert difficulty([5, 0, 5, 5], 5) == pytest.approx(0.75)
    assert difficulty([], 5) is None


def test_correlation_by_hand():
    # xs = 1, 2, 3 and ys = 2, 4, 7: means 2 and 13/3; sxy = 5, sxx = 2, syy = 38/3
    assert correlation([1, 2, 3], [2, 4, 7]) == pytest.approx(5 / (2 * 38 / 3) ** 0.5)
    assert correlation([1, 1, 1], [2, 4, 7]) is None


def test_an_item_only_the_strong_pass_discriminates_and_one_all_pass_does_not():
    item = [1, 1, 0, 0]
    rest = [9, 8, 2, 1]  # the others' points, without the item
    totals = [i + r for i, r in zip(item, rest)]
    assert discrimination(item, totals) > 0.9
    assert discrimination([1, 1, 1, 1], [10, 9, 3, 2]) is None
    assert discrimination([0, 0, 1, 1], [9, 8, 3, 2]) < -0.9  # the weak pass it: a suspect item


def test_histogram_puts_the_top_score_in_the_last_bin():
    bins = histogram([0, 4.9, 5, 10], 10, bins=2)
    assert [(low, high) for low, high, _ in bins] == [(0, 5), (5, 10)]
    assert [count for *_, count in bins] == [2, 2]
