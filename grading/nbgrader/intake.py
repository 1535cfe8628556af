"""Intake: make one submission folder gradable without losing anything, before nbgrader reads it.

- a notebook that is not valid JSON is renamed to `<name>.unreadable` (kept; its cells score 0);
- a renamed notebook (`03-causal-mask (1).ipynb`) is recognised by its grade ids and copied (not
  moved) to the name nbgrader expects;
- symbolic links and special files are removed (nbgrader would copy what a link points at, which
  could be any file of the instructor's); modes are made plain (no set-id bits), and what lies
  deeper or weighs more than a hand-in zip may (unpack.py) is moved to <part>.set-aside/ beside
  the folder: kept, not graded;
- the hand-in time is the course's, never a timestamp.txt among the learner's files (hand_ins.py);
- the folder gets the course's checkpoints package in place of the learner's copy (nbgrader's
  source folders do not hold it, so nbgrader itself would copy none);
- what was wrong is returned as plain sentences for grades.csv.

`make autograde` runs it for each student; nbgrader runs it too, as `Autograde.pre_convert_hook`,
so plain `nbgrader autograde attention` gets the same intake.
"""

import filecmp
import json
import os
import shutil
import stat

import nbformat

from grading.authoring.masters import install_package, notebooks
from grading.machine.files import Aside, fresh_folder, printable, walk
from grading.nbgrader import hand_ins
from grading.nbgrader.unpack import FILE_MODE, FOLDER_MODE, MAX_BYTES, MAX_DEPTH
from grading.parts import ASSIGNMENT, PARTS, suffix
from grading.paths import JUDGED


class NotAsRoot(BaseException):
    """Root reached intake: grading stops (a BaseException, which nbgrader's hook runner lets
    through)."""


def grade_ids(book):
    """The nbgrader grade ids on a notebook's cells, as a set."""
    return {c.metadata.get("nbgrader", {}).get("grade_id") for c in book.cells} - {None}


def expected_notebooks(assignment=ASSIGNMENT):
    """{notebook file name: its grade ids}, from the assignment's master notebooks."""
    source = PARTS[assignment].masters
    return {
        name: grade_ids(nbformat.read(os.path.join(source, name), as_version=4))
        for name in notebooks(source)
    }


def grading_order(rel, expected):
    """Files the course grades first, then the rest smallest first: what a size cap keeps."""
    return rel not in expected and not (rel.endswith(".py") and os.sep not in rel)


def made_plain(path, mode):
    """chmod path to mode; False when it is not the course user's to change (a file root
    unpacked with its owner kept)."""
    try:
        os.chmod(path, mode)  # the walk's lstat said a file or a folder, not a link
        return True
    except PermissionError:
        return False


def plain_tree(folder, aside, expected=()):
    """Hold a submission to what a hand-in zip may be (unpack.py): links and special files
    removed; every mode plain; what lies over MAX_DEPTH deep, passes MAX_BYTES or is not the
    course user's to change moved aside (kept, not graded). The problems, in words."""
    problems, files = [], []
    for rel, info, depth in walk(folder, MAX_DEPTH, enter=lambda p: made_plain(p, FOLDER_MODE)):
        path, shown, mode = os.path.join(folder, rel), printable(rel), info.st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            os.unlink(path)
            problems.append(f"{shown} was a link or special file, not a file; it was removed")
        elif stat.S_ISDIR(mode) and depth >= MAX_DEPTH:
            made_plain(path, FOLDER_MODE)  # moving a folder to another writes its own entry
            aside.move(folder, rel)
            problems.append(f"{shown}/ lies more than {MAX_DEPTH} folders deep: moved to "
                            f"{aside.name}/, not graded")  # fmt: skip
        elif stat.S_ISREG(mode) and not made_plain(path, FILE_MODE):
            aside.move(folder, rel)
            problems.append(f"{shown} is not the course user's file (its owner is uid "
                            f"{info.st_uid}): moved to {aside.name}/, not graded")  # fmt: skip
        elif stat.S_ISREG(mode):
            files.append((grading_order(rel, expected), info.st_size, rel))
    kept, over = 0, []
    for _, size, rel in sorted(files):
        if kept + size > MAX_BYTES:
            aside.move(folder, rel)
            over.append(printable(rel))
        else:
            kept += size
    if over:
        problems.append(f"{len(over)} file(s) would take the submission past "
                        f"{MAX_BYTES // 2**20} MiB: moved to {aside.name}/, not graded "
                        f"({', '.join(over[:5])}{', …' if len(over) > 5 else ''})")  # fmt: skip
    return problems


def read_notebooks(folder):
    """{name: notebook} of the readable notebooks; the unreadable ones renamed aside."""
    readable = {}
    for name in sorted(f for f in os.listdir(folder) if f.endswith(".ipynb")):
        try:
            readable[name] = nbformat.read(os.path.join(folder, name), as_version=4)
        except Exception:  # any way a file can fail to be a notebook
            os.replace(os.path.join(folder, name), os.path.join(folder, name + ".unreadable"))
    return readable


