"""The reference model: the repository's top-level model.py, loaded under its own module name."""

import importlib.util

from grading.paths import REFERENCE_MODEL as REFERENCE_FILE


def load_source_module(source, name, filename):
    """Execute model source as a fresh module object."""
    spec = importlib.util.spec_from_loader(name, loader=None, origin=filename)
    module = importlib.util.module_from_spec(spec)
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)
    return module


def reference_source():
    """The text of the repository's model.py."""
    with open(REFERENCE_FILE, encoding="utf-8") as f:
        return f.read()


_cached = None


def reference():
    """The reference model module (loaded once per process)."""
    global _cached
    if _cached is None:
        _cached = load_source_module(reference_source(), "reference_model", REFERENCE_FILE)
    return _cached
