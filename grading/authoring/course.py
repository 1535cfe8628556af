"""Instructor and learner commands on top of nbgrader (the Makefile calls these).

python -m grading release [--edition ko]     # student edition in release/attention
                                             # (another edition: release-ko/attention)
python -m grading workspace [--edition ko]   # learner workspace: workspace/part-1-attention/
python -m grading release --part xslm        # part two's student edition: release/xslm
python -m grading workspace --part xslm      # part two's notebooks: workspace/part-2-gpt/
"""

import os
import shutil
import subprocess
import sys
import tempfile

import nbformat

from checkpoints.i18n import DEFAULT as ENGLISH
from grading import paths
from grading.authoring.masters import SOURCE, install_package, notebooks
from grading.parts import ASSIGNMENT, PARTS, learner_programs, load, registered
from grading.paths import COURSE, ROOT, WORKSPACE


def tool_environment():
    """os.environ with this environment's tools (alembic, jupyter) on PATH and the course
    importable: what nbgrader and the grading servers need."""
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    return dict(os.environ, PATH=path, PYTHONPATH=ROOT)


def nbgrader(*args, edition=None, course=None, env=None):
    """Run one nbgrader command from the course root, with this environment's tools on PATH;
    course: another class folder for it (grader_config's COURSE); env: variables to add."""
    env = {**tool_environment(), **(env or {})}
    if edition:
        env["ATTENTION_EDITION"] = edition  # grader_config's code stub speaks it
    if course:  # a class of its own has its own SQLite gradebook, never DB_URL's
        env["ATTENTION_COURSE"] = os.path.abspath(course)
        env.pop("DB_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )


def folder_size(path):
    """Total bytes of the files under path."""
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def release_folder(edition=ENGLISH, assignment=ASSIGNMENT):
    """Where an edition's student edition goes: release/attention, release-ko/attention, ..."""
    return paths.release(assignment, edition)


def release(edition=ENGLISH, assignment=ASSIGNMENT, into=None, register=True):
    """Build the student edition of one language edition; refuse if the master folder holds
    learner files.

    Learner files in the master folder (model.py, outputs/) would ship with the student edition.
    English is registered in the gradebook (`nbgrader generate_assignment`); another edition is
    generated from its built source (authoring.editions) with --no-db: its graded cells are the
    English ones byte for byte, so the gradebook grades every edition alike.

    into: a class folder of its own to release into instead: the student edition in into/<part>,
    registered (English) in into's own gradebook, into/records/. The course's release/, class and
    gradebook stay as they are: a site's build, or a test beside others that grade, uses it
    (another edition's translated notebooks are still built in build/editions/ first).
    register=False: registered nowhere (--no-db), for a copy that is only read (a workspace's);
    it also spares nbgrader making a gradebook, its costliest step for a new folder.
    """
    from grading.authoring import editions

    source = registered(assignment).masters
    leftovers = [
        n for n in [*learner_programs(), "outputs"] if os.path.exists(os.path.join(source, n))
    ]
    if leftovers:
        raise SystemExit(
            f"notebooks/{assignment} holds {', '.join(leftovers)} from running the masters in "
            "place; they would ship to learners. Delete them (they are git-ignored) and retry."
        )
    if edition not in editions.languages():
        raise SystemExit(f"no edition {edition!r}: there are {', '.join(editions.languages())}")
    count = len(notebooks(source))
    print(f"generating the {edition} student edition of {assignment}: {count} notebooks ...")
    root = os.path.abspath(into) if into is not None else COURSE  # nbgrader's class folder
    flags = [] if register and edition == ENGLISH else ["--no-db"]
    if edition != ENGLISH:  # relative to nbgrader's root, the class folder
        source = os.path.relpath(editions.build(edition, assignment), root)
        flags.append(f"--CourseDirectory.source_directory={source}")
    if into is not None:  # an absolute folder: nbgrader's root does not prefix it
        os.makedirs(into, exist_ok=True)
        flags.append(f"--CourseDirectory.release_directory={root}")
    elif edition != ENGLISH:
        released = os.path.relpath(os.path.dirname(paths.release(assignment, edition)), COURSE)
        flags.append(f"--CourseDirectory.release_directory={released}")
    done = nbgrader(
        "generate_assignment", assignment, "--force", *flags, edition=edition, course=into
    )
    if done.returncode != 0:
        print(done.stdout[-3000:] + done.stderr[-3000:])
        raise SystemExit("nbgrader generate_assignment failed (its log is above)")
    folder = os.path.join(into, assignment) if into else release_folder(edition, assignment)
    if not os.path.isfile(os.path.join(folder, "checkpoints", "__init__.py")):
        print(done.stdout[-3000:] + done.stderr[-3000:])
        raise SystemExit(f"{shown(folder)} has no checkpoints package: grader_config.py's "
                         "release hook did not run (its log is above)")  # fmt: skip
    files = sum(len(f) for _, _, f in os.walk(folder))
    print(f"{shown(folder)}: {files} files, {folder_size(folder) / 1024:.0f} KiB")
    return folder


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
    from grading.authoring.mistakes import replace_function

    for cell in book.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in solutions:
            cell.source = solutions[gid]
            for function, code in (replace or {}).items():
                if f"def {function}(" in cell.source:
                    cell.source = replace_function(cell.source, function, code)
    return book


def part_notebooks(part):
    """A part's notebook names, in step order: its masters'. Where this account may not read the
    masters (a learner's on the hub: grading.hub.privacy), its English student edition's, which
    make hub builds and learners may read: the same names. None when neither is there to read."""
    for folder in (PARTS[part].masters, paths.release(part)):
        if os.access(folder, os.R_OK | os.X_OK):
            return notebooks(folder)
    return []


def notebooks_in(folder, part):
    """The names of part's notebooks that folder holds."""
    return [n for n in part_notebooks(part) if os.path.exists(os.path.join(folder, n))]


def counted(n, part):
    """`8 part-one notebooks`, `1 part-two notebook`."""
    return f"{n} {PARTS[part].label} notebook{'s' * (n != 1)}"


def what_changed(before, part, added):
    """`added 5 part-two notebooks; your 8 part-one notebooks are untouched`: none reads as lost."""
    said = [f"added {counted(added, part)}"] if added else []
    for other, names in before.items():
        if names:
            said.append(
                f"your {counted(len(names), other)} {'are' if len(names) > 1 else 'is'} untouched"
            )
    return "; ".join(said + ["checkpoints/ refreshed"])


def shown(path):
    """path as a message names it: from the repository when it is inside, else in full."""
    inside = os.path.commonpath([os.path.abspath(path), ROOT]) == ROOT
    return os.path.relpath(path, ROOT) if inside else os.path.abspath(path)


def flat_files(dest, part):
    """A part's files at the top of a workspace of the older flat layout, which kept every part
    there: its notebooks (and Jupyter's checkpoints of them), its learner files, its hand-in zip."""
    names = part_notebooks(part.name)
    candidates = [
        *names,
        *(f".ipynb_checkpoints/{n[: -len('.ipynb')]}-checkpoint.ipynb" for n in names),
        *part.learner_files,
        f"hand-in-{part.name}.zip",
    ]
    return [n for n in candidates if os.path.isfile(os.path.join(dest, n))]


def into_part_folders(dest):
    """Move a flat workspace's part files into each part's folder, saying each move; a file
    whose place is taken stays where it is, said too. Nothing is overwritten or deleted but the
    course's own checkpoints/ at the top, which only the flat layout's notebooks imported; each
    part folder that receives notebooks gets the package in its place, in the same edition.

    Only a folder `make lab` made is touched: one whose checkpoints/ is the course's package (a
    folder of another project with a model.py and a checkpoints/ of its own is left alone)."""
    old_package = os.path.join(dest, "checkpoints")
    if not os.path.isfile(os.path.join(old_package, "overview.py")):
        return
    moves = {name: flat_files(dest, part) for name, part in PARTS.items()}
    if not any(moves.values()):
        return
    edition_file = os.path.join(old_package, "locales", "edition")
    edition = ENGLISH
    if os.path.isfile(edition_file):
        with open(edition_file, encoding="utf-8") as f:
            edition = f.read().strip() or ENGLISH
    print(f"{shown(dest)}/ keeps each part in a folder of its own now:")
    for name, files in moves.items():
        folder = PARTS[name].folder
        for rel in files:
            source, target = os.path.join(dest, rel), os.path.join(dest, folder, rel)
            if os.path.lexists(target):
                print(f"  left {rel} where it is: {folder}/{rel} already exists")
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.rename(source, target)
            print(f"  moved {rel} -> {folder}/{rel}")
        if notebooks_in(os.path.join(dest, folder), name):
            install_package(os.path.join(dest, folder), name, edition)
    shutil.rmtree(old_package, ignore_errors=True)


def share_parts(dest):
    """Give each part folder's checkpoints/ what its share leaves out of the other parts the
    workspace holds, so the progress view in any part's folder shows every part the learner has
    (each read from its own folder) and never says "done" while one of them is open."""
    held = [p for p in PARTS.values() if os.path.isdir(os.path.join(dest, p.folder, "checkpoints"))]
    everywhere = set.intersection(*(set(p.package_leaves_out) for p in held)) if held else set()
    for part in held:
        for name in set(part.package_leaves_out) - everywhere:
            target = os.path.join(dest, part.folder, "checkpoints", name)
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(os.path.join(paths.LEARNER_PACKAGE, name), target,
                            ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip


def workspace(dest=WORKSPACE, edition=ENGLISH, assignment=ASSIGNMENT):
    """Copy a part's student edition into dest/<its folder>/ without touching anything the
    learner already has there; returns that folder. The student edition is made for it in a
    folder of its own (release()'s into): a workspace leaves the course's release/ and gradebook,
    which are the instructor's, as they are.

    Each part has a folder of its own (part-1-attention/, part-2-gpt/): its notebooks beside the
    files they save, and the checkpoints package of the parts the workspace holds (share_parts).
    A workspace of the older flat layout is first moved into those folders (into_part_folders),
    each move said.
    """
    with tempfile.TemporaryDirectory(prefix="attn-release-") as own:
        released = release(edition, assignment, into=own, register=False)
        return fill_workspace(dest, released, assignment)


def fill_workspace(dest, released, assignment):
    """workspace's copy of the student edition in released into dest/<part's folder>/."""
    into_part_folders(dest)
    here = os.path.join(dest, PARTS[assignment].folder)
    os.makedirs(here, exist_ok=True)
    before = {name: notebooks_in(os.path.join(dest, p.folder), name) for name, p in PARTS.items()}
    edition_file = os.path.join(here, "checkpoints", "locales", "edition")
    if os.path.exists(edition_file):
        os.remove(edition_file)  # the package is replaced as a whole; English ships no such file
    for folder, _, files in os.walk(released):
        for name in files:
            source = os.path.join(folder, name)
            target = os.path.join(here, os.path.relpath(source, released))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            in_checkpoints = os.path.relpath(source, released).startswith("checkpoints")
            if os.path.exists(target) and not in_checkpoints:
                continue  # the learner's own file: never overwritten
            shutil.copy(source, target)
    if PARTS[assignment].prepare_workspace:  # its stub files
        load(PARTS[assignment].prepare_workspace)(here)
    share_parts(dest)
    added = len(notebooks_in(here, assignment)) - len(before[assignment])
    print(f"workspace ready in {shown(here)}/: {what_changed(before, assignment, added)}")
    return here


def arguments(parser, command):
    """`python -m grading release|workspace [folder] [--edition CODE] [--part NAME]`."""
    if command == "workspace":
        parser.add_argument("folder", nargs="?", help="where (default workspace/)")
    parser.add_argument("--edition", default=ENGLISH, help="the language edition: en, ko or ja")
    parser.add_argument("--part", choices=list(PARTS), default=ASSIGNMENT,
                        help="the part (default attention)")  # fmt: skip


def main(args):
    """Build the release, or the workspace, of one part in one edition."""
    if args.command == "release":
        return release(args.edition, args.part)
    folders = [os.path.abspath(args.folder)] if args.folder else []
    return workspace(*folders, edition=args.edition, assignment=args.part)
