"""Real-looking code (tests/fixtures/corpus.py): every correct one passes unnamed, every wrong one
fails, and none is ever given a name but its own (an unknown mistake goes unnamed)."""

import pytest

from checkpoints.attention.steps import CHECKS
from grading.authoring.mistakes import replace_functions
from grading.judge.reference import load_source_module, reference_source
from tests.fixtures.corpus import CORPUS


def judged(entry):
    """(passed, the names the entry's checkpoint gives) for one corpus entry in model.py."""
    checkpoint, _, code = CORPUS[entry]
    source = replace_functions(reference_source(), code)
    report = CHECKS[checkpoint](load_source_module(source, "corpus", f"<{entry}>"))
    return report.passed, [m.name for m in report.diagnosis or []]


@pytest.mark.parametrize("entry", sorted(CORPUS))
def test_each_entry_is_judged_as_what_it_is(entry):
    """correct: passes unnamed; a catalogued mistake: fails, named first; unknown: fails
    unnamed."""
    what = CORPUS[entry][1]
    passed, names = judged(entry)
    if what == "correct":
        assert passed and names == []
    elif what == "unknown":
        assert not passed and names == []
    else:
        assert not passed and names[:1] == [what], names


def test_the_corpus_covers_every_function_and_most_of_it_is_named():
    """At least 30 entries over all seven functions, and most wrong ones are catalogued."""
    checkpoints = {checkpoint for checkpoint, _, _ in CORPUS.values()}
    assert len(CORPUS) >= 30 and len(checkpoints) == 7
    wrong = [what for _, what, _ in CORPUS.values() if what != "correct"]
    assert sum(what != "unknown" for what in wrong) >= 0.8 * len(wrong)
