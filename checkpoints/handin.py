"""One zip of a part's work, to download and hand in (the in-browser course keeps files in the
browser, one download at a time; this makes it one download).

from checkpoints import hand_in; hand_in()          # part one: hand-in-attention.zip
from checkpoints.xslm import hand_in; hand_in()     # part two: hand-in-xslm.zip

The instructor puts each learner's zip in downloaded/<part>/archive/<student>.zip and runs
`make collect` (nbgrader zip_collect), then grades as usual.
"""

import html
import json
import os
import zipfile
from dataclasses import dataclass, field

from . import i18n
from .session import OUTPUTS, STARTED

say = i18n.speaker("handin")  # locales/<edition>.json, section "handin"


def part_notebooks(folder, prefix):
    """The notebooks in folder that belong to a part: their nbgrader grade ids start with prefix."""
    return [name for name, _ in read_notebooks(folder, prefix)]


def read_notebooks(folder, prefix):
    """[(name, cells)] of the part's notebooks in folder (see part_notebooks)."""
    found = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".ipynb"):
            continue
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                cells = json.load(f).get("cells", [])
            ids = [c.get("metadata", {}).get("nbgrader", {}).get("grade_id", "") for c in cells]
        except (OSError, ValueError, AttributeError):
            continue  # not a notebook this function can read; the learner sees it is missing
        if any(i.startswith(prefix) for i in ids):
            found.append((name, cells))
    return found


def saved_before_this_run(folder, books):
    """Those of books ([(name, cells)]) that hold the hand_in() cell and were last saved before
    this kernel's run began: the zip has them without this run's outputs and edits (a headless
    run writes the notebook back only after its last cell)."""
    calling = [name for name, cells in books
               if any("hand_in(" in "".join(c.get("source", "")) for c in cells
                      if c.get("cell_type") == "code")]  # fmt: skip
    return [name for name in calling if os.path.getmtime(os.path.join(folder, name)) < STARTED]


@dataclass
class HandIn:
    """What went into the zip, and what a complete hand-in would still need."""

    zip_name: str
    files: list
    missing: list
    has_notebooks: bool = True
    unsaved: list = field(default_factory=list)

    def lines(self):
        """The report as plain lines, in the learner's edition."""
        lines = [say("written", zip=self.zip_name, count=len(self.files))]
        if not self.has_notebooks:
            lines.append(say("no_notebooks"))
        if self.missing:
            lines.append(say("missing", files=", ".join(self.missing)))
        if self.unsaved:
            lines.append(say("saved_before_run", notebooks=", ".join(self.unsaved)))
        return lines + [say("download", zip=self.zip_name)]

    def __repr__(self):
        return "\n".join(self.lines())

    def _repr_html_(self):
        items = "".join(f"<li><code>{html.escape(f)}</code></li>" for f in self.files)
        head, *rest = (html.escape(line) for line in self.lines())
        return f"<p>✓ {head}</p><ul>{items}</ul>" + "".join(f"<p>{line}</p>" for line in rest)


def hand_in(part, prefix, saved_files, artifacts, folder="."):
    """Write hand-in-<part>.zip in folder: the part's notebooks, the files its steps save into,
    and its outputs/ artifacts; returns a HandIn saying what is in it and what is not yet."""
    books = read_notebooks(folder, prefix)
    notebooks = [name for name, _ in books]
    wanted = notebooks + list(saved_files) + [f"{OUTPUTS}/{a}" for a in artifacts]
    present = [f for f in wanted if os.path.isfile(os.path.join(folder, f))]
    zip_name = f"hand-in-{part}.zip"
    with zipfile.ZipFile(os.path.join(folder, zip_name), "w", zipfile.ZIP_DEFLATED) as z:
        for name in present:
            z.write(os.path.join(folder, name), name)
    missing = [f for f in wanted if f not in present]
    return HandIn(zip_name, present, missing, has_notebooks=bool(notebooks),
                  unsaved=saved_before_this_run(folder, books))  # fmt: skip
