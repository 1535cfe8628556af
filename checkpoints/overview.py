"""Where the learner stands: each part's checkpoints and artifacts, held, failing or not started.

    from checkpoints import progress; progress()        # in part one's notebooks
    from checkpoints.xslm import progress; progress()   # in part two's
    python -m checkpoints progress                      # in a terminal, in a part's folder

Every view shows each part this package holds, in the course's order, so one part never says
"done" while another is still open; each part is read from its own folder of the workspace. A
part takes part by having a `status` module with ORDER, FOLDER and `part_progress(folder)` (not
named `progress`: that is the function each part's package exports); a part's release ships its
own part only, and then shows only it.
"""

import html
import importlib
import os
import pkgutil
from dataclasses import dataclass

from . import i18n

SYMBOLS = {"holds": "✓", "fails": "✗", "not started": "·"}
STATUS_WORDS = {"holds": "holds", "fails": "fails", "not started": "not_started"}  # keys of words
COLOURS = {"holds": "#1a7f37", "fails": "#b3261e", "not started": "#6e7781"}

say = i18n.speaker("progress")  # locales/<edition>.json, section "progress"


def status_word(status):
    """How the learner reads a status ("holds", "fails", "not started") in this edition."""
    return say(STATUS_WORDS[status])


@dataclass(frozen=True)
class Item:
    """One checkpoint or artifact in the progress view."""

    name: str  # the function (softmax, Value) or the artifact file (02-scale.txt)
    status: str  # "holds", "fails" or "not started" (shown as status_word(status))
    notebook: str  # where it is built: 01-softmax.ipynb
    detail: str = ""  # the failing summary and the diagnosis, in a few words


def checked_item(name, notebook, make_report):
    """The Item of a checkpoint or artifact from its report (make_report()); a check that cannot
    even run on the learner's code fails, saying so."""
    try:
        report = make_report()
    except Exception as err:  # the learner's code may fail in any way
        return Item(name, "fails", notebook, say("check_stopped", error=type(err).__name__))
    if report.passed:
        return Item(name, "holds", notebook)
    if getattr(report, "diagnosis", ()):
        detail = say("fails_like", outcome=report.outcome(), mistake=report.diagnosis[0].title)
        return Item(name, "fails", notebook, detail)
    return Item(name, "fails", notebook, report.outcome())


def artifact_item(filename, notebook, folder, missing_from, make_report):
    """An artifact in outputs/: not started without its file; failing while the functions that
    make it are missing (missing_from: the file they belong in), else as its report says."""
    if not os.path.exists(os.path.join(folder, filename)):
        return Item(filename, "not started", notebook)
    if missing_from:
        return Item(filename, "fails", notebook, say("functions_missing", file=missing_from))
    return checked_item(filename, notebook, make_report)


@dataclass(frozen=True)
class Part:
    """One part's items, under its name."""

    name: str  # the key of its name in the "progress" words: part_attention, part_xslm
    items: tuple

    def heading(self):
        """`<part>: <done> of <count> hold`."""
        done = sum(i.status == "holds" for i in self.items)
        return say("heading", part=say(self.name), done=done, count=len(self.items))


@dataclass(frozen=True)
class Progress:
    """The whole course's state, readable in a terminal and in Jupyter."""

    parts: tuple

    @property
    def items(self):
        """Every part's items, in the course's order."""
        return tuple(i for part in self.parts for i in part.items)

    def next_step(self):
        """What to do next: the first item that does not hold yet, or that all are done."""
        todo = next((i for i in self.items if i.status != "holds"), None)
        if todo is None:
            return say("all_done")
        next_one = "next_fix" if todo.status == "fails" else "next_start"
        return say(next_one, item=todo.name, notebook=todo.notebook)

    def __repr__(self):
        lines, width = [], max([13] + [len(i.name) + 1 for i in self.items])
        for part in self.parts:
            lines.append(part.heading())
            for i in part.items:
                word = f"{status_word(i.status):12}"
                lines.append(f"  {SYMBOLS[i.status]} {i.name:{width}} {word} {i.detail}".rstrip())
        return "\n".join(lines + [self.next_step()])

    def _repr_html_(self):
        columns = ("column_step", "column_status", "column_details", "column_notebook")
        heads = "".join(f"<th>{html.escape(say(c))}</th>" for c in columns)
        rows = "".join(
            f"<tr><th colspan='5' style='text-align:left'>{html.escape(part.heading())}</th></tr>"
            + "".join(row(i) for i in part.items)
            for part in self.parts
        )
        return (
            f"<table><tr><th></th>{heads}</tr>"
            f"{rows}</table><p><b>{html.escape(self.next_step())}</b></p>"
        )


def row(i):
    """One item as a table row."""
    return (
        f"<tr><td style='color:{COLOURS[i.status]};font-weight:bold'>{SYMBOLS[i.status]}</td>"
        f"<td><code>{html.escape(i.name)}</code></td><td>{html.escape(status_word(i.status))}</td>"
        f"<td>{html.escape(i.detail)}</td><td>{html.escape(i.notebook)}</td></tr>"
    )


def parts_here():
    """The status modules of the parts this package holds, in the course's order."""
    package = os.path.dirname(os.path.abspath(__file__))
    found = []
    for sub in pkgutil.iter_modules([package]):
        if sub.ispkg and os.path.isfile(os.path.join(package, sub.name, "status.py")):
            found.append(importlib.import_module(f"{__package__}.{sub.name}.status"))
    return sorted(found, key=lambda module: module.ORDER)


def part_folder(folder, part):
    """Where part's files are, seen from folder: its sibling of that part's name when folder is
    another part's folder (a workspace holds part-1-attention/ and part-2-gpt/ side by side);
    else folder itself when it holds a notebook of the part (that part's folder, or a workspace
    of the older flat layout); else its child of that name, if there is one, else folder."""
    here = os.path.abspath(folder)
    others = {module.FOLDER for module in parts_here()} - {part.FOLDER}
    if os.path.basename(here) in others:
        return os.path.join(os.path.dirname(here), part.FOLDER)
    if any(os.path.isfile(os.path.join(here, f"{n}.ipynb")) for n in part.NOTEBOOKS.values()):
        return here
    child = os.path.join(here, part.FOLDER)
    return child if os.path.isdir(child) else here


def progress(folder="."):
    """Every part's steps and artifacts checked in a workspace, never stopping at a failure."""
    return Progress(tuple(p.part_progress(part_folder(folder, p)) for p in parts_here()))
