"""Part two in the progress view (../overview.py): its eight checkpoints and two artifacts."""

import os

from .. import overview
from ..sections import ModelFileError
from ..session import OUTPUTS
from . import artifacts, files
from .checks import CHECKS, Local, checkpoint_report

ORDER = 2  # after part one
FOLDER = "part-2-gpt"  # its folder in a workspace: its notebooks, engine.py, gpt.py, outputs/
NOTEBOOKS = {
    "Value": "01-engine",
    "softmax": "02-layers",
    "linear": "02-layers",
    "norm": "02-layers",
    "GPT": "03-gpt",
    "loss": "04-training",
    "train_step": "04-training",
    "generate": "05-generate",
    artifacts.LOSS_FILE: "04-training",
    artifacts.SAMPLES_FILE: "05-generate",
}


def load(folder):
    """{file: (module, why)}: engine.py and gpt.py as checkpoints load them (gpt.py importing
    that very engine), or why one could not be loaded (None, None: not there yet)."""
    loaded = {files.ENGINE_FILE: (None, None), files.GPT_FILE: (None, None)}
    present = [name for name in loaded if os.path.exists(os.path.join(folder, name))]
    for filename in reversed(present):  # both at once first; engine.py alone if that fails
        try:
            engine, gpt = files.load_learner(folder, with_gpt=filename == files.GPT_FILE)
        except (ModelFileError, SyntaxError) as err:
            loaded[filename] = None, str(err)
        except Exception as err:  # the learner's code raised while loading
            loaded[filename] = None, f"{type(err).__name__}: {err}"
        else:
            loaded[files.ENGINE_FILE] = engine, None
            if filename == files.GPT_FILE:
                loaded[files.GPT_FILE] = gpt, None
            break
    return loaded


def checkpoint_item(name, loaded):
    """How one checkpoint stands on engine.py and gpt.py (loaded: {file: (module, why)})."""
    notebook = NOTEBOOKS[name] + ".ipynb"
    module, why = loaded[files.file_of(name)]
    why = why or getattr(module, "BROKEN_SECTIONS", {}).get(name)
    if why:
        return overview.Item(name, "fails", notebook, why)
    if module is None or not hasattr(module, name):
        return overview.Item(name, "not started", notebook)
    run = Local(loaded[files.ENGINE_FILE][0], loaded[files.GPT_FILE][0])
    return overview.checked_item(name, notebook, lambda: checkpoint_report(name, run))


def artifact_item(filename, loaded, folder):
    """How one of part two's artifacts in outputs/ stands, made again with the learner's files."""
    engine, gpt = loaded[files.ENGINE_FILE][0], loaded[files.GPT_FILE][0]
    ready = gpt is not None and all(hasattr(gpt, n) for n in artifacts.ARTIFACTS[filename])

    def report():
        held_out_loss, generate_text = artifacts.learner_model(engine, gpt)
        if filename == artifacts.LOSS_FILE:
            return artifacts.loss_report(folder, held_out_loss)
        return artifacts.samples_report(folder, generate_text)

    return overview.artifact_item(
        filename, NOTEBOOKS[filename] + ".ipynb", folder, None if ready else files.GPT_FILE, report
    )


def part_progress(folder="."):
    """Part two's items in a workspace: its eight checkpoints, then its two artifacts."""
    loaded = load(folder)
    items = [checkpoint_item(name, loaded) for name in CHECKS]
    outputs = os.path.normpath(os.path.join(folder, OUTPUTS))
    items += [artifact_item(name, loaded, outputs) for name in artifacts.ARTIFACTS]
    return overview.Part("part_xslm", tuple(items))
