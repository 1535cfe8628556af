"""Checkpoint results: one object per check, one per checkpoint, readable in Jupyter and in a terminal."""

import html

GREEN, RED = "#1a7f37", "#b3261e"


class Check:
    """One check: what was checked, whether it held, and if not the evidence and a hint."""

    def __init__(self, what, passed, got=None, expected=None, where=None, hint=None):
        self.what, self.passed = what, passed
        self.got, self.expected, self.where, self.hint = got, expected, where, hint

    def lines(self, level=0):
        yield ("✓ " if self.passed else "✗ ") + self.what
        if self.passed:
            return
        if self.got is not None:
            yield f"    yours:    {self.got}"
        if self.expected is not None:
            yield f"    expected: {self.expected}"
        if self.where:
            yield f"    first difference: {self.where}"
        if isinstance(self.hint, str):
            yield f"    hint: {self.hint}"
        elif self.hint:  # a hints.Hint: one more tier per hint() call
            for label, text in zip(("hint", "closer", "formula"), self.hint.tiers()[: level + 1]):
                yield f"    {label}: {text}"

    def __repr__(self):
        return "\n".join(self.lines())


class Report:
    """All checks of one checkpoint, plus the diagnosis when a known mistake fits the evidence."""

    def __init__(self, title, checks, diagnosis=None, note=None, picture=None, name=None):
        self.title, self.checks, self.diagnosis, self.note = title, list(checks), diagnosis, note
        self.picture = picture  # a pictures.Picture of the learner's own values, or None
        self.name = name  # the checkpoint's name, for hint(name)
        self.level = 0  # how many hint tiers beyond the first to show (hint() raises it)
        self.prerequisite = (
            None  # "your softmax fails its own checkpoint…": said first, before any ✗
        )

    @property
    def passed(self):
        return all(c.passed for c in self.checks)

    @property
    def failed(self):
        return [c for c in self.checks if not c.passed]

    def summary(self):
        if self.passed:
            return f"{self.title}: all {len(self.checks)} checks hold"
        return f"{self.title}: {len(self.failed)} of {len(self.checks)} checks fail"

    def diagnosis_lines(self):
        if self.passed:
            return []
        if self.prerequisite:  # a catalogue match here would blame the wrong step
            return []
        if not self.diagnosis:
            return [
                self.note or "no known mistake matches these outputs; start from the first ✗ above"
            ]
        best, *others = self.diagnosis
        lines = [f"looks like: {best.title}", f"    {best.explanation}"]
        if self.level >= 1:  # the fix is a closer hint: shown on request
            lines.append(f"    fix: {best.hint}")
        return lines + [f"    (or: {m.title})" for m in others]

    def more_hints_line(self):
        """How to ask for the next tier, when a failing check has one left."""
        if self.passed or not self.name or self.level >= 2:
            return []
        if not self.diagnosis and not any(
            not isinstance(c.hint, (str, type(None))) for c in self.failed
        ):
            return []
        return [f"(stuck? hint({self.name!r}) gives a closer hint; run it again for the formula)"]

    def __repr__(self):
        body = [line for c in self.checks for line in c.lines(self.level)]
        first = [f"first: {self.prerequisite}"] if self.prerequisite else []
        return "\n".join(
            [self.summary()]
            + first
            + ["  " + b for b in body]
            + self.diagnosis_lines()
            + self.more_hints_line()
        )

    def _repr_html_(self):
        colour = GREEN if self.passed else RED
        rows = []
        for c in self.checks:
            first, *rest = list(c.lines(self.level))
            mark = (
                f"<span style='color:{GREEN if c.passed else RED};font-weight:bold'>"
                f"{first[0]}</span>{html.escape(first[1:])}"
            )
            # white-space:pre keeps "yours:" and "expected:" aligned, as in the terminal
            detail = "".join(
                f"<div style='margin-left:1.6em;font-family:monospace;white-space:pre'>"
                f"{html.escape(r.strip())}</div>"
                for r in rest
            )
            rows.append(f"<li style='list-style:none'>{mark}{detail}</li>")
        diag = "".join(
            f"<div><b>{html.escape(d.strip())}</b></div>"
            if i == 0
            else f"<div style='margin-left:1.6em'>{html.escape(d.strip())}</div>"
            for i, d in enumerate(self.diagnosis_lines() + self.more_hints_line())
        )
        return (
            f"<div style='border-left:4px solid {colour};padding:0.3em 0.8em'>"
            f"<div style='color:{colour};font-weight:bold'>{html.escape(self.summary())}</div>"
            + (
                f"<div><b>first:</b> {html.escape(self.prerequisite)}</div>"
                if self.prerequisite
                else ""
            )
            + f"<ul style='padding-left:0.4em;margin:0.3em 0'>{''.join(rows)}</ul>{diag}"
            f"{self.picture._repr_html_() if self.picture else ''}</div>"
        )
