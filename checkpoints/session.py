"""What every part's checkpoints share: grading mode, showing a report, quiet learner code,
concluding a checkpoint, and writing an artifact into outputs/.

Standard library only; the words are locales/<edition>.json's "session" section.
"""

import contextlib
import io
import os
import time
import warnings

from . import i18n, overview
from .onward import CheckpointFailed

OUTPUTS = "outputs"  # every part's artifacts, beside the learner's files
STARTED = time.time()  # this kernel's run began about now: a notebook's first cell imports us

say = i18n.speaker("session")  # locales/<edition>.json, section "session"


def grading():
    """True while nbgrader autogrades: then model.py and outputs/ are judged as submitted.

    Nothing here decides a grade: the judge recomputes every graded cell outside the kernel.
    """
    return os.environ.get("NBGRADER_EXECUTION") == "autograde"


def left_to_the_judge(name):
    """True while nbgrader grades, once said: the judge's verdict replaces a graded cell's output,
    so the kernel's own check of name would be computed for nothing."""
    if not grading():
        return False
    print(say("grading_check", checkpoint=name))
    return True


def show(report):
    """Display a report: rich in Jupyter, its text elsewhere."""
    try:
        from IPython import get_ipython
        from IPython.display import display

        if get_ipython() is not None:
            display(report)
            return
    except ImportError:
        pass
    print(repr(report))


@contextlib.contextmanager
def quiet():
    """Keep the learner code's warnings and stderr out of the cell (nbgrader zeroes such a cell)."""
    sink = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(sink):
        warnings.simplefilter("always")
        yield sink, caught
    if sink.getvalue() or caught:
        print(say("noisy_code"))


def conclude(report):
    """Show the report; raise CheckpointFailed with its summary when it does not hold."""
    show(report)
    if not report.passed:
        raise CheckpointFailed(report.summary(), reported=True)
    return None


def write_artifact(filename, text, show=True):
    """Write outputs/<filename> (kept as submitted while grading); show=False: its size only."""
    if grading():
        print(say("grading_artifact", path=f"{OUTPUTS}/{filename}"))
        return
    os.makedirs(OUTPUTS, exist_ok=True)
    with open(os.path.join(OUTPUTS, filename), "w", encoding="utf-8") as f:
        f.write(text.rstrip("\n") + "\n")
    shown = (
        shortened(text.rstrip(), f"{OUTPUTS}/{filename}")
        if show
        else say("characters", count=len(text))
    )
    print(say("wrote_artifact", path=f"{OUTPUTS}/{filename}", text=shown))


def shortened(text, path, most=40, ends=5):
    """text as a cell shows it: whole up to most lines (a learner's notes), else its first and
    last ends lines around one line saying how many are left out and where they all are."""
    lines = text.splitlines()
    if len(lines) <= most:
        return text
    left_out = say("lines_left_out", count=len(lines) - 2 * ends, path=path)
    return "\n".join(lines[:ends] + [left_out] + lines[-ends:])


def show_progress(folder="."):
    """Show where the learner stands in every part this package holds (overview.progress)."""
    with quiet():
        view = overview.progress(folder)
    show(view)
