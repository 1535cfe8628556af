"""The trusted judge: verdicts from model.py as submitted,
through a sandboxed worker that returns JSON only.
"""

import glob
import json
import os
import shutil
import sysconfig
import time

import nbformat
import pytest

from grading.authoring.mistakes import BUGGY, replace_function
from grading.judge import attention as judge
from grading.judge import core
from grading.judge.reference import reference_source
from grading.paths import ROOT, masters

WRONG_SOFTMAX = replace_function(reference_source(), "softmax", BUGGY["softmax.divide_by_max"][1])
SOFTMAX_CELLS = {"step01-softmax-checks", "step01-softmax-hidden"}
# The artifacts whose numbers come from softmax (through attention): made with the reference's
# outputs/, they no longer match a submission whose softmax is wrong or gone.
SOFTMAX_ARTIFACTS = {"step02-scale-artifact", "step05-perm-artifact", "step08-notes-artifact"}


def submission(tmp_path, model, outputs=True):
    (tmp_path / "model.py").write_text(model)
    if outputs:
        shutil.copytree(os.path.join(ROOT, "outputs"), tmp_path / "outputs")
    return str(tmp_path)


def failed(verdicts):
    return {gid for gid, v in verdicts.items() if not v.passed}


def appended(code):
    """The wrong softmax plus learner code at the end of model.py
    (it lands in the block section).
    """
    return WRONG_SOFTMAX + "\n" + code


def test_cells_table_matches_the_master_notebooks():
    """Every graded cell of the masters is judged, and the judge knows no other cell."""
    graded = {
        c.metadata.nbgrader["grade_id"]
        for path in glob.glob(os.path.join(masters("attention"), "*.ipynb"))
        for c in nbformat.read(path, 4).cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }
    assert graded == set(judge.CELLS)


def test_reference_passes_every_cell(tmp_path):
    """The reference model.py and outputs/ pass all 17 graded cells."""
    verdicts, problems = judge.judge_folder(submission(tmp_path, reference_source()))
    assert failed(verdicts) == set() and problems == []


def test_wrong_softmax_loses_only_softmax(tmp_path):
    """Isolation: the later steps run on the reference's softmax, answered by the judge,
    not the worker.
    """
    verdicts, _ = judge.judge_folder(submission(tmp_path, WRONG_SOFTMAX))
    # the artifacts were made with the reference, so with this softmax their numbers no longer match
    assert failed(verdicts) == SOFTMAX_CELLS | SOFTMAX_ARTIFACTS
    assert "the largest exp is 1" in verdicts["step01-softmax-hidden"].text


CHEATS = {
    "float subclass that calls everything close": """
class Close(float):
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __abs__(self): return 0.0
    def __eq__(self, other): return True
    __hash__ = float.__hash__
_wrong = softmax
def softmax(xs):
    return [Close(v) for v in _wrong(xs)]
""",
    "always-equal object": """
class Same(list):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
_wrong = softmax
def softmax(xs):
    return Same(_wrong(xs))
""",
    "reference found through gc": """
def softmax(xs):
    import gc
    for f in gc.get_objects():
        if getattr(f, "__name__", "") == "softmax" and getattr(f, "__module__", "") != __name__:
            return f(xs)
    return [1.0] + [0.0] * (len(xs) - 1)
""",
    "reference read from disk": '''
def softmax(xs):
    space = {}
    for path in ["'''
    + os.path.join(ROOT, "model.py")
    + """", "../../../model.py", "/work/main/model.py"]:
        try:
            exec(open(path).read(), space)
            return space["softmax"](xs)
        except Exception:
            pass
    return [1.0] + [0.0] * (len(xs) - 1)
""",
    "fake math module": """
import sys
class Fake:
    def __getattr__(self, name): return lambda *a: 0.0
sys.modules["math"] = Fake()
""",
}


@pytest.mark.parametrize("how", sorted(CHEATS))
def test_cheats_gain_nothing(tmp_path, how):
    """Learner code that tries to pass a wrong softmax off as right still fails softmax's cells."""
    verdicts, _ = judge.judge_folder(submission(tmp_path, appended(CHEATS[how])))
    assert SOFTMAX_CELLS <= failed(verdicts)


