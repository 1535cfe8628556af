"""Part two's catalogued mistakes applied to its reference (xslm/engine.py and xslm/gpt.py).

    engine, gpt = buggy("engine.overwrite_gradients")

The mistakes are code in engine.py and gpt.py beside this module (@change). Every change must
find what it replaces, so a change to the reference that would silently void a mistake fails.
"""

import ast
import os
import sys
import types

from grading.authoring.mistakes import definition, engine, gpt, replace_function  # noqa: F401 (each registers its mistakes)
from grading.authoring.mistakes.register import CHANGES
from grading.paths import XSLM_REFERENCE

MISTAKES = CHANGES  # name -> [Change, ...], in the order the modules define them
FILES = ("engine.py", "gpt.py")


def source(name):
    """The reference's text of engine.py or gpt.py."""
    with open(os.path.join(XSLM_REFERENCE, name), encoding="utf-8") as f:
        return f.read()


def applied(text, change):
    """text with one change made: a definition replaced, or a function put before another."""
    if not change.before:
        return replace_function(text, change.target, change.code)
    lines = text.splitlines(keepends=True)
    at = definition(ast.parse(text), change.before).lineno - 1
    return "".join(lines[:at]) + change.code + "\n\n" + "".join(lines[at:])


def buggy_texts(mistake):
    """{"engine.py": text, "gpt.py": text}: the reference's files with the mistake's changes."""
    return with_mistake({name: source(name) for name in FILES}, mistake)


def with_mistake(texts, mistake):
    """{file: text} with the mistake's changes made (a learner's files, or the reference's)."""
    texts = dict(texts)
    for change in MISTAKES[mistake]:
        try:
            texts[change.file] = applied(texts[change.file], change)
        except KeyError as missing:
            raise ValueError(
                f"{mistake}: {missing} is not in the reference {change.file}"
            ) from None
    return texts


def buggy(mistake):
    """(engine, gpt) modules: the reference with the mistake's changes, gpt using that engine."""
    return modules(buggy_texts(mistake), mistake)


def modules(texts, label):
    """(engine, gpt) modules made from {file: text}, gpt using that engine; label names them."""
    engine_module = types.ModuleType(f"xslm_buggy_engine_{label}")
    exec(compile(texts["engine.py"], f"<{label}: engine.py>", "exec"), engine_module.__dict__)
    gpt_module = types.ModuleType(f"xslm_buggy_gpt_{label}")
    saved = sys.modules.get("engine")
    sys.modules["engine"] = engine_module  # gpt.py's `from engine import ...` takes this one
    try:
        exec(compile(texts["gpt.py"], f"<{label}: gpt.py>", "exec"), gpt_module.__dict__)
    finally:
        if saved is None:
            sys.modules.pop("engine", None)
        else:
            sys.modules["engine"] = saved
    return engine_module, gpt_module
