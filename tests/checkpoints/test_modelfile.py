"""The model.py writer: idempotent, ordered, always importable, stdlib-only."""

import pytest

from checkpoints.attention import modelfile
from checkpoints.attention.modelfile import ModelFileError, load_model, save_section
from checkpoints.sections import read_sections
from grading.paths import ROOT

SOFTMAX = "def softmax(xs):\n    return [1.0 / len(xs)] * len(xs)\n"
MASK = "def causal_mask(n):\n    return [[i >= j for j in range(n)] for i in range(n)]\n"


@pytest.fixture
def model_path(tmp_path):
    return str(tmp_path / "model.py")


def test_stub_is_a_docstring_and_import_math(model_path):
    """A new model.py holds only the header: a docstring and `import math`."""
    modelfile.ensure_model(model_path)
    text = open(model_path).read()
    assert text.startswith('"""') and "import math" in text and "def " not in text
    assert load_model(model_path).math.pi == pytest.approx(3.141592653589793)


def test_saving_twice_replaces_instead_of_duplicating(model_path):
    """Re-running a step's save leaves one copy of the function, the newest."""
    save_section("softmax", SOFTMAX, model_path)
    save_section("softmax", SOFTMAX.replace("1.0", "2.0"), model_path)
    text = open(model_path).read()
    assert text.count("def softmax") == 1 and "2.0 / len" in text


def test_sections_stay_in_step_order(model_path):
    """A later step saved first still lands after an earlier one."""
    save_section("causal_mask", MASK, model_path)
    save_section("softmax", SOFTMAX, model_path)
    text = open(model_path).read()
    assert text.index("def softmax") < text.index("def causal_mask")
    assert list(read_sections(text)[1]) == ["softmax", "causal_mask"]
    module = load_model(model_path)
    assert module.causal_mask(2) == [[True, False], [True, True]]


def test_foreign_import_is_refused_with_its_name(model_path):
    """A cell importing numpy is not written, and the message names numpy."""
    save_section("softmax", SOFTMAX, model_path)
    before = open(model_path).read()
    with pytest.raises(ModelFileError, match="'numpy'"):
        save_section("softmax", "import numpy as np\n" + SOFTMAX, model_path)
    assert open(model_path).read() == before


def test_hand_edited_model_with_foreign_import_fails_to_load(model_path):
    """A model.py edited by hand to import a package is rejected when checked, naming it; the
    standard library (os here) is the course's rule and loads."""
    modelfile.ensure_model(model_path)
    with open(model_path, "a") as f:
        f.write("from os import path\n")
    load_model(model_path)
    with open(model_path, "a") as f:
        f.write("from traitlets import Bool\n")
    with pytest.raises(ModelFileError, match="'traitlets'.*standard library"):
        load_model(model_path)


def test_syntax_error_is_refused(model_path):
    """A cell that does not parse leaves model.py untouched."""
    with pytest.raises(ModelFileError, match="does not parse"):
        save_section("softmax", "def softmax(xs):\n    return [\n", model_path)


def test_solution_markers_are_dropped(model_path):
    """nbgrader's solution markers from the master notebooks never reach model.py."""
    save_section(
        "softmax",
        "def softmax(xs):\n    ### BEGIN SOLUTION\n    return xs\n    ### END SOLUTION\n",
        model_path,
    )
    assert "SOLUTION" not in open(model_path).read()


def test_unknown_function_name_is_a_clear_error(model_path):
    """Only the course's seven functions have sections."""
    with pytest.raises(ModelFileError, match="not one of the course's functions"):
        save_section("gelu", "def gelu(x):\n    return x\n", model_path)


def test_top_level_model_imports_only_math():
    """The committed reference model.py passes the stdlib-only rule."""
    import os

    root = ROOT
    with open(os.path.join(root, "model.py")) as f:
        assert modelfile.foreign_imports(f.read()) == []


def test_warnings_and_stderr_from_learner_code_stay_out_of_the_cell(tmp_path, monkeypatch, capsys):
    """A model.py that warns and prints to stderr still passes its checkpoint,
    with nothing on stderr.
    """
    import os

    import checkpoints

    root = ROOT
    noisy = (
        open(os.path.join(root, "model.py"))
        .read()
        .replace(
            "    top = max(xs)",
            "    print('debug: softmax called', file=__import__('sys').stderr)\n"
            "    __import__('warnings').warn('a harmless warning')\n"
            "    top = max(xs)",
            1,
        )
    )
    assert "debug: softmax" in noisy
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text(noisy)
    checkpoints.check("softmax")
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "cost nothing" in captured.out


def test_a_broken_section_costs_only_its_own_step(tmp_path, monkeypatch, capsys):
    """A hand edit that breaks block's section
    leaves the other six functions loadable and checkable.
    """
    import os

    import checkpoints
    from checkpoints.attention.modelfile import broken_message

    root = ROOT
    text = (
        open(os.path.join(root, "model.py"))
        .read()
        .replace(
            "    N = [layer_norm(row) for row in X]", "    N = [layer_norm(row) for row in X", 1
        )
    )
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text(text)
    module = load_model()
    assert list(module.BROKEN_SECTIONS) == ["block"] and not hasattr(module, "block")
    assert "step 7 section (block) does not parse" in broken_message(module, "block")
    checkpoints.check("layer_norm")
    assert "✗" not in capsys.readouterr().out
    checkpoints.check("block")  # one line, and the notebook goes on
    assert "✗ model.py: the step 7 section (block) does not parse" in capsys.readouterr().out
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")  # nbgrader validate sees it fail
    with pytest.raises(checkpoints.CheckpointFailed, match="does not parse"):
        checkpoints.check("block")
