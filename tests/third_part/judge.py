"""A tiny third part's judge (tests/test_third_part.py installs it as grading/judge/tiny.py).

Everything a part's judge module gives the course: CELLS, a Judgement and judge_folder. The
learner's double.py runs in a sandboxed worker of the judge's core, like the real parts' files.
"""

import os
import random

from checkpoints.report import Check, Report
from grading.judge import core

CELLS = {"tiny-double-checks": ("visible", "double"), "tiny-double-hidden": ("hidden", "double")}
FILE = "double.py"
CASES = {"visible": [2], "hidden": [random.Random(7).randint(-99, 99) for _ in range(8)]}


class Judgement(core.Remembered):
    """The verdicts of one submission of the tiny part."""

    def __init__(self, folder):
        text = core.read_plain_file(os.path.join(folder, FILE))
        self.problems = [] if text is not None else [f"{FILE} is missing: every check fails"]
        self.budget, self.verdicts, self.worker = core.Budget(), {}, None
        if text is not None:
            try:
                self.worker = core.Worker([["double", text]], set(), self.budget)
            except core.WorkerFailed as err:
                self.problems.append(str(err))

    def decide(self, grade_id):
        """Each case of the cell's kind: double(x) is 2x."""
        kind, name = CELLS[grade_id]
        if self.worker is None or name not in self.worker.names:
            return core.report_verdict(grade_id, core.failed_report(name, f"no {name} in {FILE}"))
        checks = [Check(f"double({x}) is {2 * x}", self.call(x) == 2 * x) for x in CASES[kind]]
        return core.report_verdict(grade_id, Report(name, tuple(checks)))

    def call(self, x):
        """The learner's double(x), or the failure as a value."""
        try:
            return self.worker.call("double", [x], {})
        except core.WorkerFailed as err:
            return err

    def close(self):
        """End the worker."""
        if self.worker is not None:
            self.worker.close()


def judge_folder(folder, grade_ids=None):
    """({grade_id: Verdict}, problems) for a submission of the tiny part."""
    return core.judge_folder(folder, grade_ids, Judgement, CELLS)
