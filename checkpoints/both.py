"""Several catalogued mistakes at once, named together, and what the fingerprints and the
mistakes' properties (each part's detectors) say merged into one diagnosis.

Two catalogued mistakes at once, named together.

A learner's code can carry two mistakes. When each shows on probes the other leaves alone (a
wrong mask from `causal_mask` and a wrong use of it in `attention`), the answers are readable
without any stored example of the pair: each of its probes answers as the mistake that shows
there, and every other probe answers correctly. Pairs that interact on the same probes are
recognised only when their code is stored (part one's catalogue.PAIRS).
"""

from dataclasses import dataclass, field
from itertools import combinations

from . import i18n

say = i18n.speaker("report")


@dataclass(frozen=True)
class Both:
    """Two catalogued mistakes read as one diagnosis; it reads like a single Mistake."""

    first: object
    second: object

    names = property(lambda self: self.first.names + self.second.names)
    name = property(lambda self: "+".join(self.names))
    checkpoint = property(lambda self: self.first.checkpoint)
    title = property(lambda self: say("two_at_once", first=self.first.title,
                                      second=self.second.title))  # fmt: skip
    explanation = property(lambda self: f"{self.first.explanation} {self.second.explanation}")
    hint = property(lambda self: f"{self.first.hint} {self.second.hint}")


@dataclass(frozen=True)
class Several:
    """Three or more catalogued mistakes read as one diagnosis (a detector found each)."""

    parts: tuple

    names = property(lambda self: tuple(n for p in self.parts for n in p.names))
    name = property(lambda self: "+".join(self.names))
    checkpoint = property(lambda self: self.parts[0].checkpoint)
    title = property(lambda self: say("several_at_once", count=len(self.parts), numbered="; ".join(
        f"({i}) {p.title}" for i, p in enumerate(self.parts, 1))))  # fmt: skip
    explanation = property(lambda self: " ".join(p.explanation for p in self.parts))
    hint = property(lambda self: " ".join(f"({i}) {p.hint}" for i, p in enumerate(self.parts, 1)))


@dataclass(frozen=True)
class Found:
    """What a detector read from the answers: the names whose property shows, every name it can
    speak for, and the mistakes it saw in a place of their own (a name's operation)."""

    names: tuple
    knows: frozenset
    mistakes: dict = field(default_factory=dict)


def merged(found, props, mistake):
    """The diagnosis from the fingerprints' matches (found) and a detector's reading (props, or
    None): a match with a name the properties contradict is dropped; the names the properties
    show, with the best match's names they cannot speak for, are named together.
    mistake(name) gives the Mistake of a name."""
    if props is None:
        return found
    kept = [m for m in found if not (set(m.names) & props.knows) - set(props.names)]
    stored = kept[0].names if kept else ()
    names = list(dict.fromkeys([*props.names, *(n for n in stored if n not in props.knows)]))
    if kept and set(names) == set(stored):
        return kept
    return [together([mistake(n) for n in names])] if names else []


def together(mistakes):
    """One diagnosis for these mistakes: the mistake itself, a Both, or a Several."""
    if len(mistakes) == 1:
        return mistakes[0]
    return Both(*mistakes) if len(mistakes) == 2 else Several(tuple(mistakes))


def shows_on(correct, answers, ids, same):
    """The probes where one mistake's stored answers differ from the correct ones."""
    return {p for p in ids if p in answers and not same(correct[p], answers[p])}


def both_at_once(correct, mistakes, answers, ids, same, by_name):
    """The pairs of mistakes that show on different probes and together give these answers: on
    each probe where one of them shows, its stored answer; on every other probe, the correct one.

    correct: {probe: answer}; mistakes: {name: {probe: answer}}; same(got, stored) compares.
    """
    shows = {name: shows_on(correct, mistakes[name], ids, same) for name in mistakes}

    def fits(a, b):
        def wanted(p):  # where neither shows, both answer as the correct code does
            table = mistakes[a] if p in shows[a] else mistakes[b] if p in shows[b] else correct
            return table[p]

        return all(same(answers[p], wanted(p)) for p in ids)

    return [
        Both(by_name[a], by_name[b])
        for a, b in combinations(mistakes, 2)
        if shows[a] and shows[b] and not shows[a] & shows[b] and fits(a, b)
    ]
