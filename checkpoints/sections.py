"""The learner's files, written one step's section at a time (model.py; engine.py and gpt.py).

A file is a header (docstring and imports) followed by one section per saved function or class,
each opened by its step's marker line, and optionally a footer the course writes (engine.py's
self-test), between marker lines of its own. Saving replaces that section and keeps the
sections in step order, so re-running a notebook never duplicates a function and the file always
imports. Each part says which names it builds and in which step (`number`):
checkpoints/attention/modelfile.py and checkpoints/xslm/files.py.
"""

import ast
import importlib.util
import inspect
import linecache
import os
import re
import sys

from . import i18n

# The rule: Python's standard library, nothing else (the references need only math, random and
# json). Grading enforces it by construction: the judge's worker runs a Python that has no
# site-packages at all, so numpy is absent in every spelling. Saving says so at once.
STANDARD_LIBRARY = frozenset(sys.stdlib_module_names)

_MARKER = re.compile(r"^# ── step (\d+): (\w+) ─+$", re.MULTILINE)
# The course's footer, from its opening line to its closing one: text after it (a learner's own
# lines at the end of the file) still belongs to the last section.
_FOOTER = re.compile(
    r"^# ── self-test\b.*?^# ── end of self-test\b[^\n]*\n?", re.MULTILINE | re.DOTALL
)
_SOLUTION_MARKER = re.compile(r"### (BEGIN|END) SOLUTION")


class ModelFileError(Exception):
    """A learner's file (or a section for it) breaks a rule of the course; the message says."""


say = i18n.speaker("save")  # locales/<edition>.json, section "save"


def marker(name, number):
    """The comment line that opens a step's section: `# ── step <number(name)>: <name> ───…`."""
    return f"# ── step {number(name)}: {name} " + "─" * 40


def read_sections(text):
    """Split a file's text into (header, {name: section source without its marker}); the footer
    the course writes is left out (compose writes it afresh), anything after it kept."""
    text = _FOOTER.sub("", text)
    found = list(_MARKER.finditer(text))
    header = text[: found[0].start()] if found else text
    sections = {}
    for here, after in zip(found, found[1:] + [None]):
        body = text[here.end() : after.start() if after else len(text)]
        sections[here.group(2)] = body.strip("\n") + "\n"
    return header, sections


def compose(header, sections, number, order=None, footer=""):
    """A file's text from a header and sections, in step order (or `order`'s), then the footer
    (which must open with its `# ── self-test` line and close with `# ── end of self-test`)."""
    parts = [header.rstrip("\n") + "\n"]
    for name in sorted(sections, key=order or number):
        parts.append("\n\n" + marker(name, number) + "\n" + sections[name].strip("\n") + "\n")
    if footer:
        parts.append("\n\n" + footer.strip("\n") + "\n")
    return "".join(parts)


def foreign_imports(source, allowed=STANDARD_LIBRARY):
    """Names of modules beyond the allowed ones (the standard library) the source imports."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append("." * node.level + (node.module or ""))
    return [n for n in names if n.split(".")[0] not in allowed]


def defining_file(obj):
    """The file (or notebook cell) that defined a function, or a class through its methods."""
    if inspect.isclass(obj):
        for member in vars(obj).values():
            code = getattr(member, "__code__", None)
            if code is not None:
                return code.co_filename
    return inspect.getsourcefile(obj) or ""


def cell_source(fn):
    """The whole notebook cell that defined fn (helpers included), or fn's own source elsewhere."""
    filename = defining_file(fn)
    lines = linecache.getlines(filename)
    if lines and not os.path.exists(filename):  # IPython keeps cells in linecache only
        return "".join(lines)
    return inspect.getsource(fn)


def without_markers(source):
    """The cell source minus nbgrader's solution markers, which mean nothing inside a file.

    A marker that stood between blank lines leaves at most two of them, as a formatter would.
    """
    kept = "".join(
        line
        for line in source.splitlines(keepends=True)
        if not _SOLUTION_MARKER.fullmatch(line.strip())
    )
    return re.sub(r"\n{4,}", "\n\n\n", kept)


def parsable_part(text, path, number):
    """For a damaged file: (source of the sections that parse, {step: why it does not})."""
    header, sections = read_sections(text)
    good, broken = {}, {}
    for name, body in sections.items():
        try:
            compile(body, f"{path} ({name})", "exec")
            good[name] = body
        except SyntaxError as err:
            broken[name] = say("section_line", line=err.lineno, error=err.msg)
    return compose(header, good, number), broken


def load_module(path, module_name, number, check):
    """Import a learner's file afresh from disk as its own module object (never a cached one).

    If the file does not parse, the sections that do are loaded and the others are listed in the
    module's BROKEN_SECTIONS, so a hand edit that breaks one step costs only that step.
    check(source) raises ModelFileError for an import the file may not use.
    """
    if not os.path.exists(path):
        raise ModelFileError(say("no_model_file", path=path))
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        compile(text, path, "exec")
        source, broken = text, {}
    except SyntaxError:
        source, broken = parsable_part(text, path, number)
    check(source)
    module = importlib.util.module_from_spec(
        importlib.util.spec_from_loader(module_name, loader=None)
    )
    module.__file__ = os.path.abspath(path)
    exec(compile(source, path, "exec"), module.__dict__)
    module.BROKEN_SECTIONS = broken
    return module
