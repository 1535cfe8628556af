"""Part two's learner side (checkpoints/xslm): saving into engine.py and gpt.py, the checkpoints on
the reference and on every catalogued mistake, the artifacts' checks, and answers.json being
current. Everything here is what a learner's kernel runs."""

import html
import json
import math
import os
import shutil

import pytest

import xslm
from checkpoints.sections import ModelFileError
from checkpoints.xslm import artifacts, files
from checkpoints.xslm.checks import (
    ANSWERS_FILE,
    BY_NAME,
    CHECKS,
    MISTAKES,
    Local,
    checkpoint_report,
)
from grading import paths
from grading.authoring.fingerprints import build_xslm, render
from grading.authoring.mistakes.part_two import buggy

pytestmark = pytest.mark.xslm
ROOT = paths.ROOT


def test_answers_file_is_current():
    """answers.json is exactly what the reference and the mistakes answer now."""
    with open(ANSWERS_FILE, encoding="utf-8") as f:
        assert f.read() == render(build_xslm()), "run: python -m grading fingerprints"


@pytest.mark.parametrize("name", list(CHECKS))
def test_reference_passes_every_checkpoint(name):
    """The reference engine.py and gpt.py pass all their checks, with no diagnosis."""
    report = checkpoint_report(name, Local(xslm.engine, xslm.gpt))
    assert report.passed, repr(report)


def test_every_mistake_of_the_issues_is_catalogued():
    """The eight mistakes issue 12 names, train_step's stale gradients (a second reader found the
    course's own train_step had it), and the eight issue 47 adds (reflected operators the wrong
    way round, a wrong slope, a wrong value, linear by W's columns, norm as RMS or over n - 1,
    generate always greedy) are in the catalogue, each as code in grading/authoring/mistakes/
    (engine.py, gpt.py)."""
    from grading.authoring.mistakes.part_two import MISTAKES as AS_CODE

    assert {m.name for m in MISTAKES} == set(AS_CODE)
    assert len(MISTAKES) == 17


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_mistake_fails_its_checkpoint_and_is_named(name):
    """The checkpoint that owns a mistake fails on it, names it, and keeps the fix for hint()."""
    mistake = BY_NAME[name]
    report = checkpoint_report(mistake.checkpoint, Local(*buggy(name)))
    assert not report.passed
    assert [m.name for m in report.diagnosis] == [name]
    assert f"looks like: {mistake.title}" in repr(report)
    assert html.escape(mistake.hint) not in report._repr_html_()
    assert html.escape(mistake.hint) in report.but(level=1)._repr_html_()


def test_a_crashing_engine_is_a_failed_check_not_a_crash():
    """An engine whose backward raises gives ✗ lines with the exception's name."""
    import types

    text = open(os.path.join(ROOT, "xslm", "engine.py"), encoding="utf-8").read()
    broken = types.ModuleType("broken_engine")
    exec(text.replace("self.grad = 1.0", "self.grad = 1 / 0"), broken.__dict__)
    report = checkpoint_report("Value", Local(broken, None))
    assert not report.passed
    assert "raised ZeroDivisionError" in repr(report)


CELLS = {
    "Value": "import math\n\nclass Value:\n    def __init__(self, x):\n        self.data = x\n",
    "softmax": "def softmax(values):\n    return values\n",
    "GPT": "import random\n\nclass GPT:\n    def make(self):\n        return random.random()\n",
}


def test_save_writes_sections_in_step_order_and_gpt_py_on_its_first_save(tmp_path):
    """engine.py starts as a stub; gpt.py appears with the first gpt section; sections keep the
    notebooks' order whatever order they are saved in, and saving again replaces."""
    files.ensure_files(str(tmp_path))
    assert os.listdir(tmp_path) == ["engine.py"]
    files.save_section("softmax", CELLS["softmax"], str(tmp_path))
    files.save_section("Value", CELLS["Value"], str(tmp_path))
    files.save_section("Value", CELLS["Value"], str(tmp_path))
    files.save_section("GPT", CELLS["GPT"], str(tmp_path))
    engine_text = (tmp_path / "engine.py").read_text()
    assert engine_text.count("class Value") == 1
    assert engine_text.index("step 1: Value") < engine_text.index("step 2: softmax")
    assert "from engine import" in (tmp_path / "gpt.py").read_text()


