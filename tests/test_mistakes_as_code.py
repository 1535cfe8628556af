"""Part one's catalogued mistakes are real code (grading/authoring/mistakes/): one module per
checkpoint, each function registered once, named after its mistake, and never run as the host's
`model` module."""

import ast
import os
import subprocess
import sys

import pytest

from checkpoints.catalogue import BY_NAME
from grading.authoring import mistakes
from grading.authoring.mistakes import register
from grading.judge.reference import reference_source
from grading.paths import ROOT

FOLDER = os.path.dirname(mistakes.__file__)
MODULES = sorted(n[:-3] for n in os.listdir(FOLDER) if n.endswith(".py") and n[0] != "_")


def decorated(module):
    """[(function name, decorator name, mistake name)] of one mistake module, read from its text."""
    tree = ast.parse(open(os.path.join(FOLDER, f"{module}.py"), encoding="utf-8").read())
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            (call,) = node.decorator_list
            found.append((node.name, call.func.id, call.args[0].value))
    return found


def test_one_module_per_checkpoint_prefix_of_the_catalogue():
    assert set(MODULES) - {"register"} == {name.split(".")[0] for name in BY_NAME}


@pytest.mark.parametrize("module", sorted(set(MODULES) - {"register"}))
def test_every_function_is_a_registered_mistake_named_after_it(module):
    functions = decorated(module)
    assert functions
    for function, decorator, name in functions:
        assert name.startswith(f"{module}.") and name in BY_NAME
        suffix = name.split(".", 1)[1]
        if decorator == "mistake":
            assert function == suffix
        else:
            assert decorator == "spelling" and function.startswith(f"{suffix}_spelling_")
    registered = sum(1 for n in register.BUGGY if n.startswith(f"{module}.")) + sum(
        len(v) for n, v in register.SPELLINGS.items() if n.startswith(f"{module}.")
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


def test_the_mistakes_never_import_a_model_module(tmp_path):
    """Their imports of model.py's functions are for readers only: a model.py found first on the
    path (a learner's) must never run when the mistakes load."""
    (tmp_path / "model.py").write_text("raise SystemExit('a model.py ran')\n")
    code = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; "
        "import grading.authoring.mistakes as m; "
        "print(len(m.BUGGY), 'model' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path), ROOT],
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert done.stdout.split() == [str(len(BY_NAME)), "False"]
