"""Caps on what a notebook's kernel may print while it is graded, applied as each output arrives.

A kernel's memory is capped inside its sandbox, but what it prints lands in the grading process,
which keeps every output in the notebook it will write: one cell printing for 25 s once held
3.3 GB there. `CappedOutputs` (mixed into SandboxedExecute, so every lane that executes uses it)
counts each output as nbclient receives it, in the bytes it would take in the notebook's file;
past CELL_BYTES for a cell or NOTEBOOK_BYTES for the notebook, further output is dropped before it
is kept, and the cell says so in one line, in the notebook's edition.

The course's own outputs are far below: the solved part one's largest cell (the positional
encoding's picture) is about 0.2 MiB and its largest notebook about 0.3 MiB; eight notebooks at
the cap are still half of what a Dask worker sends back (scale/remote.py, MAX_PACKAGE_BYTES).
"""

import json

import nbformat

from checkpoints import i18n

CELL_BYTES = 2 << 20  # ten times the course's largest cell
NOTEBOOK_BYTES = 4 << 20  # over ten times the course's largest notebook
KEPT_CHARS = 200  # of an error's name and message, when the error itself is too large
NESTING = 32  # levels of lists and dicts an output may nest (nbformat indents each one a line)
ID_CHARS = 256  # a display id's length; a longer one is taken away (the output itself stays)
MAX_IDS = 1000  # display ids a notebook may make: nbclient keeps each one until it ends
LINE_BYTES = 12  # nbformat writes each line of a text as a string of its own, indented
OUTPUT_BYTES = 100  # an output's own keys and brackets in the file


def size_of(content, within=None):
    """The bytes an output with this content takes in the notebook's file, at most: its JSON
    indented as nbformat writes it, every non-ASCII character escaped (nbformat writes UTF-8,
    never longer), each line of text on a line of its own, and the output's own keys. Content
    whose text alone is longer than `within`, or that nests deeper than NESTING, is said to be
    within + 1 without writing its JSON (a flood's message can be hundreds of MB: another copy of
    it is what the caps are there to spare)."""
    chars, depth = text_length(content, within)
    if depth > NESTING or (within is not None and chars > within):
        return (within or 0) + 1
    dumped = json.dumps(content, indent=1)
    return len(dumped) + LINE_BYTES * dumped.count("\\n") + OUTPUT_BYTES


def text_length(value, within=None):
    """(characters of every string in a JSON value, its deepest nesting), without a copy and
    without recursion; counting stops past `within` characters or NESTING levels."""
    chars, deepest, stack = 0, 0, [(value, 0)]
    while stack and deepest <= NESTING and (within is None or chars <= within):
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(item, str):
            chars += len(item)
        elif isinstance(item, dict):
            chars += sum(len(str(key)) for key in item)
            stack += [(v, depth + 1) for v in item.values()]
        elif isinstance(item, list | tuple):
            stack += [(v, depth + 1) for v in item]
    return chars, deepest


def shown_size(output, within=None):
    """size_of what a display update replaces in an output: its data and their metadata."""
    return size_of({"data": output.get("data"), "metadata": output.get("metadata")}, within)


def mebibytes(count):
    """A byte count as the notes say it: '2 MiB'."""
    return f"{count / 2**20:g} MiB"


class Budget:
    """What a notebook's outputs still may take: per cell and in all, less what was cleared."""

    def __init__(self, cell=CELL_BYTES, notebook=NOTEBOOK_BYTES):
        self.cell_cap, self.notebook_cap = cell, notebook
        self.held = {}  # cell index -> bytes its outputs hold now
        self.noted = set()  # cells whose note was written in this run
        self.ids = set()  # the display ids kept
        self.cut = {}  # cell index -> "cell" or "notebook": which cap dropped its output, first

    def total(self):
        """The bytes every cell's outputs hold now."""
        return sum(self.held.values())

    def fits(self, index, size):
        """Whether size more bytes may join cell index; if not, which cap says no is noted."""
        if self.held.get(index, 0) + size > self.cell_cap:
            self.cut.setdefault(index, "cell")
            return False
        if self.total() + size > self.notebook_cap:
            self.cut.setdefault(index, "notebook")
            return False
        return True

    def add(self, index, size):
        """Count size bytes (fewer, if negative: an update that shrank) in cell index."""
        self.held[index] = max(0, self.held.get(index, 0) + size)

    def take(self, index, size):
        """Whether an output of size bytes may join cell index (then it is counted)."""
        if not self.fits(index, size):
            return False
        self.add(index, size)
        return True

    def cleared(self, index):
        """Cell index's outputs were cleared: they no longer count."""
        self.held.pop(index, None)

    def first_drop(self, index):
        """Whether this is the first output dropped in the cell in this run (the note is written
        once a cell, however often the cell clears itself)."""
        if index in self.noted:
            return False
        self.noted.add(index)
        return True

    def admit_id(self, display_id):
        """Whether a display id may be kept: short, and one of the first MAX_IDS (never refunded:
        nbclient keeps every id it saw until the notebook ends)."""
        if not isinstance(display_id, str) or len(display_id) > ID_CHARS:
            return False
        if display_id not in self.ids and len(self.ids) >= MAX_IDS:
            return False
        self.ids.add(display_id)
        return True

    def note(self, index, edition):
        """The one line a cell shows where its output was dropped, in the notebook's edition."""
        if self.cut.get(index) == "cell":
            return i18n.lookup("judge", "output_cut_cell", edition).format(
                limit=mebibytes(self.cell_cap)
            )
        return i18n.lookup("judge", "output_cut_notebook", edition).format(
            limit=mebibytes(self.notebook_cap)
        )

    def problem(self, notebook):
        """The sentence grades.csv gets when a cap was hit in this notebook, else None."""
        if not self.cut:
            return None
        cells = ", ".join(str(index + 1) for index in sorted(self.cut))
        caps = sorted(set(self.cut.values()))
        said = " and ".join(
            f"{mebibytes(self.cell_cap)} per cell" if cap == "cell"
            else f"{mebibytes(self.notebook_cap)} per notebook" for cap in caps
        )  # fmt: skip
        return (
            f"{notebook}: output capped ({said}) in cell {cells} (counting every cell from 1); "
            "the rest was dropped as it came (scores come from the judge, so none are lost)"
        )