def test_the_standard_library_is_allowed_in_any_spelling(tmp_path):
    """`__import__("statistics")` and `from os import path` are the standard library: they cost
    nothing (the rule is the lesson's own, "the standard library only")."""
    model = reference_source()
    model = model.replace("    top = max(xs)", "    __import__('statistics')\n    top = max(xs)")
    model = model.replace("def layer_norm(", "from os import path\n\n\ndef layer_norm(")
    verdicts, problems = judge.judge_folder(submission(tmp_path, model))
    assert failed(verdicts) == set()
    assert problems == []


def test_packages_are_absent_from_grading_in_every_spelling(tmp_path):
    """numpy by an import statement is refused by name; any package reached by a spelled-out
    import, even with the venv's site-packages put on sys.path, is not there: the worker's Python
    has the standard library only. Each costs only its section (and what uses it)."""
    packages = sysconfig.get_paths()["purelib"]  # this venv's: nbformat and traitlets are in it
    model = reference_source()
    model = model.replace("    top = max(xs)", "    import numpy\n    top = max(xs)")
    model = model.replace(
        "def layer_norm(",
        f"import sys\nsys.path.append({packages!r})\n__import__('nb' + 'format')\n\n\n"
        "def layer_norm(",
    )
    model = model.replace(
        "def causal_mask(",
        "exec(compile('imp' + 'ort traitlets', 'x', 'exec'))\n\n\ndef causal_mask(",
    )
    verdicts, problems = judge.judge_folder(submission(tmp_path, model))
    assert failed(verdicts) >= SOFTMAX_CELLS | {
        "step03-causal-mask-checks",
        "step03-causal-mask-hidden",
        "step06-layer-norm-checks",
        "step06-layer-norm-hidden",
    }
    assert not failed(verdicts) & {"step02-attention-hidden", "step05-pos-encoding-hidden"}
    assert any("'numpy'" in p and "standard library" in p for p in problems)
    assert sum("ModuleNotFoundError" in p for p in problems) == 2, problems


def test_a_stray_import_in_the_header_is_ignored_not_fatal(tmp_path):
    """`import numpy` above the first step costs nothing when no step uses it, and is reported."""
    model = reference_source().replace("import math", "import math\nimport numpy", 1)
    verdicts, problems = judge.judge_folder(submission(tmp_path, model))
    assert failed(verdicts) == set()
    assert any("import numpy" in p for p in problems)


def test_a_section_that_raises_while_loading_costs_only_itself(tmp_path):
    """SystemExit at module level (in the block section) fails block only."""
    verdicts, problems = judge.judge_folder(
        submission(tmp_path, reference_source() + "\nraise SystemExit\n")
    )
    assert failed(verdicts) == {"step07-block-checks", "step07-block-hidden"}
    assert any("raised SystemExit" in p for p in problems)


def test_os_exit_and_infinite_loop_fail_their_own_step(tmp_path, monkeypatch):
    """A worker that dies or hangs costs its checkpoint's cells (and what uses it),
    never the judge.
    """
    monkeypatch.setattr(core, "CALL_SECONDS", 1.0)
    model = reference_source().replace(
        "    top = max(xs)", "    while True:\n        pass\n    top = max(xs)"
    )
    model = model.replace(
        "    mean = ",
        "    (lambda: None).__globals__['__builtins__']['__import__']('os')._exit(3)\n    mean = ",
        1,
    )
    verdicts, _ = judge.judge_folder(submission(tmp_path, model))
    lost = failed(verdicts)
    assert SOFTMAX_CELLS | {"step06-layer-norm-checks", "step06-layer-norm-hidden"} <= lost
    assert not lost & {"step02-attention-hidden", "step04-multi-head-hidden", "step07-block-hidden"}
    assert "did not finish within 1 s" in verdicts["step01-softmax-checks"].text


def test_time_between_verdicts_is_not_the_submissions(tmp_path):
    """Under nbgrader the judgement waits while kernels run (a looping cell takes its 30 s): only
    time spent waiting for learner code counts against the submission's budget."""
    judgement = judge.Judgement(submission(tmp_path, reference_source()))
    try:
        judgement.budget = core.Budget(2.0)
        assert judgement.verdict("step01-softmax-checks").passed
        time.sleep(2.5)  # longer than the whole budget, spent elsewhere
        assert judgement.verdict("step02-attention-checks").passed
        assert 0 < judgement.budget.left() < 2.0  # the calls were charged, the sleep was not
    finally:
        judgement.close()


