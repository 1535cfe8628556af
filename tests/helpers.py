"""Shared by the step tests: seeded inputs, and comparing nested lists of floats to a tolerance."""

import math
import os
import random
import shutil

from grading.judge.attention_hidden import random_mask  # noqa: F401 (one mask generator for grader and tests)

TOL = 1e-12
SEEDS = range(12)  # parametrised seeds; odd seeds use large (×100) magnitudes where apt


def assert_close(got, want, tol=TOL, where="value"):
    """Same nesting and lengths; bools equal; floats within tol · (1 + max(|got|, |want|))."""
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)), f"{where}: expected a list, got {got!r}"
        assert len(got) == len(want), f"{where}: length {len(got)}, expected {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, tol, f"{where}[{i}]")
    elif isinstance(want, bool):
        assert got is want, f"{where}: {got!r}, expected {want!r}"
    else:
        assert isinstance(got, (int, float)) and math.isfinite(got), (
            f"{where}: {got!r} is not a finite number"
        )
        assert abs(got - want) <= tol * (1.0 + max(abs(got), abs(want))), (
            f"{where}: {got!r}, expected {want!r}"
        )


def rng(tag, seed):
    """A random.Random private to one test and seed."""
    return random.Random(f"{tag}:{seed}")


def matrix(r, rows, cols, scale=1.0):
    """rows × cols Gaussian values of standard deviation scale."""
    return [[r.gauss(0.0, scale) for _ in range(cols)] for _ in range(rows)]


def integer_matrix(r, rows, cols, scale=100.0):
    """Like matrix, rounded to whole numbers: dot products are then exact in any summation order,
    so large-magnitude scores agree to the last bit and 1e-12 tests the algorithm, not rounding."""
    return [[float(round(r.gauss(0.0, scale))) for _ in range(cols)] for _ in range(rows)]


def heads_and_width(r):
    """h from {1, 2, 4, 8} and a d in 8..64 that h divides."""
    h = r.choice((1, 2, 4, 8))
    return h, h * r.randint(-(-8 // h), 64 // h)


def shape(M):
    """(rows, cols) of a rectangular matrix."""
    widths = {len(row) for row in M}
    assert len(widths) == 1, f"ragged matrix, row widths {sorted(widths)}"
    return len(M), widths.pop()


def assert_checkpoint_passes(name, module):
    """checkpoints.steps.CHECKS[name] holds for module."""
    from checkpoints.steps import CHECKS

    report = CHECKS[name](module)
    assert report.passed, repr(report)


def assert_hidden_judge_passes(name, module):
    """grading.judge.attention_hidden.judge finds no failing case for module."""
    from grading.judge.attention_hidden import judge

    total, failures = judge(name, module)
    assert total > 0 and failures == [], (
        f"{len(failures)} of {total} hidden cases fail: {failures[:3]}"
    )


# ── the course's own class, for the tests that a demo or make clean leaves it alone ──
# (nbgrader and grading are imported inside: the step tests import this module without them)

REAL_STUDENT = "real-learner"  # a learner of the course's class, never one of the demo's
CLASS_FOLDERS = ("submitted", "autograded", "judged", "feedback", "records")
CLASS_FILES = ("gradebook.db", "grades.csv", "grades-xslm.csv")  # where records/ holds them now


def class_files(root):
    """{path relative to root: bytes} of a course's class: its submissions, results, gradebook
    and tables, as they are on disk."""
    files = {}
    for name in CLASS_FOLDERS:
        for here, _, names in os.walk(os.path.join(root, name)):
            for file in names:
                path = os.path.join(here, file)
                with open(path, "rb") as f:
                    files[os.path.relpath(path, root)] = f.read()
    for name in CLASS_FILES:
        if os.path.exists(os.path.join(root, name)):
            with open(os.path.join(root, name), "rb") as f:
                files[name] = f.read()
    return files


def gradebook_students(path):
    """The student ids of the SQLite gradebook at path."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{path}") as gb:
        return {s.id for s in gb.students}


def write_real_class():
    """The course's own class as a real one is: REAL_STUDENT's part-one submission in
    submitted/, what grading left in autograded/, judged/ and feedback/, and the gradebook naming
    them (the release registered in it)."""
    from nbgrader.api import Gradebook

    from grading import classroom
    from grading.authoring import course
    from grading.paths import db_url

    course.release()
    classroom.write_submission(REAL_STUDENT, steps=3)
    classroom.save_failure(REAL_STUDENT, [])  # judged/<student>/nbgrader.json, as grading writes
    for folder in ("autograded", "feedback"):  # what grading and feedback left of them
        made = os.path.join(classroom.COURSE, folder, REAL_STUDENT, "attention")
        os.makedirs(made, exist_ok=True)
        with open(os.path.join(made, "01-softmax.html"), "w", encoding="utf-8") as f:
            f.write(f"<p>{folder} of {REAL_STUDENT}</p>\n")
    with Gradebook(db_url()) as gb:
        gb.update_or_create_student(REAL_STUDENT, first_name="Real", last_name="Learner")


def remove_real_class():
    """Take REAL_STUDENT out of the course again (folder and gradebook)."""
    from nbgrader.api import Gradebook

    from grading import classroom
    from grading.paths import db_url

    for folder in CLASS_FOLDERS:
        shutil.rmtree(os.path.join(classroom.COURSE, folder, REAL_STUDENT), ignore_errors=True)
    with Gradebook(db_url()) as gb:
        if REAL_STUDENT in {s.id for s in gb.students}:
            gb.remove_student(REAL_STUDENT)
