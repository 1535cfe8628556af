"""The master notebooks as text: the form that is edited and reviewed.

Each master notebook notebooks/masters/attention/NN-name.ipynb has a twin in jupytext's percent
format, notebooks/text/attention/NN-name.py. The text form is the source; the .ipynb is written
from it. The text forms live outside notebooks/masters/ on purpose: everything in a part's folder
there ships to learners, and a text form holds the solutions.

python -m grading notebooks              # text forms -> .ipynb (what `make notebooks` runs)
python -m grading notebooks --check      # list every .ipynb that differs from its text form
python -m grading notebooks --to-text    # .ipynb -> text forms (after editing a master in
                                              # Jupyter; name notebooks to limit it: 06-layer-norm)

Writing a .ipynb that differs from its text form and is newer than it (someone edited it in
Jupyter) is refused, so those edits are not lost; --force overwrites it anyway.

In a text form every cell opens with `# %%` (code) or `# %% [markdown]`, followed by its metadata
as key=value pairs; the cell's id comes first (`# %% id="cell-02"`), then nbgrader's metadata
exactly as nbgrader stores it. The header holds the notebook's kernelspec and language_info and
nothing else (no jupytext version, so upgrading jupytext does not touch eight files). A new cell
without an id gets one from its grade_id, or from its position: give it an id to keep it stable.
The .ipynb has no outputs and no execution counts, and is formatted as nbformat writes it.
"""

import copy
import os

import jupytext
import nbformat

from grading.authoring import masters
from grading.parts import ASSIGNMENT, PARTS
from grading.paths import ROOT

TEXT_SOURCE = PARTS[ASSIGNMENT].text_forms  # the first part's: the default folder below
# Each part's master folder and the folder of its text forms.
FOLDERS = [(part.masters, part.text_forms) for part in PARTS.values()]
TEXT_EXTENSION = ".py"

# jupytext's percent format; only the kernelspec and language_info in the header; every cell
# metadata key kept (jupytext still drops its own ignored keys such as "trusted" or "collapsed").
FORMAT = {
    "extension": TEXT_EXTENSION,
    "format_name": "percent",
    "notebook_metadata_filter": "kernelspec,language_info,-jupytext",
    "cell_metadata_filter": "all",
}
# What jupytext records about the text's own layout when it reads it: not notebook content.
LAYOUT_KEYS = ("lines_to_next_cell",)


def rel(path):
    """A path as README writes it: relative to the repository root."""
    return os.path.relpath(path, ROOT)


def ipynb_path(stem, folder=masters.SOURCE):
    """notebooks/masters/attention/<stem>.ipynb."""
    return os.path.join(folder, stem + ".ipynb")


def text_path(stem, folder=TEXT_SOURCE):
    """notebooks/text/attention/<stem>.py."""
    return os.path.join(folder, stem + TEXT_EXTENSION)


def stems(folder, extension):
    """The names (without extension) of a folder's files of one kind, sorted."""
    if not os.path.isdir(folder):
        return []
    return sorted(f[: -len(extension)] for f in os.listdir(folder) if f.endswith(extension))


def to_text(book):
    """The percent-format text of a notebook: cell ids and all cell metadata, no outputs."""
    book = copy.deepcopy(book)
    for cell in book.cells:
        cell.metadata = {"id": cell.id, **cell.metadata}
    return jupytext.writes(book, fmt=dict(FORMAT))


def from_text(text):
    """The notebook a text form describes: ids restored, no outputs, no execution counts."""
    parsed = jupytext.reads(text, fmt=dict(FORMAT))
    metadata = {k: v for k, v in parsed.metadata.items() if k != "jupytext"}
    cells, used = [], set()
    for k, cell in enumerate(parsed.cells):
        meta = {key: v for key, v in cell.metadata.items() if key not in LAYOUT_KEYS}
        cell_id = (
            meta.pop("id", None) or meta.get("nbgrader", {}).get("grade_id") or f"cell-{k:02d}"
        )
        while cell_id in used:
            cell_id += "-b"
        used.add(cell_id)
        make = {
            "code": nbformat.v4.new_code_cell,
            "markdown": nbformat.v4.new_markdown_cell,
            "raw": nbformat.v4.new_raw_cell,
        }[cell.cell_type]
        cells.append(make(source=cell.source, metadata=meta, id=cell_id))
    return nbformat.v4.new_notebook(cells=cells, metadata=metadata)


def ipynb_json(book):
    """The .ipynb file's text as nbformat.write formats it (1-space indent, sorted keys)."""
    return nbformat.writes(book) + "\n"


def read(path):
    """A file's text."""
    with open(path, encoding="utf-8") as f:
        return f.read()


def write_if_changed(path, text):
    """Write text to path unless it already holds it; True when written."""
    if os.path.exists(path) and read(path) == text:
        return False
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    return True


def cell_label(k, cell):
    """How a difference names a cell: its position, id and type."""
    return f"cell {k} ({cell.get('id', '?')}, {cell.cell_type})"


