"""make bench-site's table: each visit's two figures and their sum, as minimum / median / maximum
of the learners, and whether the slowest learner's visit is within its target."""

from bench import site


def test_the_table_gives_each_visits_spread_and_whether_every_learner_met_its_target():
    runs = [  # (link -> notebook, notebook -> verdict) for each visit of three learners
        {"cold": (3.0, 1.0), "return": (2.0, 1.0), "offline": (2.0, 2.0)},
        {"cold": (5.0, 2.0), "return": (2.5, 2.0), "offline": (2.0, 2.5)},
        {"cold": (4.0, 1.5), "return": (3.0, 2.5), "offline": (2.0, 3.5)},
    ]
    rows = {line.split()[0]: line for line in site.table(runs)[2:]}
    assert set(rows) == set(site.VISITS)
    # cold: 3 4 5 | 1 1.5 2 | sums 4 5.5 7, within 10 s
    assert " 3.0 /  4.0 /  5.0" in rows["cold"] and " 1.0 /  1.5 /  2.0" in rows["cold"]
    assert " 4.0 /  5.5 /  7.0" in rows["cold"] and rows["cold"].endswith(": met")
    # return: sums 3, 4.5, 5.5: one learner waited more than 5 s
    assert " 3.0 /  4.5 /  5.5" in rows["return"] and rows["return"].endswith("NOT met")
    # offline: sums 4, 4.5, 5.5
    assert " 4.0 /  4.5 /  5.5" in rows["offline"] and rows["offline"].endswith("NOT met")
