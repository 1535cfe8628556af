"""The learner's two files of part two, engine.py and gpt.py, written one step's section at a time.

They work like model.py in part one (checkpoints/sections.py): a header, then one section per saved
function or class, each opened by its step's marker line, kept in step order. Both may import
Python's standard library (the reference needs math, random and json); gpt.py also the learner's own
engine.
"""

import json
import os
import sys

from .. import i18n
from ..sections import (
    STANDARD_LIBRARY,
    ModelFileError,
    cell_source,
    compose,
    foreign_imports,
    load_module,
    read_parts,
    replaced,
    save_notes,
    without_markers,
)

ENGINE_FILE, GPT_FILE = "engine.py", "gpt.py"

# What each step builds, in the order the notebooks build it: name -> (file, step).
STEPS = {
    "Value": (ENGINE_FILE, 1),
    "softmax": (ENGINE_FILE, 2),
    "linear": (ENGINE_FILE, 2),
    "norm": (ENGINE_FILE, 2),
    "GPT": (GPT_FILE, 3),
    "loss": (GPT_FILE, 4),
    "train_step": (GPT_FILE, 4),
    "generate": (GPT_FILE, 5),
}
OWN_MODULES = {ENGINE_FILE: set(), GPT_FILE: {"engine"}}  # the learner's files a file may import
ALLOWED_IMPORTS = {name: STANDARD_LIBRARY | own for name, own in OWN_MODULES.items()}
HEADER_IMPORTS = {
    ENGINE_FILE: "import math\n",
    GPT_FILE: "import math\nimport random\n\nfrom engine import Value, linear, norm, softmax\n",
}

say = i18n.speaker("xslm_files")  # locales/<edition>.json, section "xslm_files"


def step_of(name):
    """The step number of a name part two builds; a clear error for any other name."""
    if name not in STEPS:
        raise ModelFileError(say("unknown_name", name=repr(name), names=", ".join(STEPS)))
    return STEPS[name][1]


def order(name):
    """Where a section stands in its file: the notebooks' order."""
    return list(STEPS).index(name)


def file_of(name):
    """engine.py or gpt.py: the file a name is saved into."""
    step_of(name)
    return STEPS[name][0]


def header(filename):
    """The stub file: a docstring (in the current edition) and the imports it may use."""
    words = say("engine_docstring" if filename == ENGINE_FILE else "gpt_docstring")
    return f'"""{words}"""\n\n{HEADER_IMPORTS[filename]}'


def self_test(filename):
    """engine.py's last lines: `python3 engine.py` checks a value and two gradients by hand (and
    softmax, once saved), prints ✓/✗ and exits 1 on any ✗; gpt.py has none."""
    if filename != ENGINE_FILE:
        return ""
    return SELF_TEST.replace("NOT_YET", json.dumps(say("self_test_no_value"), ensure_ascii=False))


# (a·b + a)² at a = 3, b = 5: 18² = 324; ∂/∂a = 2·18·(b + 1) = 216; ∂/∂b = 2·18·a = 108.
SELF_TEST = '''\
# ── self-test: python3 engine.py ───────────────────────────────────────
if __name__ == "__main__":
    if "Value" not in globals():
        raise SystemExit(NOT_YET)

    def product_and_sum():
        """[L, ∂L/∂a, ∂L/∂b] of L = (a·b + a)² at a = 3, b = 5."""
        a, b = Value(3.0), Value(5.0)
        L = (a * b + a) ** 2
        L.backward()
        return [L.data, a.grad, b.grad]

    checks = [("(a·b + a)², ∂/∂a, ∂/∂b at a = 3, b = 5", product_and_sum, [324.0, 216.0, 108.0])]
    if "softmax" in globals():
        big = lambda: [w.data for w in softmax([Value(1000.0), Value(1000.0)])]  # noqa: E731
        checks.append(("softmax([1000, 1000])", big, [0.5, 0.5]))
    failed = 0
    for what, run, want in checks:
        try:
            got = run()
            held = all(abs(g - w) <= 1e-9 * max(1.0, abs(w)) for g, w in zip(got, want))
        except Exception as err:
            got, held = f"{type(err).__name__}: {err}", False
        failed += not held
        print("✓" if held else "✗", what, "=", got, "" if held else f"(expected {want})")
    raise SystemExit(1 if failed else 0)
# ── end of self-test ───────────────────────────────────────────────────
'''


