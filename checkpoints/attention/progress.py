"""All eight checkpoints at a glance: which hold, which fail (and why), which wait; what next.

from checkpoints import progress; progress()      # in any notebook
python -m checkpoints progress                     # in a terminal, from your workspace
"""

import html
import os
from dataclasses import dataclass

from .. import i18n
from ..sections import ModelFileError
from .artifacts import ARTIFACT_CHECKS, ARTIFACT_NEEDS, NOTES_FILE, OUTPUTS, PERM_FILE, SCALE_FILE
from .modelfile import STEPS, broken_message, load_model
from .steps import CHECKS

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
SYMBOLS = {"holds": "✓", "fails": "✗", "not started": "·"}
STATUS_WORDS = {"holds": "holds", "fails": "fails", "not started": "not_started"}  # keys of words


say = i18n.speaker("progress")  # locales/<edition>.json, section "progress"


def status_word(status):
    """How the learner reads a status ("holds", "fails", "not started") in this edition."""
    return say(STATUS_WORDS[status])


@dataclass(frozen=True)
class Item:
    """One checkpoint or artifact in the progress view."""

    name: str  # the function (softmax) or the artifact file (02-scale.txt)
    status: str  # "holds", "fails" or "not started" (shown as status_word(status))
    detail: str = ""  # the failing summary and the diagnosis, in a few words

    @property
    def notebook(self):
        """The notebook where this item is built."""
        return NOTEBOOKS[self.name] + ".ipynb"


def checkpoint_item(name, model):
    """How one function's checkpoint stands on model.py."""
    if model is None or not hasattr(model, name):
        why = broken_message(model, name) if model is not None else None
        return Item(name, "fails" if why else "not started", why or "")
    try:
        report = CHECKS[name](model)
    except Exception as err:  # a check that cannot even run on these functions is a failure
        return Item(name, "fails", say("check_stopped", error=type(err).__name__))
    if report.passed:
        return Item(name, "holds")
    if report.diagnosis:
        detail = say("fails_like", outcome=report.outcome(), mistake=report.diagnosis[0].title)
        return Item(name, "fails", detail)
    return Item(name, "fails", report.outcome())


def artifact_item(filename, model, folder=OUTPUTS):
    """How one artifact in outputs/ stands."""
    if not os.path.exists(os.path.join(folder, filename)):
        return Item(filename, "not started")
    if model is None or not all(hasattr(model, n) for n in ARTIFACT_NEEDS[filename]):
        return Item(filename, "fails", say("functions_missing"))
    try:
        report = ARTIFACT_CHECKS[filename](model, folder)
    except Exception as err:
        return Item(filename, "fails", say("check_stopped", error=type(err).__name__))
    return Item(filename, "holds") if report.passed else Item(filename, "fails", report.outcome())


@dataclass(frozen=True)
class Progress:
    """The whole course's state, readable in a terminal and in Jupyter."""

    items: tuple

    def next_step(self):
        """What to do next: the first item that does not hold yet, or that all are done."""
        todo = next((i for i in self.items if i.status != "holds"), None)
        if todo is None:
            return say("all_done")
        next_one = "next_fix" if todo.status == "fails" else "next_start"
        return say(next_one, item=todo.name, notebook=todo.notebook)

    def __repr__(self):
        done = sum(i.status == "holds" for i in self.items)
        lines = [say("heading", done=done, count=len(self.items))]
        for i in self.items:
            word = status_word(i.status)
            lines.append(f"  {SYMBOLS[i.status]} {i.name:13} {word:12} {i.detail}".rstrip())
        return "\n".join(lines + [self.next_step()])

    def _repr_html_(self):
        colours = {"holds": "#1a7f37", "fails": "#b3261e", "not started": "#6e7781"}
        rows = "".join(
            f"<tr><td style='color:{colours[i.status]};font-weight:bold'>{SYMBOLS[i.status]}</td>"
            f"<td><code>{html.escape(i.name)}</code></td><td>{html.escape(status_word(i.status))}</td>"
            f"<td>{html.escape(i.detail)}</td><td>{html.escape(i.notebook)}</td></tr>"
            for i in self.items
        )
        columns = ("column_step", "column_status", "column_details", "column_notebook")
        heads = "".join(f"<th>{html.escape(say(c))}</th>" for c in columns)
        return (
            f"<table><tr><th></th>{heads}</tr>"
            f"{rows}</table><p><b>{html.escape(self.next_step())}</b></p>"
        )


def progress(path="model.py", folder=OUTPUTS):
    """Check every step and artifact (never stopping at the first failure); return the view."""
    try:
        model = load_model(path) if os.path.exists(path) else None
    except (ModelFileError, SyntaxError):
        model = None
    items = [checkpoint_item(name, model) for name in STEPS]
    items += [artifact_item(name, model, folder) for name in ARTIFACT_CHECKS]
    return Progress(tuple(items))
