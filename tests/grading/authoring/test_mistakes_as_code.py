"""The catalogued mistakes of both parts are real code (grading/authoring/mistakes/): one module
per catalogue prefix, each function registered once, named after its mistake, and the learner
files they stand beside (model.py, engine.py, gpt.py) never imported by the host."""

import ast
import os
import subprocess
import sys

import pytest

from checkpoints.attention.catalogue import BY_NAME, PAIRS
from checkpoints.xslm.checks import BY_NAME as PART_TWO
from grading.authoring import mistakes
from grading.authoring.mistakes import part_two, register
from grading.judge.reference import reference_source
from grading.paths import ROOT

FOLDER = os.path.dirname(mistakes.__file__)
MODULES = sorted(
    n[:-3]
    for n in os.listdir(FOLDER)
    if n.endswith(".py") and n[0] != "_" and n not in ("register.py", "part_two.py")
)


def decorated(module):
    """[(function name, decorator name, mistake name)] of one mistake module, read from its text."""
    tree = ast.parse(open(os.path.join(FOLDER, f"{module}.py"), encoding="utf-8").read())
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            (call,) = node.decorator_list
            names = [a.value for a in call.args[: 2 if call.func.id == "both" else 1]]
            found.append((node.name, call.func.id, "+".join(names)))  # @both: "first+second"
    return found


def test_one_module_per_catalogue_prefix_of_both_parts():
    assert set(MODULES) == {name.split(".")[0] for name in [*BY_NAME, *PART_TWO]}


@pytest.mark.parametrize("module", sorted({n.split(".")[0] for n in BY_NAME}))
def test_every_function_is_a_registered_mistake_named_after_it(module):
    functions = decorated(module)
    assert functions
    for function, decorator, name in functions:
        halves = name.split("+")
        assert all(h.startswith(f"{module}.") and h in BY_NAME for h in halves)
        suffixes = [h.split(".", 1)[1] for h in halves]
        if decorator == "mistake":
            assert function == suffixes[0]
        elif decorator == "both":  # a stored pair of catalogue.PAIRS: named after both halves
            assert function == "_".join(suffixes) and tuple(halves) in PAIRS
        else:
            assert decorator == "spelling" and function.startswith(f"{suffixes[0]}_spelling_")
    registered = (
        sum(1 for n in register.BUGGY if n.startswith(f"{module}."))
        + sum(len(v) for n, v in register.SPELLINGS.items() if n.startswith(f"{module}."))
        + sum(1 for n in register.BOTH if n.startswith(f"{module}."))
    )
    assert registered == len(functions)


@pytest.mark.parametrize("name", sorted(mistakes.BUGGY))
def test_each_mistake_becomes_a_whole_model_with_one_function_changed(name):
    reference = reference_source()
    for spelling in range(1 + len(mistakes.SPELLINGS.get(name, []))):
        source = mistakes.buggy_source(name, spelling=spelling)
        replaced = mistakes.BUGGY[name][0]
        functions = [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
        assert functions == [n.name for n in ast.parse(reference).body
                             if isinstance(n, ast.FunctionDef)]  # fmt: skip
        assert source != reference and "@mistake" not in source and "@spelling" not in source
        assert source.count(f"def {replaced}(") == 1


@pytest.mark.parametrize("module", sorted({n.split(".")[0] for n in PART_TWO}))
def test_every_part_two_change_is_named_after_its_mistake_or_what_it_adds(module):
    for function, decorator, name in decorated(module):
        assert decorator == "change" and name.startswith(f"{module}.") and name in PART_TWO
        added = [c.target for c in part_two.MISTAKES[name] if c.before]
        assert function == name.split(".", 1)[1] or function in added


@pytest.mark.parametrize("name", sorted(PART_TWO))
def test_each_part_two_mistake_changes_only_what_it_names(name):
    """Of the two files' functions and methods, exactly those it replaces or adds differ."""
    texts = part_two.buggy_texts(name)
    touched = {(c.file, c.target.rpartition(".")[2]) for c in part_two.MISTAKES[name]}
    changed = set()
    for file in part_two.FILES:
        before, after = part_two.source(file), texts[file]
        old = {n.name: ast.get_source_segment(before, n) for n in ast.walk(ast.parse(before))
               if isinstance(n, ast.FunctionDef)}  # fmt: skip
        new = {n.name: ast.get_source_segment(after, n) for n in ast.walk(ast.parse(after))
               if isinstance(n, ast.FunctionDef)}  # fmt: skip
        changed |= {(file, f) for f in new if old.get(f) != new[f]}
    assert changed == touched


def test_the_mistakes_never_import_a_learner_file(tmp_path):
    """Their imports of the learner files' names are for readers only: a model.py, engine.py or
    gpt.py found first on the path (a learner's) must never run when the mistakes load."""
    for name in ("model.py", "engine.py", "gpt.py"):
        (tmp_path / name).write_text(f"raise SystemExit('{name} ran')\n")
    code = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; "
        "import grading.authoring.mistakes as m, grading.authoring.mistakes.part_two as t; "
        "print(len(m.BUGGY), len(t.MISTAKES), {'model', 'engine', 'gpt'} & set(sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path), ROOT],
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert done.stdout.split() == [str(len(BY_NAME)), str(len(PART_TWO)), "set()"]