class CappedOutputs:
    """nbclient's output handling with a Budget: an output over the caps is never kept.

    Mixed in before nbgrader's Execute (a NotebookClient). Set `budget` and `edition` before
    each notebook. Widgets are not mimicked (no widget state kept, no Output widget), so every
    output takes the one path counted here.
    """

    budget = None
    edition = i18n.DEFAULT
    _cell_index = None  # the cell whose messages are being handled

    def process_message(self, msg, cell, cell_index):
        """nbclient's, noting which cell a display update arrives in; an execution count that is
        not a number, and a display id too long or one too many, are taken away first (nbclient
        keeps both as they come, outside any output)."""
        self._cell_index = cell_index
        content = msg.get("content")
        if isinstance(content, dict):
            if not isinstance(content.get("execution_count"), int | None):
                del content["execution_count"]
            transient = content.get("transient")
            shown_as = transient.get("display_id") if isinstance(transient, dict) else None
            if shown_as is not None and not self.budget.admit_id(shown_as):
                content["transient"] = {}  # an output without an id: counted as any other
        return super().process_message(msg, cell, cell_index)

    def output(self, outs, msg, display_id, cell_index):
        """Keep an output only within the budget; the first one dropped leaves the note."""
        if self.clear_before_next_output:  # the delayed clear happens now, kept output or not
            outs[:] = []
            self.clear_display_id_mapping(cell_index)
            self.clear_before_next_output = False
            self.budget.cleared(cell_index)
        if self.budget.take(cell_index, size_of(msg["content"], self.budget.cell_cap)):
            return super().output(outs, msg, display_id, cell_index)
        self.drop(outs, cell_index)
        return None

    def clear_output(self, outs, msg, cell_index):
        """nbclient's; a cell cleared now no longer holds what it printed."""
        super().clear_output(outs, msg, cell_index)
        if not outs:
            self.budget.cleared(cell_index)

    def _update_display_id(self, display_id, msg):
        """An update rewrites every output shown under its id, in any cell: what it adds to each
        counts in the cell that holds it, and it is made only if every such cell has room."""
        new = shown_size(msg["content"], self.budget.cell_cap)
        grows = {}
        for index, found in self._display_id_map.get(display_id, {}).items():
            outputs = self.nb.cells[index].outputs
            grows[index] = sum(new - shown_size(outputs[k]) for k in found if k < len(outputs))
        refused = [i for i, grow in grows.items() if grow > 0 and not self.budget.fits(i, grow)]
        if not refused:
            for index, grow in grows.items():
                self.budget.add(index, grow)
            super()._update_display_id(display_id, msg)
            return
        self.budget.cut.setdefault(self._cell_index, self.budget.cut[refused[0]])
        self.drop(self.nb.cells[self._cell_index].outputs, self._cell_index)

    def on_cell_executed(self, **kwargs):
        """nbgrader's, which adds the reply's error when no output showed it: within the budget
        too (an error dropped here keeps its name, shortened, and the note as its traceback)."""
        cell = kwargs["cell"]
        before = len(cell.outputs)
        super().on_cell_executed(**kwargs)
        index = kwargs["cell_index"]
        for k in range(before, len(cell.outputs)):
            added = cell.outputs[k]
            size = size_of(added, self.budget.cell_cap)  # its text first: it may be huge
            if added.get("output_type") == "error" and not self.budget.take(index, size):
                cell.outputs[k] = nbformat.v4.new_output(
                    "error",
                    ename=str(added.get("ename", ""))[:KEPT_CHARS],
                    evalue=str(added.get("evalue", ""))[:KEPT_CHARS],
                    traceback=[self.budget.note(index, self.edition)],
                )

    def on_comm_open_jupyter_widget(self, msg):
        """No widget is mimicked: its outputs and state would bypass the budget."""
        return None

    def drop(self, outs, index):
        """The output is not kept; the cell gets the note once."""
        if self.budget.first_drop(index):
            note = self.budget.note(index, self.edition) + "\n"
            outs.append(nbformat.v4.new_output("stream", name="stdout", text=note))