def compose_file(filename, sections, top=None):
    """engine.py's or gpt.py's text from {name: source}: the header (top: the file's own, which
    may hold the learner's lines), the sections in order, and engine.py's self-test."""
    return compose(top or header(filename), sections, step_of, order, footer=self_test(filename))


def ensure_files(folder=".", filenames=(ENGINE_FILE,)):
    """Create the stub files (headers only) that do not exist yet.

    gpt.py is made by its first save (step 3): its header imports the layers of step 2.
    """
    for filename in filenames:
        path = os.path.join(folder, filename)
        if not os.path.exists(path):
            with open(path, "w", encoding="utf-8") as f:
                f.write(compose_file(filename, {}))


def check_imports(source, filename, where):
    """Raise ModelFileError naming the first import the file may not use."""
    bad = foreign_imports(source, ALLOWED_IMPORTS[filename])
    if bad:
        allowed = ", ".join([say("standard_library"), *sorted(OWN_MODULES[filename])])
        raise ModelFileError(
            say("foreign_import", where=where, module=repr(bad[0]), allowed=allowed)
        )


def save_section(name, source, folder="."):
    """Replace name's section of its file with source, keeping every line the learner typed outside
    the sections; refuse (file untouched) if source is broken. Returns the new text."""
    filename = file_of(name)
    source = without_markers(source)
    try:
        check_imports(source, filename, say("your_cell", name=name))
    except SyntaxError as err:
        raise ModelFileError(say("cell_does_not_parse", name=name, error=err)) from None
    ensure_files(folder, (filename,))
    path = os.path.join(folder, filename)
    with open(path, encoding="utf-8") as f:
        top, parts = read_parts(f.read())
    text = compose_file(filename, replaced(parts, name, source), top)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    for module in ("engine", "gpt"):  # the next `import engine` or `import gpt` reads the new file
        sys.modules.pop(module, None)
    return text


def save(obj):
    """Write the notebook cell that defined obj (a function or class) into engine.py or gpt.py."""
    name = obj.__name__
    try:
        text = save_section(name, cell_source(obj))
    except ModelFileError as refused:  # the cell's own mistake: the file is left as it was
        print(f"✗ {refused}")
        return
    print(say("saved", step=step_of(name), name=name, file=file_of(name)))
    for note in save_notes(text, name, step_of, file_of(name)):
        print(note)


def load_file(filename, module_name, folder="."):
    """One learner file imported afresh from disk as its own module, damaged sections left out
    (listed in its BROKEN_SECTIONS), as model.py is loaded in part one."""
    path = os.path.join(folder, filename)
    check = lambda source: check_imports(source, filename, filename)  # noqa: E731
    return load_module(path, module_name, step_of, check)


def load_learner(folder=".", with_gpt=True):
    """(engine, gpt): the learner's two files, gpt.py importing this engine (gpt None if absent)."""
    engine = load_file(ENGINE_FILE, "learner_engine", folder)
    if not with_gpt or not os.path.exists(os.path.join(folder, GPT_FILE)):
        return engine, None
    saved = sys.modules.get("engine")
    sys.modules["engine"] = engine  # gpt.py's `from engine import ...` takes this one
    try:
        return engine, load_file(GPT_FILE, "learner_gpt", folder)
    finally:
        if saved is None:
            sys.modules.pop("engine", None)
        else:
            sys.modules["engine"] = saved
