"""Hints in three tiers: why the property matters, then where to look, and only last the formula.

The formula is mathematical notation or a worked number, never a line of code: the student edition
ships these words, and a solution line in them would hand the answer over unasked.

The words live in locales/<edition>.json ("hints": three sentences per check).

A failing check shows the first tier. `hint("<step>")` shows the second; calling it again, the
third. The checkpoint never prints a solution line unasked.
"""

from dataclasses import dataclass

from .i18n import Section


@dataclass(frozen=True)
class Hint:
    """What to say about one failing check, from gentle to exact."""

    why: str  # tier 1: what the property means and why it matters
    where: str  # tier 2: which part of the code to look at
    formula: str  # tier 3: the formula, with a worked number; never a code line

    def tiers(self):
        """The three tiers, gentlest first."""
        return (self.why, self.where, self.formula)


HINTS = Section("hints", lambda tiers: Hint(*tiers))  # locales/<edition>.json, "hints"
