"""Language editions: the English master notebooks with another language's prose put in.

    python -m grading editions check [ko ja ...]   # every edition complete and its code unchanged
    python -m grading editions build ko [xslm]      # build/editions/ko/attention (or xslm):
                                                    # nbgrader's source for that part
    python -m grading editions stamp ko             # the ko sections translate today's English

One source of truth: the master notebooks (notebooks/masters/attention and part two's
notebooks/masters/xslm, edited as notebooks/text) hold the code, the nbgrader metadata and the
English prose. An edition adds, in notebooks/editions/<code>/ (both parts' notebooks side by
side: their names differ):

    <notebook>.md    one section per cell, `<!-- cell: <id> -->` then the cell's text: every
                     markdown cell, and any code cell without grading metadata whose comments or
                     printed words it translates (a ```python block whose code is the master's,
                     the words of its comments and strings aside); so may a solution cell that
                     only writes words (the notes of step 8, the conclusion of step 5)
    edition.json     {"name": "한국어", "your_code_here": "…", "not_implemented": "…",
                     "english_kept": ["dog bites man", …]}: the edition's name, the words of the
                     stub nbgrader leaves where a solution was (grader_config.code_stub), and
                     English the translation quotes on purpose
    glossary.md      the terms the translation uses, one per row
    translated-from.json   a digest of the English each section was made from (`stamp`), so
                     `check` says which sections an English edit has made stale
    lab/overrides.json   JupyterLab's language for `make lab EDITION=<code>` (its language pack
                     pinned in requirements.txt)

and the learner-side messages are checkpoints/locales/<code>.json. Cells with grading metadata are
never translated: they are the same, byte for byte, in every edition, so one gradebook grades a
mixed class. Adding a language is adding these files.
"""

import ast
import hashlib
import io
import json
import os
import re
import shutil
import tokenize

import nbformat

from checkpoints import i18n
from grading.authoring.masters import SOURCE, notebooks
from grading.parts import ASSIGNMENT, PARTS
from grading.paths import EDITION_SOURCES, EDITIONS_BUILT

EDITIONS = EDITION_SOURCES
BUILD = EDITIONS_BUILT
ENGLISH = i18n.DEFAULT  # the masters' own language
MARKER = re.compile(r"^<!-- cell: (\S+) -->\s*$", re.M)
FENCE = re.compile(r"\A```python\n(.*)\n```\Z", re.S)


def languages():
    """Every edition: English first, then each folder of notebooks/editions."""
    found = sorted(d for d in os.listdir(EDITIONS) if os.path.isdir(os.path.join(EDITIONS, d)))
    return [ENGLISH] + [d for d in found if d != ENGLISH]


def details(code):
    """An edition's edition.json (English: its name and nbgrader's stub as grader_config has it)."""
    if code == ENGLISH:
        return {"name": "English"}
    with open(os.path.join(EDITIONS, code, "edition.json"), encoding="utf-8") as f:
        return json.load(f)


LAB_LANGUAGE = "@jupyterlab/translation-extension:plugin"  # the setting that holds the locale


def lab_settings(code):
    """JupyterLab's settings overrides for an edition (lab/overrides.json: its interface's
    language), or {} (English, the interface's own)."""
    path = os.path.join(EDITIONS, code, "lab", "overrides.json")
    if code == ENGLISH or not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def lab_locale(code):
    """The locale an edition's JupyterLab speaks (ko_KR), or None (English, the interface's own)."""
    return lab_settings(code).get(LAB_LANGUAGE, {}).get("locale")


def master_notebooks(assignment=None):
    """{notebook file name: its master folder}, both parts in order (or one part's)."""
    parts = [assignment] if assignment else list(PARTS)
    return {name: PARTS[p].masters for p in parts for name in notebooks(PARTS[p].masters)}


def sections(code, notebook):
    """{cell id: text} of one notebook's translation file (ordered as written)."""
    path = os.path.join(EDITIONS, code, notebook.replace(".ipynb", ".md"))
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parts = MARKER.split(text)
    return {cell: body.strip("\n") for cell, body in zip(parts[1::2], parts[2::2])}


class Unworded(ast.NodeTransformer):
    """A syntax tree with every string's words taken out (f-strings keep their fields)."""

    def visit_Constant(self, node):
        """A string becomes the empty string; other constants stay."""
        return ast.Constant("") if isinstance(node.value, str) else node

    def visit_JoinedStr(self, node):
        """An f-string keeps only its {fields}, in order."""
        node.values = [self.visit(v) for v in node.values if isinstance(v, ast.FormattedValue)]
        return node


