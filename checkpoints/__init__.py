"""The course's checkpoints: feedback for the learner, standard library only, so it runs wherever
Python runs (the browser included).

    from checkpoints import save, check        # part one: model.py   (checkpoints/attention/)
    from checkpoints.xslm import save, check   # part two: engine.py and gpt.py (checkpoints/xslm/)
    use_edition("ko")                          # from now on the checkpoints answer in Korean

The modules here are what both parts share (reports, comparisons, pictures, words, the learner's
files, the hand-in); each part's checks, probes and answer table are in its own subpackage, and a
part's release ships the shared modules and its own subpackage only. Part one's names are read
from here because its notebooks import them so; they load on first use, so part two's release,
which has no checkpoints/attention/, imports this package all the same.
"""

import importlib
import os

from . import i18n
from .i18n import edition, use_edition

__all__ = ["edition", "use_edition", "i18n"]


def __getattr__(name):
    """Part one's API (checkpoints/attention/__init__.py), imported on first use (PEP 562)."""
    here = os.path.dirname(os.path.abspath(__file__))
    if (
        name.startswith("__")
        or os.path.exists(os.path.join(here, name + ".py"))
        or (os.path.isdir(os.path.join(here, name)))
    ):  # dunders and the package's own modules and parts: the import system's to find
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        part_one = importlib.import_module(".attention", __name__)
    except ModuleNotFoundError as missing:
        if missing.name != f"{__name__}.attention":
            raise  # something part one imports is missing: a real error, not a part two release
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    try:
        return getattr(part_one, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
