"""Part one in the progress view (../overview.py): its seven checkpoints and three artifacts."""

import os

from .. import overview
from ..sections import ModelFileError
from ..session import OUTPUTS
from .artifacts import ARTIFACT_CHECKS, ARTIFACT_NEEDS, NOTES_FILE, PERM_FILE, SCALE_FILE
from .modelfile import MODEL_FILE, STEPS, broken_message, load_model
from .steps import CHECKS

ORDER = 1  # the course's first part
NOTEBOOKS = {
    "softmax": "01-softmax",
    "attention": "02-attention",
    "causal_mask": "03-causal-mask",
    "multi_head": "04-multi-head",
    "pos_encoding": "05-positional-encoding",
    "layer_norm": "06-layer-norm",
    "block": "07-block",
    SCALE_FILE: "02-attention",
    PERM_FILE: "05-positional-encoding",
    NOTES_FILE: "08-notes",
}
say = overview.say


def checkpoint_item(name, model):
    """How one function's checkpoint stands on model.py."""
    notebook = NOTEBOOKS[name] + ".ipynb"
    if model is None or not hasattr(model, name):
        why = broken_message(model, name) if model is not None else None
        return overview.Item(name, "fails" if why else "not started", notebook, why or "")
    try:
        return overview.report_item(name, notebook, CHECKS[name](model))
    except Exception as err:  # a check that cannot even run on these functions is a failure
        return overview.stopped_item(name, notebook, err)


def artifact_item(filename, model, folder):
    """How one artifact in outputs/ stands."""
    notebook = NOTEBOOKS[filename] + ".ipynb"
    if not os.path.exists(os.path.join(folder, filename)):
        return overview.Item(filename, "not started", notebook)
    if model is None or not all(hasattr(model, n) for n in ARTIFACT_NEEDS[filename]):
        return overview.Item(filename, "fails", notebook, say("functions_missing", file=MODEL_FILE))
    try:
        return overview.report_item(filename, notebook, ARTIFACT_CHECKS[filename](model, folder))
    except Exception as err:
        return overview.stopped_item(filename, notebook, err)


def part_progress(folder="."):
    """Part one's items in a workspace: model.py's seven checkpoints, then outputs/' artifacts."""
    path = os.path.normpath(os.path.join(folder, MODEL_FILE))
    try:
        model = load_model(path) if os.path.exists(path) else None
    except (ModelFileError, SyntaxError):
        model = None
    items = [checkpoint_item(name, model) for name in STEPS]
    outputs = os.path.normpath(os.path.join(folder, OUTPUTS))
    items += [artifact_item(name, model, outputs) for name in ARTIFACT_CHECKS]
    return overview.Part("part_attention", tuple(items))
