"""Part one in the progress view (../overview.py): its seven checkpoints and three artifacts."""

import os

from .. import overview
from ..sections import ModelFileError
from ..session import OUTPUTS
from .artifacts import ARTIFACT_CHECKS, ARTIFACT_NEEDS, NOTES_FILE, PERM_FILE, SCALE_FILE
from .modelfile import MODEL_FILE, STEPS, broken_message, load_model
from .steps import CHECKS

ORDER = 1  # the course's first part
FOLDER = "part-1-attention"  # its folder in a workspace: its notebooks, model.py, outputs/
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


def checkpoint_item(name, model):
    """How one function's checkpoint stands on model.py."""
    notebook = NOTEBOOKS[name] + ".ipynb"
    if model is None or not hasattr(model, name):
        why = broken_message(model, name) if model is not None else None
        return overview.Item(name, "fails" if why else "not started", notebook, why or "")
    return overview.checked_item(name, notebook, lambda: CHECKS[name](model))


def artifact_item(filename, model, folder):
    """How one artifact in outputs/ stands, checked against the learner's own functions."""
    ready = model is not None and all(hasattr(model, n) for n in ARTIFACT_NEEDS[filename])
    return overview.artifact_item(
        filename, NOTEBOOKS[filename] + ".ipynb", folder, None if ready else MODEL_FILE,
        lambda: ARTIFACT_CHECKS[filename](model, folder),
    )  # fmt: skip


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