def test_symlinked_model_is_not_followed(tmp_path):
    """A model.py that is a link to the reference is not read: every check fails."""
    os.symlink(os.path.join(ROOT, "model.py"), tmp_path / "model.py")
    verdicts, problems = judge.judge_folder(str(tmp_path))
    assert failed(verdicts) == set(judge.CELLS)
    assert any("model.py is missing" in p for p in problems)


def test_hidden_feedback_shows_no_inputs_seed_or_paths(tmp_path):
    """A failing hidden verdict says counts, the first gap and the diagnosis;
    nothing of the instructor's.
    """
    verdicts, _ = judge.judge_folder(submission(tmp_path, WRONG_SOFTMAX))
    text = json.dumps({g: [v.text, v.html] for g, v in verdicts.items()})
    from grading.judge.attention_hidden import SEED

    assert str(SEED) not in text and ROOT not in text and "Traceback" not in text
    assert "seeded cases fail" in verdicts["step01-softmax-hidden"].text


def test_unsafe_grading_still_uses_the_json_boundary_and_says_so(tmp_path, monkeypatch):
    """With ATTENTION_UNSAFE_NO_SANDBOX=1 the verdicts are the same,
    and every record says it was unsafe.
    """
    from grading.machine import sandbox

    monkeypatch.setenv(sandbox.UNSAFE_FLAG, "1")
    verdicts, problems = judge.judge_folder(submission(tmp_path, WRONG_SOFTMAX))
    assert failed(verdicts) == SOFTMAX_CELLS | SOFTMAX_ARTIFACTS
    assert any("WITHOUT the sandbox" in p for p in problems)


@pytest.mark.parametrize("checkpoint", sorted(judge.CHECKS))
def test_fresh_inputs_keep_every_property_for_correct_code(checkpoint):
    """The visible checks on fresh inputs hold for the reference and every correct alternative."""
    from grading.judge.isolation import underlay
    from grading.judge.reference import load_source_module, reference
    from tests.fixtures.alternatives import ALTERNATIVES

    models = [reference()] + [
        load_source_module(replace_function(reference_source(), fn, code), "alt", "model.py")
        for fn, code in ALTERNATIVES.values()
    ]
    for model in models:
        report = judge.checks_on_fresh_inputs(checkpoint, underlay(model, checkpoint))
        assert report.passed, repr(report)


def test_fresh_inputs_differ_from_the_notebooks(tmp_path):
    """Answers hard-coded for the notebook's softmax inputs
    pass the learner's checkpoint but not the judge's.
    """
    from checkpoints.attention.diagnose import load_fingerprints
    from checkpoints.attention.probes import PROBES

    correct = load_fingerprints()["softmax"]["correct"]
    known = {tuple(p.args[0]): correct[p.id] for p in PROBES["softmax"]}
    known[tuple(x + 100.0 for x in PROBES["softmax"][0].args[0])] = correct[PROBES["softmax"][0].id]
    code = (
        "KNOWN = " + repr(known) + "\n\n\ndef softmax(xs):\n    if tuple(xs) in KNOWN:\n"
        "        return list(KNOWN[tuple(xs)])\n    return [1.0] + [0.0] * (len(xs) - 1)\n"
    )
    model = replace_function(reference_source(), "softmax", code)
    from checkpoints.attention.steps import CHECKS
    from grading.judge.reference import load_source_module

    assert CHECKS["softmax"](
        load_source_module(model, "hard_coded", "model.py")
    ).passed  # fools the notebook
    verdicts, _ = judge.judge_folder(
        submission(tmp_path, model, outputs=False), ["step01-softmax-checks"]
    )
    assert not verdicts["step01-softmax-checks"].passed
    assert "fresh inputs of the same kind" in verdicts["step01-softmax-checks"].text


