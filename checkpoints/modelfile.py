"""Reading and writing the learner's model.py, one step's section at a time.

model.py is a header (docstring + ``import math``) followed by one section per step, each opened
by a marker line. Saving a step replaces that step's section and keeps the sections in step
order, so re-running a notebook never duplicates a function and the file always imports.
"""

import ast
import importlib.util
import inspect
import linecache
import os
import re
import sys

from . import i18n

MODEL_FILE = "model.py"
# The rule: Python's standard library, nothing else (the reference needs only math). Grading
# enforces it by construction: the judge's worker runs a Python that has no site-packages at all,
# so numpy is absent in every spelling. Saving says so at once.
STANDARD_LIBRARY = frozenset(sys.stdlib_module_names)
ALLOWED_IMPORTS = STANDARD_LIBRARY

# The seven functions, in the order the notebooks build them.
STEPS = ["softmax", "attention", "causal_mask", "multi_head", "pos_encoding", "layer_norm", "block"]

_MARKER = re.compile(r"^# ── step (\d+): (\w+) ─+$", re.MULTILINE)
_SOLUTION_MARKER = re.compile(r"### (BEGIN|END) SOLUTION")


class ModelFileError(Exception):
    """model.py (or a section for it) breaks a rule of the course; the message says which."""


say = i18n.speaker("save")  # locales/<edition>.json, section "save"


def header():
    """The stub model.py: a docstring (in the current edition) and `import math`."""
    return f'"""{say("model_docstring")}\n"""\n\nimport math\n'


def step_number(name):
    """1-based step of a function name, or a clear error for a name the course does not build."""
    if name not in STEPS:
        raise ModelFileError(
            say("unknown_function", function=repr(name), functions=", ".join(STEPS))
        )
    return STEPS.index(name) + 1


def marker(name, number=step_number):
    """The comment line that opens a step's section in model.py (or a part-two file)."""
    return f"# ── step {number(name)}: {name} " + "─" * 40


def ensure_model(path=MODEL_FILE):
    """Create the stub model.py (header only) if there is none; returns nothing (no stray Out[])."""
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(header())


def ensure_model_in(folder):
    """ensure_model for the model.py of a folder (a learner's workspace)."""
    ensure_model(os.path.join(folder, MODEL_FILE))


def read_sections(text):
    """Split model.py text into (header, {name: section source without its marker})."""
    found = list(_MARKER.finditer(text))
    header = text[: found[0].start()] if found else text
    sections = {}
    for here, after in zip(found, found[1:] + [None]):
        body = text[here.end() : after.start() if after else len(text)]
        sections[here.group(2)] = body.strip("\n") + "\n"
    return header, sections


def compose(header, sections, number=step_number, order=None):
    """model.py text (or a part-two file's) from a header and sections, in step order."""
    parts = [header.rstrip("\n") + "\n"]
    for name in sorted(sections, key=order or number):
        parts.append("\n\n" + marker(name, number) + "\n" + sections[name].strip("\n") + "\n")
    return "".join(parts)


def foreign_imports(source, allowed=ALLOWED_IMPORTS):
    """Names of modules beyond the allowed ones (the standard library) the source imports."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append("." * node.level + (node.module or ""))
    return [n for n in names if n.split(".")[0] not in allowed]


def check_stdlib_only(source, where=MODEL_FILE):
    """Raise ModelFileError naming the first import beyond the standard library."""
    bad = foreign_imports(source)
    if bad:
        raise ModelFileError(say("foreign_import", where=where, module=repr(bad[0])))


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
    """The cell source minus nbgrader's solution markers, which mean nothing inside model.py.

    A marker that stood between blank lines leaves at most two of them, as a formatter would.
    """
    kept = "".join(
        line
        for line in source.splitlines(keepends=True)
        if not _SOLUTION_MARKER.fullmatch(line.strip())
    )
    return re.sub(r"\n{4,}", "\n\n\n", kept)


def save_section(name, source, path=MODEL_FILE):
    """Replace step `name`'s section of model.py with source; refuse (file untouched) if broken."""
    step_number(name)
    source = without_markers(source)
    try:
        check_stdlib_only(source, where=say("your_cell", function=name))
    except SyntaxError as err:
        raise ModelFileError(say("cell_does_not_parse", function=name, error=err)) from None
    ensure_model(path)
    with open(path, encoding="utf-8") as f:
        header, sections = read_sections(f.read())
    sections[name] = source
    text = compose(header, sections)
    compile(text, path, "exec")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    sys.modules.pop("model", None)  # the next `import model` sees the new file
    return text


def parsable_part(text, path=MODEL_FILE, number=step_number):
    """For a damaged model.py: (source of the sections that parse, {step: why it does not})."""
    header, sections = read_sections(text)
    good, broken = {}, {}
    for name, body in sections.items():
        try:
            compile(body, f"{path} ({name})", "exec")
            good[name] = body
        except SyntaxError as err:
            broken[name] = say("section_line", line=err.lineno, error=err.msg)
    return compose(header, good, number), broken


def load_model(path=MODEL_FILE, module_name="learner_model", number=step_number, check=None):
    """Import model.py afresh from disk as its own module object (never the cached `model`).

    If the file does not parse, the sections that do are loaded and the others are listed in the
    module's BROKEN_SECTIONS, so a hand edit that breaks one step costs only that step. Part two's
    files come through here too, with their own step numbers and import check(source).
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
    (check or (lambda s: check_stdlib_only(s, where=path)))(source)
    module = importlib.util.module_from_spec(
        importlib.util.spec_from_loader(module_name, loader=None)
    )
    module.__file__ = os.path.abspath(path)
    exec(compile(source, path, "exec"), module.__dict__)
    module.BROKEN_SECTIONS = broken
    return module


def broken_message(module, name):
    """A clear message when step `name`'s section of model.py does not parse, else None."""
    why = getattr(module, "BROKEN_SECTIONS", {}).get(name)
    if why:
        return say("section_does_not_parse", step=step_number(name), function=name, why=why)
    return None