def test_each_file_refuses_imports_beyond_its_own(tmp_path):
    """Both files take the standard library; gpt.py also engine; the refusal names the module."""
    with pytest.raises(ModelFileError, match="'numpy'.*standard library$"):
        files.save_section("Value", "import numpy\nclass Value:\n    pass\n", str(tmp_path))
    with pytest.raises(ModelFileError, match="'engine'.*standard library$"):
        files.save_section("Value", "import engine\nclass Value:\n    pass\n", str(tmp_path))
    with pytest.raises(ModelFileError, match="'torch'.*standard library, engine"):
        files.save_section("GPT", "import torch\nclass GPT:\n    pass\n", str(tmp_path))
    files.save_section("Value", "import random\nclass Value:\n    pass\n", str(tmp_path))
    files.save_section("GPT", CELLS["GPT"], str(tmp_path))  # engine is fine in gpt.py


def test_a_broken_section_costs_only_that_section(tmp_path):
    """A hand edit that breaks norm leaves Value and softmax loadable, and says which broke."""
    shutil.copy(os.path.join(ROOT, "xslm", "engine.py"), tmp_path / "engine.py")
    text = (tmp_path / "engine.py").read_text().replace("def norm(x, eps=1e-5):", "def norm(x,:")
    (tmp_path / "engine.py").write_text(text)
    engine, gpt = files.load_learner(str(tmp_path))
    assert gpt is None and hasattr(engine, "softmax") and not hasattr(engine, "norm")
    assert "norm" in engine.BROKEN_SECTIONS


def reference_model():
    """The artifact checks' model functions made with the reference."""
    return artifacts.learner_model(xslm.engine, xslm.gpt)


def copy_outputs(tmp_path):
    for name in (artifacts.LOSS_FILE, artifacts.WEIGHTS_FILE, artifacts.SAMPLES_FILE):
        shutil.copy(os.path.join(ROOT, "outputs", name), tmp_path / name)


def test_reference_artifacts_pass_their_checks(tmp_path):
    """The masters' loss curve, weights and samples pass, recomputed with the reference."""
    copy_outputs(tmp_path)
    held_out_loss, generate_text = reference_model()
    assert artifacts.loss_report(str(tmp_path), held_out_loss).passed
    assert artifacts.samples_report(str(tmp_path), generate_text).passed


def test_a_flat_curve_untrained_weights_and_made_up_samples_fail(tmp_path):
    """A curve that does not fall, weights that never trained, or samples the weights did not
    generate each fail their own check."""
    copy_outputs(tmp_path)
    held_out_loss, generate_text = reference_model()
    flat = "\n".join(f"{k} {math.log(40):.6f}" for k in range(240))
    (tmp_path / artifacts.LOSS_FILE).write_text(flat + "\n")
    untrained = xslm.gpt.GPT(*artifacts.DIMS).state()
    (tmp_path / artifacts.WEIGHTS_FILE).write_text(json.dumps(untrained))
    report = artifacts.loss_report(str(tmp_path), held_out_loss)
    assert [c.passed for c in report.checks] == [True, False, True, False]
    copy_outputs(tmp_path)
    lines = (tmp_path / artifacts.SAMPLES_FILE).read_text().splitlines()
    lines[1] = "T=0.5 | 'the dog sleeps.'"
    (tmp_path / artifacts.SAMPLES_FILE).write_text("\n".join(lines) + "\n")
    report = artifacts.samples_report(str(tmp_path), generate_text)
    assert [c.passed for c in report.checks] == [True, False]