def same_code_but_words(a, b):
    """Two code cells are the same program once the words of their strings are taken out."""
    try:
        return ast.dump(Unworded().visit(ast.parse(a))) == ast.dump(Unworded().visit(ast.parse(b)))
    except SyntaxError:
        return False


def words_cell(cell):
    """A solution cell that only writes words (the notes, a conclusion): an edition may translate
    its strings. Cells that define a function never: model.py is the same in every edition."""
    info = cell.metadata.get("nbgrader", {})
    if cell.cell_type != "code" or not info.get("solution") or info.get("locked"):
        return False
    try:
        tree = ast.parse(cell.source)
    except SyntaxError:
        return False
    return not any(isinstance(node, ast.FunctionDef | ast.ClassDef) for node in ast.walk(tree))


def translated(code, notebook):
    """(the master notebook in this edition, [problems]): markdown and comments replaced."""
    book = nbformat.read(os.path.join(master_notebooks()[notebook], notebook), as_version=4)
    if code == ENGLISH:
        return book, []
    texts, problems = sections(code, notebook), []
    known = {cell.id for cell in book.cells}
    problems += [f"{notebook}: no cell {c!r} in the master" for c in texts if c not in known]
    for cell in book.cells:
        text = texts.get(cell.id)
        if cell.cell_type == "markdown":
            if text is None:
                problems.append(f"{notebook}: markdown cell {cell.id!r} is not translated")
            else:
                cell.source = text
        elif text is not None:
            fenced = FENCE.match(text)
            if "nbgrader" in cell.metadata and not words_cell(cell):
                problems.append(f"{notebook}: {cell.id!r} has grading metadata: never translated")
            elif not fenced or not same_code_but_words(fenced.group(1), cell.source):
                problems.append(f"{notebook}: code cell {cell.id!r} is not the master's code")
            else:
                cell.source = fenced.group(1)
    book.metadata["attention"] = {"edition": code}
    return book, problems


ENGLISH_RUN = re.compile(r"\b[A-Za-z]{2,}(?:[ ,;:'-]+[A-Za-z]{2,}){2,}\b")  # three words in a row
NOT_PROSE = [
    re.compile(r"```.*?```", re.S),  # code blocks
    re.compile(r"\$\$.*?\$\$", re.S),  # display maths
    re.compile(r"\$[^$\n]*\$"),  # inline maths
    re.compile(r"`[^`\n]*`"),  # code spans
    re.compile(r"<[^>\n]*>"),  # HTML tags and comments
    re.compile(r"https?://\S+"),  # links
]


UNSHIPPED = re.compile(r"### BEGIN (SOLUTION|HIDDEN TESTS).*?### END \1", re.S)  # not released
MARKERS = re.compile(r"#* ?(BEGIN|END) (SOLUTION|HIDDEN TESTS)\s*$")


def english_in(text):
    """Runs of three or more English words in text, once code, maths and markup are taken out."""
    for pattern in NOT_PROSE:
        text = pattern.sub(" ", text)
    return ENGLISH_RUN.findall(text)


def comments(source):
    """The text of a code cell's # comments and of its strings (what it prints is prose too)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
        tree = ast.parse(source)
    except (tokenize.TokenError, SyntaxError):
        return []
    strings = [
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]
    return [t.string.lstrip("#") for t in tokens if t.type == tokenize.COMMENT] + strings


def english_left(code):
    """[(notebook, cell id, words)]: English prose still in an edition's notebooks (markdown and
    code comments; nbgrader's solution and hidden-test markers aside)."""
    kept = set(details(code).get("english_kept", [])) if code != ENGLISH else set()
    found = []
    for notebook in master_notebooks():
        book = translated(code, notebook)[0]
        for cell in book.cells:
            if cell.cell_type == "markdown":
                texts = [cell.source]
            else:
                shipped = comments(UNSHIPPED.sub("", cell.source))
                texts = [t for t in shipped if not MARKERS.match(t)]
            for text in texts:
                found += [(notebook, cell.id, w) for w in english_in(text) if w not in kept]
    return found


