"""The course site's piplite: the kernel's `%pip` and `piplite.install` say the site is offline.

The kernel imports this package as it starts, once it has made the browser's storage (/drive)
Python's working directory and before it imports IPython. With '' (the working directory) first
on sys.path, Python asks the page for that folder at every module it imports from then on: about
40 requests, 0.7 s of a return visit's 5. So '' leaves sys.path here, and IPython puts it back as
the kernel's shell starts (InteractiveShellApp.init_path), after the standard library: the
learner's model.py, engine.py and gpt.py import from their folder as before.
"""

import sys

from .piplite import install

if "" in sys.path:
    sys.path.remove("")

__all__ = ["install"]
