"""Checkpoint results: one per check, one per checkpoint, readable in Jupyter and a terminal."""

import html
from dataclasses import dataclass, replace

from . import i18n

GREEN, RED = "#1a7f37", "#b3261e"
HINT_LABELS = ("hint", "closer", "formula")  # the tiers' labels: keys of the "report" words


def _style(css):
    return f" style='{css}'"


say = i18n.speaker("report")  # locales/<edition>.json, section "report"


@dataclass(frozen=True)
class Check:
    """One check: what was checked, whether it held, and if not the evidence and a hint."""

    what: str
    """The property or known answer, as the learner reads it ("sums to 1")."""
    passed: bool
    """True when the property held for the learner's function."""
    got: str | None = None
    """What the learner's function gave (or how it crashed), shown beside `expected`."""
    expected: str | None = None
    """What it should have given."""
    where: str | None = None
    """For a known answer: the first element where the two part ways, and why."""
    hint: object = None
    """A plain sentence, or a hints.Hint whose tiers hint() reveals one at a time."""
    id: str = ""
    """The claim's key in the locales ("softmax.sums_to_one"): the same in every edition, and all
    a shared result says of the check (checkpoints/labview.py), never its words or values."""

    def lines(self, level=0):
        """The check in plain text: ✓/✗ and the statement, then the evidence and `level`+1 tiers."""
        yield ("✓ " if self.passed else "✗ ") + self.what
        if self.passed:
            return
        yours, expected = say("yours"), say("expected")
        width = max(len(yours), len(expected))  # the two values start in the same column
        if self.got is not None:
            yield f"    {yours:<{width}} {self.got}"
        if self.expected is not None:
            yield f"    {expected:<{width}} {self.expected}"
        if self.where:
            yield f"    {say('first_difference')} {self.where}"
        if isinstance(self.hint, str):
            yield f"    {say('hint')} {self.hint}"
        elif self.hint:
            for label, text in zip(HINT_LABELS, self.hint.tiers()[: level + 1]):
                yield f"    {say(label)} {text}"

    def __repr__(self):
        return "\n".join(self.lines())

    def html(self, level=0):
        """One list item; white-space:pre aligns "yours:" and "expected:" as in a terminal."""
        first, *rest = list(self.lines(level))
        colour = GREEN if self.passed else RED
        mark = f"<span{_style(f'color:{colour};font-weight:bold')}>{first[0]}</span>"
        detail = "".join(
            f"<div{_style('margin-left:1.6em;font-family:monospace;white-space:pre')}>"
            f"{html.escape(r.strip())}</div>"
            for r in rest
        )
        return f"<li{_style('list-style:none')}>{mark}{html.escape(first[1:])}{detail}</li>"

    def _repr_html_(self):
        return f"<ul{_style('padding-left:0.4em;margin:0.3em 0')}>{self.html()}</ul>"


@dataclass(frozen=True)
class Report:
    """All checks of one checkpoint, plus the diagnosis when a known mistake fits the evidence."""

    title: str
    """The checkpoint as the learner knows it ("layer norm")."""
    checks: tuple = ()
    """The Check results, in the order they are shown."""
    diagnosis: tuple = ()
    """Catalogued mistakes (catalogue.Mistake) that fit every answer, best first; () if none."""
    note: str | None = None
    """Said instead of a diagnosis when no catalogued mistake fits."""
    picture: object = None
    """A pictures.Picture of the learner's own values, or None."""
    name: str | None = None
    """The checkpoint's name, for the `hint(name)` line."""
    level: int = 0
    """How many hint tiers beyond the first to show (each hint() call raises it, up to 2)."""
    prerequisite: str | None = None
    """'your softmax fails its own checkpoint…': said first, before any ✗."""
    package: str = "checkpoints"
    """Where this checkpoint's hint() lives (part two's: checkpoints.xslm), for the hint line."""

    def __post_init__(self):
        object.__setattr__(self, "checks", tuple(self.checks))
        object.__setattr__(self, "diagnosis", tuple(self.diagnosis or ()))

    def but(self, **changes):
        """The same report with some fields changed (a report is never modified in place)."""
        return replace(self, **changes)

    @property
    def passed(self):
        """Every check held."""
        return all(c.passed for c in self.checks)

    @property
    def failed(self):
        """The checks that did not hold."""
        return [c for c in self.checks if not c.passed]

    def outcome(self):
        """A few words: all checks hold, or how many fail (the summary without the title)."""
        if self.passed:
            return say("all_hold", count=len(self.checks))
        return say("some_fail", failed=len(self.failed), count=len(self.checks))

    def summary(self):
        """One line: the title, then whether all checks hold or how many fail."""
        return say("summary", title=self.title, outcome=self.outcome())

    def diagnosis_lines(self):
        """The catalogued mistake that fits (its fix on request), or the note."""
        # with a failing prerequisite, a catalogue match here would blame the wrong step
        if self.passed or self.prerequisite:
            return []
        if not self.diagnosis:
            return [self.note or say("no_known_mistake")]
        best, *others = self.diagnosis
        lines = [say("looks_like", mistake=best.title), f"    {best.explanation}"]
        if self.level >= 1:  # the fix is a closer hint: shown on request
            lines.append(f"    {say('fix', fix=best.hint)}")
        return lines + [f"    {say('or_else', mistake=m.title)}" for m in others]

    def more_hints_line(self):
        """How to ask for the next tier, when a failing check has one left."""
        if self.passed or not self.name or self.level >= 2:
            return []
        tiered = any(not isinstance(c.hint, (str, type(None))) for c in self.failed)
        if not self.diagnosis and not tiered:
            return []
        # the whole call: the notebooks import check and save, not hint
        return [say("stuck", call=f"from {self.package} import hint; hint({self.name!r})")]

    def __repr__(self):
        body = ["  " + line for c in self.checks for line in c.lines(self.level)]
        first = [f"{say('first')} {self.prerequisite}"] if self.prerequisite else []
        tail = self.diagnosis_lines() + self.more_hints_line()
        return "\n".join([self.summary(), *first, *body, *tail])

    def _repr_html_(self):
        colour = GREEN if self.passed else RED
        rows = "".join(c.html(self.level) for c in self.checks)
        tail = [html.escape(d.strip()) for d in self.diagnosis_lines() + self.more_hints_line()]
        diag = "".join(
            f"<div><b>{d}</b></div>" if i == 0 else f"<div{_style('margin-left:1.6em')}>{d}</div>"
            for i, d in enumerate(tail)
        )
        first = self.prerequisite and (
            f"<div><b>{html.escape(say('first'))}</b> {html.escape(self.prerequisite)}</div>"
        )
        return (
            f"<div{_style(f'border-left:4px solid {colour};padding:0.3em 0.8em')}>"
            f"<div{_style(f'color:{colour};font-weight:bold')}>{html.escape(self.summary())}</div>"
            f"{first or ''}<ul{_style('padding-left:0.4em;margin:0.3em 0')}>{rows}</ul>{diag}"
            f"{self.picture._repr_html_() if self.picture else ''}</div>"
        )