def english_sources():
    """{notebook: {cell id: digest of the English text}} of every cell an edition translates."""
    digests = {}
    for notebook, folder in master_notebooks().items():
        book = nbformat.read(os.path.join(folder, notebook), as_version=4)
        digests[notebook] = {
            c.id: hashlib.sha256(c.source.encode()).hexdigest()[:12]
            for c in book.cells
            if "nbgrader" not in c.metadata or words_cell(c)
        }
    return digests


def stamp_path(code):
    """notebooks/editions/<code>/translated-from.json: the English each section was made from."""
    return os.path.join(EDITIONS, code, "translated-from.json")


def stamp(code):
    """Record that the edition's sections translate the English as it is now."""
    current = english_sources()
    done = {n: {c: current[n][c] for c in sections(code, n) if c in current[n]} for n in current}
    with open(stamp_path(code), "w", encoding="utf-8") as f:
        json.dump(done, f, indent=1, sort_keys=True)
        f.write("\n")


def stale(code):
    """Sections whose English cell changed since the edition was stamped."""
    try:
        with open(stamp_path(code), encoding="utf-8") as f:
            stamped = json.load(f)
    except OSError:
        return [f"{stamp_path(code)} is missing: run python -m grading editions stamp {code}"]
    current, found = english_sources(), []
    for notebook in current:
        for cell in sections(code, notebook):
            was = stamped.get(notebook, {}).get(cell)
            if cell in current[notebook] and was != current[notebook][cell]:
                why = "changed since it was translated" if was else "was never stamped"
                found.append(f"{notebook}: the English of {cell!r} {why}")
    return found


def problems(code):
    """Everything that keeps an edition from being complete and current, one sentence each."""
    found = []
    for notebook in master_notebooks():
        try:
            found += translated(code, notebook)[1]
        except OSError as err:
            found.append(f"{notebook}: {err.strerror}: {err.filename}")
    return found + (stale(code) if code != ENGLISH and not found else [])


def build(code, assignment=ASSIGNMENT):
    """nbgrader's source folder for one edition of one part: its translated notebooks and nothing
    else (the release gets the checkpoints package from grading.authoring.course); its path."""
    if code == ENGLISH:
        return os.path.dirname(SOURCE)
    books = {notebook: translated(code, notebook) for notebook in master_notebooks(assignment)}
    missing = [p for _, found in books.values() for p in found] or stale(code)
    if missing:
        raise SystemExit(f"the {code} edition is not complete:\n  " + "\n  ".join(missing))
    target = os.path.join(BUILD, code, assignment)
    os.makedirs(target, exist_ok=True)
    for name in set(os.listdir(target)) - set(books):  # what an older build left
        gone = os.path.join(target, name)
        shutil.rmtree(gone) if os.path.isdir(gone) else os.remove(gone)
    for notebook, (book, _) in books.items():
        write_if_changed(os.path.join(target, notebook), nbformat.writes(book) + "\n")
    return os.path.dirname(target)


def write_if_changed(path, text):
    """Write text to path unless it already holds it, by a rename, so that a reader (a release
    made at the same time) finds the old notebook or the new one, never half of one. The text is
    staged beside the part's folder, where no release and no cleaning of that folder looks."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    part = os.path.dirname(path)
    staged = os.path.join(os.path.dirname(part), f".{os.path.basename(part)}.{os.getpid()}.tmp")
    with open(staged, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(staged, path)


def arguments(parser, command):
    """`python -m grading editions check [codes] | build code [part] | stamp code`."""
    action = parser.add_subparsers(dest="action", required=True)
    check = action.add_parser("check", help="every edition complete and its code unchanged")
    check.add_argument("codes", nargs="*", help="only these editions (default all)")
    build_one = action.add_parser("build", help="build one edition's notebooks for nbgrader")
    build_one.add_argument("code")
    build_one.add_argument("part", nargs="?", help="attention (default) or xslm")
    stamp_one = action.add_parser("stamp", help="record that an edition translates today's English")
    stamp_one.add_argument("code")


def main(args):
    """Check, build or stamp editions; the exit status."""
    if args.action == "check":
        report = {code: problems(code) for code in args.codes or languages()}
        for code, found in report.items():
            print(f"{code}: " + ("complete" if not found else f"{len(found)} problems"))
            for line in found:
                print(f"  {line}")
        return 1 if any(report.values()) else 0
    if args.action == "build":
        print(build(args.code, *([args.part] if args.part else [])))
        return 0
    stamp(args.code)
    print(f"{stamp_path(args.code)}: the {args.code} edition translates today's English")
    return 0
