"""A class handed in from every language edition, graded in the course's class: the same scores
cell by cell in one gradebook, each verdict in its notebook's language. (The editions themselves:
tests/grading/authoring/test_editions.py.)"""

import os

import nbformat
import pytest

from checkpoints import i18n
from grading.authoring import editions


@pytest.mark.nbgrader
def test_a_mixed_class_is_graded_alike_and_answered_in_each_learners_language(monkeypatch):
    """The demo class handed in from the English and the Korean editions (and part of it from
    the Japanese) scores the same, cell by cell, in one gradebook; each verdict speaks the
    language of the notebook it is written into. Scores and verdicts are the judge's alone, so
    the class is graded without running its notebooks (EXECUTE=0), as large classes may be."""
    from grading import classroom
    from grading.authoring import course
    from grading.authoring.mistakes import BUGGY
    from grading.scale import farm

    classroom.start_over()
    demo = {"correct": None, **classroom.DEMO_MISTAKES}
    everyone = {"en": demo, "ko": demo, "ja": {"correct": None, "no-sqrt-d": demo["no-sqrt-d"]}}
    for edition, learners in everyone.items():
        course.release(edition)
        for student, mistake in learners.items():
            bug = {BUGGY[mistake][0]: BUGGY[mistake][1]} if mistake else None
            classroom.write_submission(f"{student}-{edition}", bug, edition=edition)
    monkeypatch.setenv("ATTENTION_EXECUTE", "0")
    outcomes = farm.autograde(classroom.students(), jobs=2, force=True)
    assert all(o.ok for o in outcomes) and len(outcomes) == sum(map(len, everyone.values()))
    scores = classroom.cell_scores()
    for edition, learners in everyone.items():
        assert all(scores[f"{s}-{edition}"] == scores[f"{s}-en"] for s in learners)
    assert scores["correct-ko"]["step02-attention-hidden"] == 3
    assert scores["no-sqrt-d-ko"]["step02-attention-hidden"] == 0
    assert all(scores[f"{s}-ko"] != scores["correct-ko"] for s in classroom.DEMO_MISTAKES)
    for edition in editions.languages():
        path = os.path.join(
            classroom.ROOT, "autograded", f"correct-{edition}", "attention", "01-softmax.ipynb"
        )
        [cell] = [
            c
            for c in nbformat.read(path, as_version=4).cells
            if c.get("id") == "step01-softmax-checks"
        ]
        shown = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
        assert "✓ " + i18n.lookup("claims", "softmax.sum", edition) in shown