OVERWRITING = {  # gradients overwritten (= for +=), in the ways learners write backward()
    "without zeroing first": """
def backward(self):
    order = topological_order(self)
    self.grad = 1.0
    for v in reversed(order):
        for inp, slope in zip(v.inputs, v.slopes):
            inp.grad = slope * v.grad
""",
    "index loop": """
def backward(self):
    order = topological_order(self)
    for v in order:
        v.grad = 0
    self.grad = 1
    for v in order[::-1]:
        for i in range(len(v.inputs)):
            v.inputs[i].grad = v.slopes[i] * v.grad
""",
    "own gradient first": """
def backward(self):
    order = topological_order(self)
    for node in order:
        node.grad = 0.0
    self.grad = 1.0
    for node in reversed(order):
        for child, local in zip(node.inputs, node.slopes):
            child.grad = node.grad * local
""",
}


@pytest.mark.parametrize("spelling", sorted(OVERWRITING))
def test_overwritten_gradients_are_named_in_the_spellings_learners_use(spelling):
    """`grad =` for `grad +=` in backward(), written three ways: Value fails, named."""
    import types

    from grading.authoring.mistakes import replace_function
    from grading.authoring.mistakes.part_two import source

    text = replace_function(source("engine.py"), "Value.backward", OVERWRITING[spelling])
    engine = types.ModuleType("learner_engine")
    exec(compile(text, "engine.py", "exec"), engine.__dict__)
    report = checkpoint_report("Value", Local(engine, None))
    assert not report.passed
    assert [m.name for m in report.diagnosis][:1] == ["engine.overwrite_gradients"]


RECURSIVE_NOT_ZEROING = """
def backward(self):
    order = recursive_order(self, [], set())
    self.grad = 1.0
    for v in reversed(order):
        for source, slope in zip(v.inputs, v.slopes):
            source.grad += slope * v.grad
"""


def test_two_mistakes_on_different_probes_are_named_together():
    """A recursive backward() that also forgets to zero: each shows on probes of its own (a deep
    graph; a second backward), so Value names both at once, as one diagnosis."""
    import types

    from grading.authoring.mistakes import replace_function
    from grading.authoring.mistakes.part_two import buggy_texts

    texts = buggy_texts("engine.recursive_backward")
    text = replace_function(texts["engine.py"], "Value.backward", RECURSIVE_NOT_ZEROING)
    engine = types.ModuleType("learner_engine")
    exec(compile(text, "engine.py", "exec"), engine.__dict__)
    report = checkpoint_report("Value", Local(engine, None))
    assert not report.passed
    assert [set(m.names) for m in report.diagnosis] == [
        {"engine.recursive_backward", "engine.no_zeroing"}
    ]
    text = repr(report)
    assert "two mistakes at once" in text
    assert BY_NAME["engine.recursive_backward"].title in text
    assert BY_NAME["engine.no_zeroing"].title in text


ROW_COUNTS_ONLY = """
def load(self, state):
    if [len(m) for m in state.values()] != [len(m) for m in self.weights.values()]:
        raise ValueError("another shape")
    for name, matrix in self.weights.items():
        for row, saved in zip(matrix, state[name]):
            for v, number in zip(row, saved):
                v.data = float(number)
"""


def learner_modules(engine_text=None, gpt_text=None):
    """(engine, gpt) modules from the reference's files, either one replaced by a learner's text."""
    from grading.authoring.mistakes.part_two import modules, source

    texts = {
        "engine.py": engine_text or source("engine.py"),
        "gpt.py": gpt_text or source("gpt.py"),
    }
    return modules(texts, "learner")


def failed_claims(name, engine_text=None, gpt_text=None):
    """The words of the checks that fail at one checkpoint on such a learner's files."""
    report = checkpoint_report(name, Local(*learner_modules(engine_text, gpt_text)))
    return [c.what for c in report.checks if not c.passed]


