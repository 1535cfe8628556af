"""Checkpoints for the attention workbook: save your functions into model.py and check them.

    from checkpoints import save, check
    save(softmax)        # writes the cell that defines softmax into model.py (step 1's section)
    check("softmax")     # runs the softmax checkpoint on model.py and shows what holds

Standard library only, so it runs wherever Python runs.
"""

import contextlib
import io
import os
import warnings

from .artifacts import ARTIFACT_CHECKS, ARTIFACT_NEEDS, OUTPUTS
from .modelfile import (
    STEPS,
    ModelFileError,
    broken_message,
    cell_source,
    ensure_model,
    load_model,
    save_section,
    step_number,
)
from .progress import progress as _progress
from .steps import CHECKS, USES

__all__ = [
    "save",
    "check",
    "hint",
    "check_artifact",
    "hidden",
    "progress",
    "write_artifact",
    "show_source",
    "ensure_model",
    "ModelFileError",
    "STEPS",
]


class CheckpointFailed(AssertionError):
    """A checkpoint did not hold; the report printed above says what to fix."""

    def _render_traceback_(self):
        """What IPython shows instead of a traceback: one line (the report above says the rest)."""
        return [f"\x1b[0;31mCheckpointFailed\x1b[0m: {self}"]


def grading():
    """True while nbgrader autogrades: then model.py and outputs/ are judged as submitted.

    Nothing here decides a grade: the judge recomputes every graded cell outside the kernel.
    """
    return os.environ.get("NBGRADER_EXECUTION") == "autograde"


def show(report):
    try:
        from IPython import get_ipython
        from IPython.display import display

        if get_ipython() is not None:
            display(report)
            return
    except ImportError:
        pass
    print(repr(report))


def save(fn):
    """Write the notebook cell that defines fn into model.py, replacing that step's last version."""
    if grading():
        print(f"(grading: model.py is judged as you submitted it; {fn.__name__} is not rewritten)")
        return
    save_section(fn.__name__, cell_source(fn))
    print(f"model.py: step {step_number(fn.__name__)} ({fn.__name__}) saved")


@contextlib.contextmanager
def quiet():
    """Keep the learner code's warnings and stderr out of the cell (nbgrader zeroes such a cell)."""
    sink = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(sink):
        warnings.simplefilter("always")
        yield sink, caught
    if sink.getvalue() or caught:
        print("(note: your code wrote warnings or errors while it was checked; they cost nothing)")


def _conclude(report):
    show(report)
    if not report.passed:
        raise CheckpointFailed(report.summary())
    return None


def _report(name):
    """The checkpoint's report on model.py; CheckpointFailed when there is nothing to check yet."""
    if name not in CHECKS:
        raise ValueError(f"no checkpoint called {name!r}; choose one of {', '.join(CHECKS)}")
    with quiet():
        try:
            model = load_model()
        except (ModelFileError, SyntaxError) as err:
            raise CheckpointFailed(f"model.py: {err}") from None
        if broken_message(model, name):
            raise CheckpointFailed(broken_message(model, name))
        if not hasattr(model, name):
            raise CheckpointFailed(f"model.py has no {name} yet: run the cell with save({name})")
        report = CHECKS[name](model)
        if report.passed:
            return report
        return report.but(prerequisite=failing_prerequisite(name, model))


def failing_prerequisite(name, model):
    """A sentence naming the first earlier step that fails its own checkpoint (it would mislead)."""
    for earlier in USES[name]:
        if hasattr(model, earlier) and not CHECKS[earlier](model).passed:
            step = step_number(earlier)
            return (
                f"your {earlier} fails its own checkpoint (step {step}); {name} uses it, so fix "
                f"step {step} first: the failures below may all come from there"
            )
    return None


def check(name):
    """Run one function's checkpoint on model.py; raise CheckpointFailed if it does not hold."""
    return _conclude(_report(name))


HINT_LEVELS = {}  # checkpoint -> how many tiers hint() has revealed so far


def hint(name):
    """Show the checkpoint again with a closer hint for each failing check; again: the formula."""
    HINT_LEVELS[name] = min(HINT_LEVELS.get(name, 0) + 1, 2)
    show(_report(name).but(level=HINT_LEVELS[name]))


def check_artifact(filename):
    """Check one of the three artifacts in outputs/ against your own functions."""
    with quiet():
        try:
            model = load_model()
        except (ModelFileError, SyntaxError) as err:
            raise CheckpointFailed(f"model.py: {err}") from None
        for name in ARTIFACT_NEEDS[filename]:
            if not hasattr(model, name):
                raise CheckpointFailed(
                    f"model.py has no {name} yet: run the cell with save({name})"
                )
        report = ARTIFACT_CHECKS[filename](model)
    return _conclude(report)


def write_artifact(filename, text):
    """Write outputs/<filename> (kept as submitted while grading)."""
    if grading():
        print(f"(grading: {OUTPUTS}/{filename} is judged as you submitted it)")
        return
    os.makedirs(OUTPUTS, exist_ok=True)
    with open(os.path.join(OUTPUTS, filename), "w", encoding="utf-8") as f:
        f.write(text.rstrip("\n") + "\n")
    print(f"wrote {OUTPUTS}/{filename}:\n{text.rstrip()}")


def progress():
    """All checkpoints and artifacts: which hold, fail (and why), are not started; what next."""
    with quiet():
        view = _progress()
    show(view)


def hidden(name):
    """Where a hidden check stands: the grader's judge scores it, outside your kernel."""
    print(f"hidden check {name}: run by the grader outside this notebook when your work is graded")


def show_source(fn):
    """Print a function's source, so a notebook can show the experiment it is about to run."""
    import inspect

    print(inspect.getsource(fn))
