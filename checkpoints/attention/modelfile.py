"""Part one's file, model.py: the seven functions, one step's section each (see ../sections.py).

model.py is a header (docstring + ``import math``) followed by one section per step. It may import
Python's standard library only.
"""

import os
import sys

from .. import i18n
from ..sections import (
    ModelFileError,
    compose,
    foreign_imports,
    load_module,
    read_parts,
    replaced,
    without_markers,
)

MODEL_FILE = "model.py"

# The seven functions, in the order the notebooks build them.
STEPS = ["softmax", "attention", "causal_mask", "multi_head", "pos_encoding", "layer_norm", "block"]

say = i18n.speaker("save")  # locales/<edition>.json, section "save"


def header():
    """The stub model.py: a docstring (in the current edition) and `import math`."""
    return f'"""{say("model_docstring")}\n"""\n\nimport math\n'


def step_number(name):
    """1-based step of a function name, or a clear error for a name the course does not build."""
    if name not in STEPS:
        raise ModelFileError(
            say("unknown_function", function=repr(name), functions=", ".join(STEPS))
        )
    return STEPS.index(name) + 1


def ensure_model(path=MODEL_FILE):
    """Create the stub model.py (header only) if there is none; returns nothing (no stray Out[])."""
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(header())


def ensure_model_in(folder):
    """ensure_model for the model.py of a folder (a learner's workspace)."""
    ensure_model(os.path.join(folder, MODEL_FILE))


def check_stdlib_only(source, where=MODEL_FILE):
    """Raise ModelFileError naming the first import beyond the standard library."""
    bad = foreign_imports(source)
    if bad:
        raise ModelFileError(say("foreign_import", where=where, module=repr(bad[0])))


def save_section(name, source, path=MODEL_FILE):
    """Replace step `name`'s section of model.py with source, keeping every line the learner typed
    outside the sections; refuse (file untouched) if source is broken. Returns the new text."""
    step_number(name)
    source = without_markers(source)
    try:
        check_stdlib_only(source, where=say("your_cell", function=name))
    except SyntaxError as err:
        raise ModelFileError(say("cell_does_not_parse", function=name, error=err)) from None
    ensure_model(path)
    with open(path, encoding="utf-8") as f:
        header, parts = read_parts(f.read())
    text = compose(header, replaced(parts, name, source), step_number)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    sys.modules.pop("model", None)  # the next `import model` sees the new file
    return text


def load_model(path=MODEL_FILE, module_name="learner_model"):
    """model.py imported afresh from disk as its own module, damaged sections left out."""
    return load_module(path, module_name, step_number, lambda s: check_stdlib_only(s, where=path))


def broken_message(module, name):
    """A clear message when step `name`'s section of model.py does not parse, else None."""
    why = getattr(module, "BROKEN_SECTIONS", {}).get(name)
    if why:
        return say("section_does_not_parse", step=step_number(name), function=name, why=why)
    return None
