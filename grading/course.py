"""Instructor and learner commands on top of nbgrader (the Makefile calls these).

python -m grading.course release      # student edition in release/attention
python -m grading.course workspace    # learner workspace in workspace/ (from the student edition)
"""

import os
import shutil
import subprocess
import sys

import nbformat

from grader_config import ASSIGNMENT
from grading.masters import SOURCE, notebooks
from grading.reference import ROOT

RELEASE = os.path.join(ROOT, "release", ASSIGNMENT)
WORKSPACE = os.path.join(ROOT, "workspace")


def tool_environment():
    """os.environ with this environment's tools (alembic, jupyter) on PATH and the course
    importable: what nbgrader and the grading servers need."""
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    return dict(os.environ, PATH=path, PYTHONPATH=ROOT)


def nbgrader(*args):
    """Run one nbgrader command from the course root, with this environment's tools on PATH."""
    return subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=ROOT,
        env=tool_environment(),
        capture_output=True,
        text=True,
    )


def folder_size(path):
    """Total bytes of the files under path."""
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def release():
    """Build the student edition; refuse if the master folder holds learner files.

    Learner files in the master folder (model.py, outputs/) would ship with the student edition.
    """
    leftovers = [n for n in ("model.py", "outputs") if os.path.exists(os.path.join(SOURCE, n))]
    if leftovers:
        raise SystemExit(
            f"notebooks/{ASSIGNMENT} holds {', '.join(leftovers)} from running the masters in "
            "place; they would ship to learners. Delete them (they are git-ignored) and retry."
        )
    print(f"generating the student edition of {len(notebooks())} notebooks ...")
    done = nbgrader("generate_assignment", ASSIGNMENT, "--force")
    if done.returncode != 0:
        print(done.stdout[-3000:] + done.stderr[-3000:])
        raise SystemExit("nbgrader generate_assignment failed (its log is above)")
    files = sum(len(f) for _, _, f in os.walk(RELEASE))
    print(f"release/{ASSIGNMENT}: {files} files, {folder_size(RELEASE) / 1024:.0f} KiB")
    return RELEASE


def solution_cells(folder=SOURCE):
    """{grade_id: source} of every cell a learner writes, as the master notebooks solve it."""
    cells = {}
    for name in notebooks(folder):
        for cell in nbformat.read(os.path.join(folder, name), as_version=4).cells:
            info = cell.metadata.get("nbgrader", {})
            if info.get("solution"):
                cells[info["grade_id"]] = cell.source
    return cells


def fill(book, solutions, replace=None):
    """A learner's notebook: the student edition with its solution cells written as the masters do.

    replace maps a function name to buggy code; a cell defining it gets that version instead.
    """
    from grading.mistakes import replace_function

    for cell in book.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in solutions:
            cell.source = solutions[gid]
            for function, code in (replace or {}).items():
                if f"def {function}(" in cell.source:
                    cell.source = replace_function(cell.source, function, code)
    return book


def workspace(dest=WORKSPACE):
    """Copy the student edition into dest without touching anything the learner already has."""
    from checkpoints.modelfile import ensure_model

    release()
    os.makedirs(dest, exist_ok=True)
    kept = 0
    for folder, _, files in os.walk(RELEASE):
        for name in files:
            source = os.path.join(folder, name)
            target = os.path.join(dest, os.path.relpath(source, RELEASE))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            in_checkpoints = os.path.relpath(source, RELEASE).startswith("checkpoints")
            if os.path.exists(target) and not in_checkpoints:
                kept += 1  # the learner's own notebook: never overwritten
                continue
            shutil.copy(source, target)
    ensure_model(os.path.join(dest, "model.py"))
    print(
        f"workspace ready in {os.path.relpath(dest, ROOT)}/ "
        f"({kept} of your notebooks kept as they were)"
    )
    return dest


def main(argv):
    """Run release, or workspace into an optional folder, as argv says."""
    commands = {"release": release, "workspace": workspace}
    if (
        not 1 <= len(argv) <= 2
        or argv[0] not in commands
        or (argv[0] == "release" and len(argv) == 2)
    ):
        raise SystemExit("usage: python -m grading.course {release|workspace [folder]}")
    commands[argv[0]](*[os.path.abspath(a) for a in argv[1:]])


if __name__ == "__main__":
    main(sys.argv[1:])