def differences(book, expected):
    """What differs between a .ipynb and the notebook its text form describes, in words."""
    found = []
    if dict(book.metadata) != dict(expected.metadata):
        found.append("notebook metadata")
    if len(book.cells) != len(expected.cells):
        found.append(
            f"{len(book.cells)} cells in the .ipynb, {len(expected.cells)} in the text form"
        )
    for k, (cell, want) in enumerate(zip(book.cells, expected.cells)):
        label = cell_label(k, want)
        if cell.cell_type != want.cell_type:
            found.append(f"{label}: a {cell.cell_type} cell in the .ipynb")
            continue
        for field in ("id", "source", "metadata"):
            if cell.get(field) != want.get(field):
                found.append(f"{label}: {field}")
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count")):
            found.append(f"{label}: outputs or an execution count in the .ipynb")
    return found


def problems(source=masters.SOURCE, text_folder=TEXT_SOURCE):
    """Every way the master .ipynb files and their text forms disagree; [] when in sync."""
    books, texts = stems(source, ".ipynb"), stems(text_folder, TEXT_EXTENSION)
    found = []
    for stem in sorted(set(books) | set(texts)):
        nb_file, text_file = ipynb_path(stem, source), text_path(stem, text_folder)
        if stem not in texts:
            found.append(
                f"{rel(nb_file)} has no text form {rel(text_file)} "
                "(python -m grading notebooks --to-text writes it)"
            )
            continue
        if stem not in books:
            found.append(f"{rel(text_file)} has no {rel(nb_file)} (run: make notebooks)")
            continue
        expected = from_text(read(text_file))
        actual = read(nb_file)
        if actual == ipynb_json(expected):
            continue
        what = differences(nbformat.reads(actual, as_version=4), expected) or ["JSON formatting"]
        found.append(
            f"{rel(nb_file)} differs from {rel(text_file)}: {'; '.join(what)} (run: make notebooks)"
        )
    return found


def edited_after(nb_file, text_file, wanted):
    """True when the .ipynb was saved after its text form and holds something the text form lacks
    (outputs and execution counts aside: a notebook run in Jupyter loses nothing by rewriting)."""
    if not os.path.exists(nb_file) or os.path.getmtime(nb_file) <= os.path.getmtime(text_file):
        return False
    try:
        book = nbformat.reads(read(nb_file), as_version=4)
    except Exception:
        return False  # not a notebook any more (a merge conflict, say): nothing to keep
    for cell in book.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return ipynb_json(book) != wanted


def write_notebooks(source=masters.SOURCE, text_folder=TEXT_SOURCE, force=False, log=print):
    """Write every master .ipynb from its text form; return the problems that stopped a file."""
    refused = []
    for stem in stems(text_folder, TEXT_EXTENSION):
        nb_file, text_file = ipynb_path(stem, source), text_path(stem, text_folder)
        wanted = ipynb_json(from_text(read(text_file)))
        if not force and edited_after(nb_file, text_file, wanted):
            refused.append(
                f"{rel(nb_file)} was changed after {rel(text_file)} and differs from it: to keep "
                f"its edits run `python -m grading notebooks --to-text {stem}`; to discard "
                "them run `python -m grading notebooks --force`"
            )
            continue
        if write_if_changed(nb_file, wanted):
            log(f"wrote {rel(nb_file)} from {rel(text_file)}")
    for stem in sorted(set(stems(source, ".ipynb")) - set(stems(text_folder, TEXT_EXTENSION))):
        refused.append(
            f"{rel(ipynb_path(stem, source))} has no text form "
            "(python -m grading notebooks --to-text writes it)"
        )
    return refused


def write_texts(names=(), source=masters.SOURCE, text_folder=TEXT_SOURCE, log=print):
    """Write the text form of every master .ipynb (or of the named ones) from the .ipynb."""
    for stem in stems(source, ".ipynb"):
        if names and stem not in names:
            continue
        book = nbformat.read(ipynb_path(stem, source), as_version=4)
        if write_if_changed(text_path(stem, text_folder), to_text(book)):
            log(f"wrote {rel(text_path(stem, text_folder))} from {rel(ipynb_path(stem, source))}")


def arguments(parser, command):
    """`python -m grading notebooks [--check | --to-text [names] | --force]`."""
    then = parser.add_mutually_exclusive_group()
    then.add_argument("--check", action="store_true",
                      help="list every .ipynb that differs from its text form")  # fmt: skip
    then.add_argument("--to-text", action="store_true",
                      help="write text forms from the .ipynb (edited in Jupyter)")  # fmt: skip
    parser.add_argument("--force", action="store_true",
                        help="overwrite a .ipynb edited since its text form")  # fmt: skip
    parser.add_argument("names", nargs="*", help="with --to-text: only these notebooks")


def main(args):
    """Text forms to notebooks (or the reverse, or a comparison), both parts; the exit status."""
    names = [os.path.splitext(os.path.basename(a))[0] for a in args.names]
    known = {stem for source, _ in FOLDERS for stem in stems(source, ".ipynb")}
    if (names and not args.to_text) or set(names) - known:
        raise SystemExit("name notebooks only with --to-text, and only master notebooks")
    if args.to_text:
        for source, text_folder in FOLDERS:
            write_texts(names, source, text_folder)
        return 0
    if args.check:
        found = [line for source, text in FOLDERS for line in problems(source, text)]
    else:
        found = [
            line
            for source, text in FOLDERS
            for line in write_notebooks(source, text, force=args.force)
        ]
    for line in found:
        print(line)
    if not found:
        count = sum(len(stems(text, TEXT_EXTENSION)) for _, text in FOLDERS)
        print(f"all {count} master notebooks match their text forms")
    return 1 if found else 0
