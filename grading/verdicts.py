"""`python -m grading judge FOLDER`: every graded cell's verdict of one submission, in a terminal.

Like the other grading commands it never runs as root: started as root, it hands itself over to
the course user (grading.course_user), whose output root relays without control characters. It
also prints learner text without them itself, whoever runs it. Standard library only: Debian's
python3 runs it as well as the course's .venv.
"""

import importlib
import os
import sys
import time

from grading import course_user
from grading.machine import sandbox
from grading.parts import ASSIGNMENT, PARTS, registered


def part_of(folder):
    """The part a submission folder holds: its name (submitted/<student>/<part>), else the first."""
    name = os.path.basename(os.path.normpath(folder))
    return name if name in PARTS else ASSIGNMENT


def lines(verdicts, problems):
    """The report: each verdict, then each problem."""
    said = [
        f"[{'pass' if v.passed else 'FAIL'}] {v.grade_id}\n{v.text}\n" for v in verdicts.values()
    ]
    return said + [f"problem: {problem}" for problem in problems]


def arguments(parser, command):
    """`python -m grading judge FOLDER [--part NAME]`."""
    parser.add_argument("folder", help="a submission folder, such as submitted/<student>/attention")
    parser.add_argument("--part", choices=list(PARTS),
                        help="its part (default: the folder's name, else the first)")  # fmt: skip


def main(args):
    """Print every graded cell's verdict and the problems of one submission folder, timed."""
    course_user.become([sys.executable, "-m", "grading", "judge", *args.argv])  # as root only
    sandbox.require()
    judge = importlib.import_module(registered(args.part or part_of(args.folder)).judge)
    start = time.perf_counter()
    for line in lines(*judge.judge_folder(args.folder)):
        print(course_user.CONTROL.sub("", line))
    print(f"judged in {time.perf_counter() - start:.2f} s")
