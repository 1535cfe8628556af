"""How the diagnosis does on real-looking code: the named share, and never a wrong name.

    python -m bench.corpus

Runs each entry of tests/fixtures/corpus.py (code written the ways tutorials and courses write
it) through its checkpoint and prints one line per entry, then the share of wrong entries that
are named, and how many were given a wrong name (there must be none).
"""

from checkpoints.attention.steps import CHECKS
from grading.authoring.mistakes import replace_functions
from grading.judge.reference import load_source_module, reference_source
from tests.fixtures.corpus import CORPUS


def verdict(checkpoint, code):
    """ "correct", the first name the diagnosis gives, or "unknown" (fails, unnamed)."""
    source = replace_functions(reference_source(), code)
    report = CHECKS[checkpoint](load_source_module(source, "corpus", "<corpus>"))
    if report.passed:
        return "correct"
    return report.diagnosis[0].name if report.diagnosis else "unknown"


def main():
    """One line per entry, then the totals."""
    wrong = named = misnamed = 0
    for entry, (checkpoint, what, code) in sorted(CORPUS.items()):
        got = verdict(checkpoint, code)
        wrong += what != "correct"
        named += what != "correct" and got not in ("correct", "unknown")
        misnamed += got not in ("correct", "unknown", what)
        print(f"{'ok' if got == what else 'DIFFERS':8} {entry:34} {what:30} {got}")
    print(f"{len(CORPUS)} entries, {wrong} wrong: {named} named ({named / wrong:.0%}), "
          f"{misnamed} given a wrong name")  # fmt: skip


if __name__ == "__main__":
    main()
