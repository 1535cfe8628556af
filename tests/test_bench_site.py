"""make bench-site's table: each visit's two figures and their sum, as minimum / median / maximum
of the learners, and whether the slowest learner's visit is within its target."""

import pytest

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


def test_a_site_to_compare_with_must_be_a_built_site_with_notebook_1_where_ours_has_it(tmp_path):
    """--against names a folder make site wrote, whose English notebook 1 is where this checkout's
    is; anything else stops the bench before it builds, with the reason."""
    notebook = "part-1-attention/01-softmax.ipynb"
    with pytest.raises(SystemExit, match="no site built by make site there"):
        site.older_site(str(tmp_path), notebook)
    (tmp_path / "service-worker.js").write_text("// a site's worker")
    with pytest.raises(SystemExit, match="notebook 1 is not at en/part-1-attention/01-softmax"):
        site.older_site(str(tmp_path), notebook)
    (tmp_path / "files" / "en" / "part-1-attention").mkdir(parents=True)
    (tmp_path / "files" / "en" / "part-1-attention" / "01-softmax.ipynb").write_text("{}")
    assert site.older_site(str(tmp_path), notebook) == str(tmp_path)
