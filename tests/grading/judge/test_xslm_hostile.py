"""Hostile part-two submissions against the trusted judge (grading/judge/xslm.py, sandboxed
workers): none gains a point it did not earn, none reaches the instructor's files or leaves
anything outside its folder, and each costs only the cells its own broken code belongs to."""

import glob
import os
import shutil

import pytest

from grading.judge import xslm as xslm_judge
from grading.paths import ROOT

pytestmark = pytest.mark.xslm

ENGINE_CELLS = {g for g in xslm_judge.CELLS if g.startswith(("xslm01", "xslm02"))}
OTHER_CELLS = set(xslm_judge.CELLS) - ENGINE_CELLS
CANARY = "HOSTILE-xslm-canary"

# name -> (file, code added to its end, the cells that must fail; every other cell must pass).
# Code added to the end of a file belongs to its last section: norm (engine.py), generate (gpt.py).
ATTACKS = {
    "exits-on-import": (
        "engine.py",
        "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close']"
        "[0].__init__.__globals__['_exit'](0)\n",
        ENGINE_CELLS,
    ),
    "imports-os": ("engine.py", "import os\n", set()),  # the standard library is the rule
    "imports-a-package": (
        "engine.py",
        "import numpy\n",
        {"xslm02-norm-checks", "xslm02-layers-hidden"},
    ),
    "raises-on-import": (
        "gpt.py",
        "raise SystemExit('no')\n",
        {"xslm05-generate-checks", "xslm05-generate-hidden"},
    ),
    "reads-the-reference": (
        "engine.py",
        f"try:\n    open({os.path.join(ROOT, 'xslm', 'engine.py')!r}).read()\n"
        "except OSError:\n    pass\nelse:\n    raise SystemExit('read it')\n",
        set(),  # the read fails inside the sandbox, so nothing changes
    ),
    "writes-a-canary": (
        "engine.py",
        "for _where in ({root!r}, '/tmp', '.'):\n    try:\n"
        "        open(_where + '/{canary}', 'w').write('x')\n    except OSError:\n        pass\n",
        set(),
    ),
    "loops-in-backward": (
        "engine.py",
        "def _forever(self):\n    while True:\n        pass\nValue.backward = _forever\n",
        ENGINE_CELLS,
    ),
    "imports-os-in-gpt": ("gpt.py", "import os\n", set()),
    "imports-a-package-in-gpt": (
        "gpt.py",
        "__import__('tor' + 'ch')\n",  # spelled out: absent from the worker's Python all the same
        {"xslm05-generate-checks", "xslm05-generate-hidden"},
    ),
    "equal-to-everything": (
        "engine.py",
        "class _Same(float):\n    def __eq__(self, other):\n        return True\n"
        "    def __sub__(self, other):\n        return 0.0\n"
        "_real = Value.backward\n"
        "def _fake(self):\n    _real(self)\n"
        "    for v in topological_order(self):\n        v.grad = _Same(v.grad * 1.5)\n"
        "Value.backward = _fake\n",
        ENGINE_CELLS,
    ),
}


def submission(tmp_path, name):
    """The reference files and artifacts, with the attack's code appended to one file."""
    folder = tmp_path / name
    os.makedirs(folder / "outputs")
    for f in ("engine.py", "gpt.py"):
        shutil.copy(os.path.join(ROOT, "xslm", f), folder / f)
    for f in ("xslm-loss.txt", "xslm-weights.json", "xslm-samples.txt"):
        shutil.copy(os.path.join(ROOT, "outputs", f), folder / "outputs" / f)
    filename, code, _ = ATTACKS[name]
    code = code.format(root=ROOT, canary=CANARY) if "{canary}" in code else code
    with open(folder / filename, "a", encoding="utf-8") as f:
        f.write("\n\n" + code)
    return str(folder)


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attack_costs_exactly_its_own_cells(tmp_path, name):
    """The cells the attacked code belongs to fail; every other cell passes as before."""
    verdicts, _ = xslm_judge.judge_folder(submission(tmp_path, name))
    failed = {g for g, v in verdicts.items() if not v.passed}
    assert failed == ATTACKS[name][2], {g: verdicts[g].text[:300] for g in failed}


def test_no_canary_escaped():
    """Whatever the attacks tried to write, nothing reached the course root or /tmp."""
    found = glob.glob(os.path.join(ROOT, "**", CANARY), recursive=True)
    assert found + glob.glob(os.path.join("/tmp", CANARY)) == []


def test_a_linked_weights_file_is_not_read(tmp_path):
    """outputs/xslm-weights.json as a link to the instructor's trained weights is not followed:
    the loss artifact fails instead of borrowing them."""
    folder = submission(tmp_path, "reads-the-reference")
    weights = os.path.join(folder, "outputs", "xslm-weights.json")
    os.remove(weights)
    os.symlink(os.path.join(ROOT, "outputs", "xslm-weights.json"), weights)
    verdicts, _ = xslm_judge.judge_folder(folder, ["xslm04-loss-artifact"])
    assert not verdicts["xslm04-loss-artifact"].passed
