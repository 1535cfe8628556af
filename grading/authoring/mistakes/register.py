"""The registry the mistake modules fill, one decorator per function: @mistake and @spelling."""

import inspect

BUGGY = {}  # name -> (function of model.py replaced, the buggy function's source)
SPELLINGS = {}  # name -> [(function replaced, source), ...]: the same mistake, written otherwise


def model_code(fn, function):
    """fn's source as model.py would hold it: without its decorator, named `function`."""
    lines = inspect.getsource(fn).splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("def "))
    text = "".join(lines[start:])
    return f"def {function}(" + text[len(f"def {fn.__name__}(") :]


def mistake(name, replaces):
    """Register the decorated function as the catalogued mistake `name`, in place of `replaces`."""

    def register(fn):
        if name in BUGGY:
            raise ValueError(f"the mistake {name} has two functions")
        BUGGY[name] = (replaces, model_code(fn, replaces))
        return fn

    return register


def spelling(name, replaces):
    """Register the decorated function as another spelling of the mistake `name`."""

    def register(fn):
        SPELLINGS.setdefault(name, []).append((replaces, model_code(fn, replaces)))
        return fn

    return register
