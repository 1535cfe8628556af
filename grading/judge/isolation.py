"""Isolation: judge a learner's step-N function on top of the reference's earlier steps.

The learner's functions call each other through model.py's module globals. While grading, the
judge's worker replaces those globals with oracles the judge answers with the reference
(judge/attention.py), so a wrong softmax costs only the softmax checkpoint. `underlay` does the same
in one process, for the project's own tests of trusted code (alternatives, benchmarks).
"""

from checkpoints.attention.steps import USES
from grading.judge.reference import reference

# What each checkpoint's functions call from earlier steps (the functions replaced underneath).
UNDERLAY = USES


def underlay(model, checkpoint):
    """Replace the earlier steps' functions in the learner's module by the reference's.

    Return the module.
    """
    ref = reference()
    for name in UNDERLAY[checkpoint]:
        setattr(model, name, getattr(ref, name))
    return model
