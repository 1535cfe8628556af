"""The registry the mistake modules fill, one decorator per function.

Part one's (model.py): @mistake, a function that replaces one of model.py's; @spelling,
another way of writing the same mistake; @both, code carrying two of them at once. Part two's
(engine.py, gpt.py): @change, a function or method of a file replaced, or a function the mistake
adds.
"""

import inspect
from dataclasses import dataclass

from checkpoints.attention.catalogue import pair_name

BUGGY = {}  # name -> (function of model.py replaced, the buggy function's source)
SPELLINGS = {}  # name -> [(function replaced, source), ...]: the same mistake, written otherwise
BOTH = {}  # "first+second" -> (function replaced, source): two catalogued mistakes at once
CHANGES = {}  # part two's: name -> [Change, ...]


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


def both(first, second, replaces):
    """Register the decorated function as code with two catalogued mistakes at once (a pair of
    catalogue.PAIRS), under the pair's name "first+second"."""

    def register(fn):
        BOTH[pair_name(first, second)] = (replaces, model_code(fn, replaces))
        return fn

    return register


def spelling(name, replaces):
    """Register the decorated function as another spelling of the mistake `name`."""

    def register(fn):
        SPELLINGS.setdefault(name, []).append((replaces, model_code(fn, replaces)))
        return fn

    return register


@dataclass(frozen=True)
class Change:
    """One change a part-two mistake makes to a file of the reference."""

    file: str  # engine.py or gpt.py
    target: str  # what it replaces ("Value.backward", "loss"), or the function it adds
    code: str  # the new definition, at the left margin, named as in the file
    before: str = ""  # for an added function: the top-level function it goes before


def change(name, file, replaces="", adds="", before=""):
    """Register the decorated function as part of the part-two mistake `name`: it replaces the
    function or method `replaces` of `file`, or it is the function `adds`, put before `before`."""

    def register(fn):
        target = replaces or adds
        code = model_code(fn, target.rpartition(".")[2])
        CHANGES.setdefault(name, []).append(Change(file, target, code, before if adds else ""))
        return fn

    return register