def test_a_worker_that_answers_with_absurdly_deep_nesting_fails_only_its_own_cells(tmp_path):
    """Learner code writing a deeply nested reply straight into the channel costs its checks,
    nothing more.
    """
    flood = """
def softmax(xs):
    os = getattr(len.__self__, "__imp" + "ort__")("os")    # an import the source check cannot see
    os.write(4, b"[" * 200000 + b"]" * 200000 + b"\\n")   # fd 4: the worker's reply channel
    return [1.0]
"""
    verdicts, _ = judge.judge_folder(
        submission(tmp_path, replace_function(reference_source(), "softmax", flood))
    )
    assert SOFTMAX_CELLS <= failed(verdicts)
    assert "not a result" in verdicts["step01-softmax-checks"].text
    assert "step06-layer-norm-hidden" not in failed(verdicts)


def test_hidden_cases_of_multi_head_and_block_include_non_causal_masks():
    """Besides the causal mask and none, multi_head and block meet seeded random masks in which
    some query sees a later key; every row keeps a visible key."""
    from grading.judge import attention_hidden as hidden

    for checkpoint in ("multi_head", "block"):
        masks = [kw["mask"] for _, _, _, kw, _ in hidden.answered_cases(checkpoint) if kw]
        patchy = [m for m in masks if m != hidden.causal(len(m))]
        assert len(patchy) >= 8, checkpoint
        for m in patchy:
            assert all(any(row) for row in m) and not all(map(all, m))
            assert any(m[i][j] for i in range(len(m)) for j in range(i + 1, len(m)))


@pytest.mark.parametrize(
    "name, cell",
    [
        ("multi_head.ignores_given_mask", "step04-multi-head-hidden"),
        ("block.ignores_given_mask", "step07-block-hidden"),
    ],
)
def test_a_mask_swapped_for_the_causal_one_fails_the_hidden_cell(tmp_path, name, cell):
    """Code that uses causal_mask(n) whenever it is given a mask (right with a causal mask or none)
    fails the hidden cell on the non-causal masks, and nothing else of the course."""
    function, code = BUGGY[name]
    verdicts, _ = judge.judge_folder(
        submission(tmp_path, replace_function(reference_source(), function, code))
    )
    visible = cell.replace("-hidden", "-checks")
    assert failed(verdicts) == {cell, visible}
    assert "mask case" in verdicts[cell].text
    assert verdicts[cell].record["diagnosis"][0] == name


NOTES_CELL = "step08-notes-artifact"


def keyword_notes():
    """Notes of bare keywords and step 2's two numbers as the reference's attention gives them."""
    from checkpoints.attention.artifacts import scale_experiment
    from grading.judge.reference import reference

    scaled, unscaled = scale_experiment(reference().attention)
    return f"scaling / order\nsquare 4x\n{scaled:.4f} {unscaled:.4f}\n"


def with_copied_outputs(tmp_path, model):
    """A submission of model and the reference's outputs/, its notes replaced by keyword_notes."""
    folder = submission(tmp_path, model)
    (tmp_path / "outputs" / "08-notes.md").write_text(keyword_notes())
    return folder


def test_keyword_notes_earn_the_notes_points_with_the_honest_reference(tmp_path):
    """The keyword notes meet every check of the notes cell when the functions behind them are the
    learner's own: the reference, with its own outputs, keeps full marks."""
    verdicts, problems = judge.judge_folder(with_copied_outputs(tmp_path, reference_source()))
    assert failed(verdicts) == set() and problems == []


@pytest.mark.parametrize(
    "model",
    [
        "header only",  # nothing saved: the stub model.py a workspace starts with
        "attention raises",  # the function is there but not written
        "attention.no_scaling",  # written, wrong: its experiment gives other numbers
    ],
)
def test_copied_numbers_earn_no_notes_points_without_the_functions(tmp_path, model):
    """The reference's outputs/ and keyword notes quoting its numbers earn 0 for the notes cell
    when the learner's own attention does not give those numbers."""
    from checkpoints.attention.modelfile import header

    source = {
        "header only": header(),
        "attention raises": replace_function(
            reference_source(),
            "attention",
            "def attention(Q, K, V, mask=None):\n    raise NotImplementedError\n",
        ),
        "attention.no_scaling": replace_function(
            reference_source(), "attention", BUGGY["attention.no_scaling"][1]
        ),
    }[model]
    verdicts, _ = judge.judge_folder(with_copied_outputs(tmp_path, source), [NOTES_CELL])
    assert not verdicts[NOTES_CELL].passed, verdicts[NOTES_CELL].text
