"""checkpoints/both.py: two catalogued mistakes read together, on a small table made up here."""

from dataclasses import dataclass

from checkpoints.both import Both, both_at_once
from checkpoints.compare import close


@dataclass(frozen=True)
class Named:
    """A stand-in for a catalogue entry."""

    name: str
    checkpoint: str = "demo"
    title: str = ""
    explanation: str = ""
    hint: str = ""

    @property
    def names(self):
        return (self.name,)


CORRECT = {"p1": 1.0, "p2": 2.0, "p3": 3.0}
MISTAKES = {
    "a": {"p1": 9.0, "p2": 2.0, "p3": 3.0},  # shows on p1 only
    "b": {"p1": 1.0, "p2": 8.0, "p3": 3.0},  # shows on p2 only
    "c": {"p1": 7.0, "p2": 7.0, "p3": 3.0},  # shows on p1 and p2: overlaps both
}
BY_NAME = {name: Named(name, title=f"{name}-title", hint=f"{name}-fix") for name in MISTAKES}


def read(answers):
    return both_at_once(CORRECT, MISTAKES, answers, list(CORRECT), close, BY_NAME)


def test_two_that_show_apart_are_named_together():
    found = read({"p1": 9.0, "p2": 8.0, "p3": 3.0})
    assert found == [Both(BY_NAME["a"], BY_NAME["b"])]
    assert found[0].names == ("a", "b") and found[0].name == "a+b"
    assert "a-title" in found[0].title and "b-title" in found[0].title
    assert found[0].hint == "a-fix b-fix"


def test_a_probe_neither_explains_names_nothing():
    assert read({"p1": 9.0, "p2": 8.0, "p3": 4.0}) == []


def test_pairs_that_overlap_are_never_read_without_stored_code():
    """c changes p1 as a does: what both together give is unknown, so a+c is never named."""
    assert read({"p1": 9.0, "p2": 7.0, "p3": 3.0}) == []


def test_one_mistake_alone_is_not_a_pair():
    assert read({"p1": 9.0, "p2": 2.0, "p3": 3.0}) == []