def test_a_load_that_counts_only_rows_fails_the_refusal_check():
    """A short row or a missing matrix must be refused too: counting rows is not enough."""
    from checkpoints.i18n import lookup
    from grading.authoring.mistakes import replace_function
    from grading.authoring.mistakes.part_two import source

    text = replace_function(source("gpt.py"), "GPT.load", ROW_COUNTS_ONLY)
    assert failed_claims("GPT", gpt_text=text) == [lookup("xslm_claims", "gpt_refuses")]


@pytest.mark.parametrize("method", ["__radd__", "__neg__", "__rtruediv__"])
def test_a_value_without_a_reflected_operation_fails_the_results_check(method):
    """3 + v, -v and 3 / v are probed on their own: a Value without the method fails its results."""
    from checkpoints.i18n import lookup
    from grading.authoring.mistakes.part_two import source

    text = source("engine.py") + f"\ndel Value.{method}\n"
    assert lookup("xslm_claims", "value_results") in failed_claims("Value", engine_text=text)


def run_engine(folder):
    """`python3 engine.py` in folder, as a learner runs it: (exit status, what it printed)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "engine.py"], cwd=folder, capture_output=True, text=True, timeout=60
    )
    return done.returncode, done.stdout + done.stderr


def test_python3_engine_py_runs_its_self_test(tmp_path):
    """engine.py ends with a self-test: the stub says Value is missing; the reference's sections
    pass it (✓, exit 0); overwritten gradients fail it (✗ with the expected numbers, exit 1).
    Re-saving keeps one self-test at the end, and reading the file back leaves it out."""
    from checkpoints.sections import read_parts, read_sections
    from grading.authoring.mistakes.part_two import buggy_texts, source

    files.ensure_files(str(tmp_path))
    status, said = run_engine(tmp_path)
    assert status != 0 and "no Value yet" in said
    reference = {name: own for name, (own, _) in read_parts(source("engine.py"))[1].items()}
    for name, section in reference.items():
        files.save_section(name, section, str(tmp_path))
    text = (tmp_path / "engine.py").read_text(encoding="utf-8")
    assert text.count("# ── self-test") == 1
    assert text.rstrip().splitlines()[-1].startswith("# ── end of self-test")
    assert {name: own for name, (own, _) in read_parts(text)[1].items()} == reference
    # a line a learner adds after the self-test is theirs, after the last section: the judge reads
    # it with that section, and saving keeps it (before the self-test)
    assert read_sections(text + "\nextra = 1\n")[1]["norm"].endswith("extra = 1\n")
    with open(tmp_path / "engine.py", "a", encoding="utf-8") as f:
        f.write("\nextra = 1\n")
    files.save_section("norm", reference["norm"], str(tmp_path))
    assert (
        read_parts((tmp_path / "engine.py").read_text(encoding="utf-8"))[1]["norm"][1].strip()
        == "extra = 1"
    )
    status, said = run_engine(tmp_path)
    assert status == 0 and said.count("✓") == 2 and "✗" not in said, said
    _, wrong = read_sections(buggy_texts("engine.overwrite_gradients")["engine.py"])
    files.save_section("Value", wrong["Value"], str(tmp_path))
    status, said = run_engine(tmp_path)
    assert status == 1 and "✗ (a·b + a)²" in said and "expected [324.0, 216.0, 108.0]" in said, said


def test_a_wrong_operation_is_named_with_its_inputs_and_what_differs():
    """A reversed __rsub__ (a - 3.0 for 3.0 - a): the Value check names the expression as the
    learner would write it, its input, and that its value differs, yours against expected."""
    import types

    from grading.authoring.mistakes import replace_function
    from grading.authoring.mistakes.part_two import source

    reversed_rsub = "def __rsub__(self, other):\n    return self - lift(other)\n"
    text = replace_function(source("engine.py"), "Value.__rsub__", reversed_rsub)
    engine = types.ModuleType("learner_engine")
    exec(compile(text, "engine.py", "exec"), engine.__dict__)
    report = checkpoint_report("Value", Local(engine, None))
    said = repr(report)
    assert "3.0 - a with a = 0.25: its value: yours -2.75, expected 2.75" in said, said
