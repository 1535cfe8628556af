"""The course site's piplite: the kernel's `%pip` and `piplite.install` say the site is offline.

The kernel imports this package as it starts, once it has made the browser's storage (/drive)
Python's working directory and before it imports IPython. With '' (the working directory) on
sys.path before site-packages, Python asks the page for that folder at every top-level import
that reaches it: about 40 requests while the kernel starts, 0.7 s of a return visit's 5, and
notebook 1's `from checkpoints import ...` listed the learner's folder and looked at it once per
module (0.2 s of its 0.23 s, measured in the browser). So '' leaves sys.path here, and once
IPython has put it back before site-packages (InteractiveShellApp.init_path), the kernel's
startup file (startup.py, named by PYTHONSTARTUP in lite/build.py) moves it to the end: the
learner's model.py, engine.py and gpt.py import from their folder as before, after everything
the kernel ships.
"""

import sys

from .piplite import install

if "" in sys.path:
    sys.path.remove("")


def cwd_last():
    """Move '' (the working directory, the learner's folder) to the end of sys.path."""
    if "" in sys.path:
        sys.path.remove("")
        sys.path.append("")


__all__ = ["install", "cwd_last"]
