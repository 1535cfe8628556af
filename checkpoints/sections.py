"""The learner's files, written one step's section at a time (model.py; engine.py and gpt.py).

A file is a header (docstring and imports) followed by one section per saved function or class,
each between its step's opening and closing marker lines, and optionally a footer the course
writes (engine.py's self-test), between marker lines of its own. Saving replaces what is between
a step's two markers and keeps the sections in step order, so re-running a notebook never
duplicates a function and the file always imports. Whatever the learner typed outside the
markers (a helper, an import, a comment: before, between or after the sections) is theirs, and
saving keeps it where it stands. Each part says which names it builds and in which step
(`number`): checkpoints/attention/modelfile.py and checkpoints/xslm/files.py.

The judge reads a section as everything from its opening marker to the next one (read_sections),
so a learner's lines after a section are graded with that section, as Python runs them.
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
_END = re.compile(r"^# ── end of step (\d+): (\w+) ─+$\n?", re.MULTILINE)
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


def end_marker(name, number):
    """The comment line that closes a step's section; the learner's own lines follow it."""
    return f"# ── end of step {number(name)}: {name} " + "─" * 33


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


def read_parts(text):
    """Split a file's text into (header, {name: (what saving wrote, the learner's lines after
    it)}). A section written before sections had a closing marker has None for the second: where
    its saved part ends is not known."""
    header, sections = read_sections(text)
    parts = {}
    for name, body in sections.items():
        end = next((m for m in _END.finditer(body) if m.group(2) == name), None)
        own = body[: end.start()].rstrip("\n") + "\n" if end else body
        parts[name] = (own, body[end.end() :] if end else None)
    return header, parts


def compose(header, sections, number, order=None, footer=""):
    """A file's text from a header and sections, in step order (or `order`'s), then the footer
    (which must open with its `# ── self-test` line and close with `# ── end of self-test`).
    A section is its source, or (source, the learner's lines after it): with lines, or None,
    it is closed by its end marker and the lines follow it; None is an older section, kept as
    it stands, without one."""
    parts = [header.rstrip("\n") + "\n"]
    for name in sorted(sections, key=order or number):
        source, after = (
            sections[name] if isinstance(sections[name], tuple) else (sections[name], "")
        )
        parts.append("\n\n" + marker(name, number) + "\n" + source.strip("\n") + "\n")
        if after is not None:  # after two blank lines, as a formatter puts a top-level comment
            parts.append("\n\n" + end_marker(name, number) + "\n")
            if after.strip():
                parts.append("\n\n" + after.strip("\n") + "\n")
    if footer:
        parts.append("\n\n" + footer.strip("\n") + "\n")
    return "".join(parts)


def replaced(parts, name, source):
    """parts with step name's section replaced by source, keeping every line the learner typed
    after it. An older section (no end marker) keeps whatever of it the new source does not
    replace: its text after the new source, when it starts with it; else its top-level
    statements that define none of the new source's names (a helper typed by hand); lines that do
    not parse stay as comments."""
    source = _END.sub("", _MARKER.sub("", source))  # the file's markers are the course's alone
    old, after = parts.get(name, ("", ""))
    if after is None:
        after = learners_part(old, source)
    return {**parts, name: (source, after)}


def learners_part(old, source):
    """What of an older section's text old is not source's (see replaced)."""
    if old.strip().startswith(source.strip()):
        return old.strip()[len(source.strip()) :]
    try:
        tree = ast.parse(old)
    except SyntaxError:
        return "\n".join(f"# {line}" for line in old.splitlines() if line.strip() not in source)
    new = defined_names(source)
    lines = old.splitlines()
    kept = [
        "\n".join(lines[statement_start(node) - 1 : node.end_lineno])
        for node in tree.body
        if not (names_of(node) & new)
        and "\n".join(lines[statement_start(node) - 1 : node.end_lineno]) not in source
    ]
    return "\n\n\n".join(kept)


def statement_start(node):
    """The first line of a top-level statement, its decorators included."""
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])


def names_of(node):
    """The names a top-level statement defines: a function, a class, assignment targets, imports."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    return set()


def defined_names(source):
    """The names source defines at its top level ({} when it does not parse)."""
    try:
        return set().union(*map(names_of, ast.parse(source).body))
    except SyntaxError:
        return set()


def defined_twice(header, parts, name, number):
    """[(a name step `name`'s section defines, where else it is defined, where Python takes it
    from)]: the places are ("section", step name) or ("after", step name) or ("header", None), in
    file order; Python uses the last."""
    places = [(("header", None), header)]
    for step in sorted(parts, key=number):
        source, after = parts[step]
        places += [(("section", step), source), (("after", step), after or "")]
    found = []
    for defined in sorted(defined_names(parts[name][0])):
        where = [place for place, text in places if defined in defined_names(text)]
        if len(where) > 1:
            found.append((defined, [w for w in where if w != ("section", name)], where[-1]))
    return found


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


def save_notes(text, name, number, filename):
    """What the learner hears after step name was saved into text (filename's): a line elsewhere
    that does not parse, and each name the section defines that is defined again elsewhere."""
    notes = []
    try:
        compile(text, filename, "exec")
    except SyntaxError as err:
        where = place(place_of_line(text, err.lineno or 1), number)
        notes.append(say("elsewhere_broken", file=filename, line=err.lineno, where=where,
                         error=err.msg))  # fmt: skip
    header, parts = read_parts(text)
    for defined, others, used in defined_twice(header, parts, name, number):
        elsewhere = ", ".join(place(where, number) for where in others)
        notes.append(say("defined_twice", file=filename, name=defined, elsewhere=elsewhere,
                         used=place(used, number)))  # fmt: skip
    return notes


def place(where, number):
    """A place in a learner's file, in words: the header, a step's section, or the learner's own
    lines after one."""
    kind, step = where
    if kind == "header":
        return say("place_header")
    return say(f"place_{kind}", step=number(step), function=step)


def place_of_line(text, line):
    """Where line (1-based) of a learner's file stands: ("header", None), ("section", step) or
    ("after", step); a section without an end marker runs to the next step."""
    where = ("header", None)
    for number, content in enumerate(text.splitlines(), 1):
        if number > line:
            break
        opening, closing = _MARKER.fullmatch(content), _END.fullmatch(content)
        if opening:
            where = ("section", opening.group(2))
        elif closing and where == ("section", closing.group(2)):
            where = ("after", closing.group(2))
    return where