def intake(folder, assignment=ASSIGNMENT):
    """Repair one submission folder of an assignment in place (originals kept).

    Return what was wrong, in plain words.
    """
    for place in (folder, os.path.dirname(folder)):  # submitted/<student>/<part>, <student>
        if os.path.islink(place):  # intake would work wherever it points
            os.unlink(place)
            return [f"{printable(os.path.basename(place))} was a link, not a folder; it was "
                    "removed, and nothing was graded"]  # fmt: skip
    if not os.path.isdir(folder):
        return [f"no {assignment}/ folder in this submission: nothing to grade"]
    student = os.path.basename(os.path.dirname(folder))  # submitted/<student>/<part>
    aside = Aside(os.path.dirname(folder), os.path.basename(folder) + ".set-aside")
    expected = expected_notebooks(assignment)
    problems = hand_ins.settle(folder, student, assignment, aside)  # first: the hand-in time
    problems += plain_tree(folder, aside, expected)
    install_package(folder, assignment)  # the course's own copy, whatever the learner's holds
    readable = read_notebooks(folder)
    for name, ids in expected.items():
        twins = [
            other
            for other, book in readable.items()
            if other not in expected and grade_ids(book) & ids
        ]
        if os.path.exists(os.path.join(folder, name + ".unreadable")) and name not in readable:
            problems.append(
                f"{name} is not a readable notebook; kept as {name}.unreadable, its cells score 0"
            )
        elif name not in readable and len(twins) == 1:
            shutil.copy(os.path.join(folder, twins[0]), os.path.join(folder, name))
            problems.append(f"{twins[0]!r} graded as {name} (it carries that notebook's cells)")
        elif (
            name in readable
            and len(twins) == 1
            and filecmp.cmp(
                os.path.join(folder, twins[0]), os.path.join(folder, name), shallow=False
            )
        ):
            problems.append(
                f"{twins[0]!r} graded as {name} (it carries that notebook's cells)"
            )  # a rerun
        elif name not in readable:
            problems.append(f"{name} is missing: its cells score 0")
    return problems


def intake_file(student, assignment=ASSIGNMENT):
    """judged/<student>/intake.json (the first part) or intake-<assignment>.json (a later one)."""
    return os.path.join(JUDGED, student, f"intake{suffix(assignment)}.json")


def save(student, problems, assignment=ASSIGNMENT):
    """Write one student's intake problems of an assignment to judged/<student>/, whole or not
    at all (a file written halfway would break every table that reads it)."""
    os.makedirs(os.path.join(JUDGED, student), exist_ok=True)
    text = json.dumps([printable(p) for p in problems], indent=1, ensure_ascii=False)
    path = intake_file(student, assignment)
    with open(path + ".new", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".new", path)


def load(student, assignment=ASSIGNMENT):
    """One student's intake problems, as save wrote them ([] if intake never ran)."""
    path = intake_file(student, assignment)
    if not os.path.exists(path):
        return []
    try:
        with open(path, encoding="utf-8") as f:
            said = json.load(f)
    except (OSError, ValueError) as err:
        return [f"intake's record {os.path.basename(path)} cannot be read ({err})"]
    return [str(p) for p in said] if isinstance(said, list) else []


def nbgrader_hook(assignment, student, notebooks):
    """Autograde.pre_convert_hook: intake the folder the listed notebooks come from.

    The list is then replaced by the repaired notebooks. nbgrader passes the student pattern ("*"),
    so the folder is found from the notebooks' paths. nbgrader only logs an Exception this raises
    and grades on: so it runs as the course user, who owns submitted/ when root started the grading,
    and a hook still called by root (the formgrader's button, in a server root started) stops
    with NotAsRoot, which no `except Exception` catches, before it touches anything.
    """
    if os.geteuid() == 0:
        raise NotAsRoot(
            "grading never runs as root: grade with `make autograde` or `nbgrader autograde`, "
            "which hand themselves over to the course user (docs/scoring-and-sandbox.md)"
        )
    if not notebooks:
        return
    folder = os.path.dirname(os.path.abspath(notebooks[0]))
    try:
        problems = intake(folder, assignment)
    except Exception as err:  # nbgrader would log it and grade the folder as it is: never that
        problems = [not_graded(folder, err)]
    save(os.path.basename(os.path.dirname(folder)), problems, assignment)
    safe = os.path.isdir(folder) and not os.path.islink(folder)
    notebooks[:] = sorted(
        os.path.join(folder, f)
        for f in (os.listdir(folder) if safe else [])
        if f.endswith(".ipynb")
    )  # none: nbgrader records that it graded nothing, and goes on to the next student


class IntakeStuck(BaseException):
    """A submission intake could neither make safe nor move away: grading stops (nbgrader lets
    a BaseException from its hook through) rather than grade it as it is."""


def not_graded(folder, err):
    """Move a folder intake could not make safe away whole (kept, not graded); the sentence."""
    try:
        kept = fresh_folder(os.path.dirname(folder), os.path.basename(folder) + ".not-graded")
        os.rename(folder, os.path.join(kept, os.path.basename(folder)))
    except OSError as stuck:
        raise IntakeStuck(f"{folder}: intake failed ({err!r}), and it could not be moved "
                          f"away ({stuck!r}); move it out of submitted/, then grade again"
                          ) from err  # fmt: skip
    return (
        f"intake could not make this folder safe to grade ({type(err).__name__}: {err}); it "
        f"was moved whole to {os.path.basename(kept)}/, kept, and nothing of it is graded"
    )
