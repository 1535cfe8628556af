"""A notebook that goes on past a learner's mistake: every cell runs, every report stays.

A checkpoint that does not hold shows its report and one short line, and the next cell runs, so
Run All and `jupyter nbconvert --execute` keep every ✓/✗ in the notebook. Only while nbgrader runs
the notebook (its Validate button, `nbgrader validate`, autograde) does it raise CheckpointFailed,
because that is how nbgrader sees a failing cell. Scores never come from the kernel either way.

A demo cell wraps its calls in `with demo():` so that a learner's exception is one line (what,
where) instead of a traceback that stops Run All before the checkpoint that would explain it.
"""

import contextlib
import os
import sysconfig
import traceback

from . import i18n

say = i18n.speaker("session")
PACKAGE = os.path.dirname(os.path.abspath(__file__))
LIBRARIES = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}


class CheckpointFailed(AssertionError):
    """A checkpoint did not hold: its report above says what to fix (reported), or this message."""

    def __init__(self, message, reported=False):
        super().__init__(message)
        self.reported = reported

    def _render_traceback_(self):
        """What IPython shows instead of a traceback: one line (the report above says the rest)."""
        return [f"\x1b[0;31mCheckpointFailed\x1b[0m: {self}"]


def under_nbgrader():
    """True while nbgrader executes the notebook: validating it, or autograding it."""
    return os.environ.get("NBGRADER_EXECUTION") in ("validate", "autograde")


@contextlib.contextmanager
def going_on():
    """A CheckpointFailed inside is one line and the notebook goes on; under nbgrader it raises."""
    try:
        yield
    except CheckpointFailed as failed:
        if under_nbgrader():
            raise
        print(say("goes_on", summary=str(failed).rstrip(".")) if failed.reported else f"✗ {failed}")


@contextlib.contextmanager
def learner_code(what):
    """Inside, a course check runs the learner's code: whatever that raises becomes one
    CheckpointFailed line (what was being checked, the error, where in the learner's code)."""
    try:
        yield
    except CheckpointFailed:
        raise
    except Exception as err:  # the learner's code may raise anything
        where = where_it_failed(err, from_cell=False)  # the course's check called it
        raise CheckpointFailed(
            say("check_crashed", what=what, error=one_line(err), where=where)
        ) from None


@contextlib.contextmanager
def demo():
    """A learner's exception inside is shown as one line (type, where) and the notebook goes on."""
    try:
        yield
    except Exception as err:  # the learner's code may raise anything; the checkpoint explains it
        print(say("demo_error", error=one_line(err), where=where_it_failed(err)))


def one_line(err, limit=160):
    """`OverflowError: math range error`, cut to one line of at most limit characters."""
    text = f"{type(err).__name__}: {err}".splitlines()[0] if str(err) else type(err).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def learner_frames(err):
    """The traceback's frames in code the learner wrote: cells and their own files, not ours."""
    frames = traceback.extract_tb(err.__traceback__)
    theirs = (PACKAGE, *LIBRARIES)
    return [f for f in frames if not os.path.abspath(f.filename).startswith(theirs)]


def where_it_failed(err, from_cell=True):
    """Where the learner's code raised err: a function in model.py or in a cell, or this cell
    (from_cell: the outermost frame is the cell that called it, as in a demo)."""
    frames = learner_frames(err)
    if len(frames) <= int(from_cell):  # only the demo cell itself (or not even that)
        line = frames[0].lineno if frames else "?"
        return say("where_here", line=line)
    innermost = frames[-1]
    function = next((f.name for f in reversed(frames) if not f.name.startswith("<")), "?")
    path = os.path.abspath(innermost.filename)
    if os.path.isfile(path) and os.path.dirname(path) == os.getcwd():  # model.py, engine.py, ...
        name = os.path.basename(innermost.filename)
        return say("where_file", function=function, file=name, line=innermost.lineno)
    return say("where_cell", function=function, line=innermost.lineno)
