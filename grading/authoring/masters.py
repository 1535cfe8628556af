"""Run the master notebooks in a scratch copy: the source of the reference files and outputs/.

Part one's masters write model.py and three artifacts; part two's (notebooks/masters/xslm) write
engine.py and gpt.py, kept in xslm/ as part two's reference, and three artifacts of their own.

python -m grading masters            # run both parts' notebooks, report time per notebook
python -m grading masters --update   # ...and copy the reference files and outputs/ into the repo
python -m grading masters --check    # ...and exit 1 if the committed ones have drifted
python -m grading masters xslm       # one part only (attention or xslm), with any flag
"""

import filecmp
import os
import shutil
import tempfile
import time

from checkpoints.i18n import DEFAULT as ENGLISH
from grading.parts import ASSIGNMENT, PARTS, learner_programs
from grading.paths import LEARNER_PACKAGE, ROOT

SOURCE = PARTS[ASSIGNMENT].masters  # the first part's masters: the default folder below


def install_package(folder, part, edition=ENGLISH):
    """Put a fresh copy of part's share of the checkpoints package into folder (any old one goes).

    The package lives at the top of the repository, outside nbgrader's source folders, so nbgrader
    copies it nowhere: the release, each submission (at intake) and each workspace get it from
    here. A non-English edition's copy carries locales/edition, the language its kernel speaks.
    """
    target = os.path.join(folder, "checkpoints")
    if os.path.islink(target) or os.path.isfile(target):
        os.unlink(target)
    elif os.path.isdir(target):
        shutil.rmtree(target)
    left_out = {os.path.join(LEARNER_PACKAGE, name) for name in PARTS[part].package_leaves_out}

    def ignore(here, names):
        """The caches, a stray edition file, and what part leaves out."""
        skip = {"__pycache__"} | ({"edition"} if os.path.basename(here) == "locales" else set())
        return [n for n in names if n in skip or os.path.join(here, n) in left_out]

    shutil.copytree(LEARNER_PACKAGE, target, ignore=ignore)
    if edition != ENGLISH:
        with open(os.path.join(target, "locales", "edition"), "w", encoding="utf-8") as f:
            f.write(edition + "\n")


def notebooks(folder=SOURCE):
    """The master notebooks' file names, in step order."""
    return sorted(f for f in os.listdir(folder) if f.endswith(".ipynb"))


def execute(path, cwd, timeout=120):
    """Execute one notebook in cwd with nbclient; return it with outputs (errors raise)."""
    import nbformat
    from nbclient import NotebookClient

    book = nbformat.read(path, as_version=4)
    NotebookClient(
        book, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": cwd}}
    ).execute()
    return book


def run_masters(scratch, log=print, part=ASSIGNMENT):
    """Copy a part's master assignment into scratch, execute every notebook there in order;
    return (the folder, timings).
    """
    work = os.path.join(scratch, part)
    learner_files = [*learner_programs(), "outputs", "__pycache__"]
    shutil.copytree(PARTS[part].masters, work, ignore=shutil.ignore_patterns(*learner_files))
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in [ROOT, os.environ.get("PYTHONPATH")] if p)
    timings = {}
    names = notebooks(work)
    for k, name in enumerate(names, 1):
        start = time.perf_counter()
        execute(os.path.join(work, name), work)
        timings[name] = time.perf_counter() - start
        log(f"[{k}/{len(names)}] {name}: {timings[name]:.1f} s")
    return work, timings


def drift(work, part=ASSIGNMENT):
    """Files of the repository's reference that differ from what the masters just produced."""
    return [
        ours
        for made, ours in PARTS[part].reference.items()
        if not os.path.exists(os.path.join(ROOT, ours))
        or not filecmp.cmp(os.path.join(ROOT, ours), os.path.join(work, made), shallow=False)
    ]


def update(work, part):
    """Copy what a part's masters produced to where the repository keeps its reference."""
    for made, ours in PARTS[part].reference.items():
        os.makedirs(os.path.dirname(os.path.join(ROOT, ours)), exist_ok=True)
        shutil.copy(os.path.join(work, made), os.path.join(ROOT, ours))


def arguments(parser, command):
    """`python -m grading masters [attention|xslm ...] [--update | --check]`."""
    parser.add_argument("parts", nargs="*", metavar="part",
                        help=f"only these parts ({', '.join(PARTS)}; default all)")  # fmt: skip
    then = parser.add_mutually_exclusive_group()
    then.add_argument("--update", action="store_true",
                      help="copy the reference files and outputs/ into the repository")  # fmt: skip
    then.add_argument("--check", action="store_true",
                      help="exit 1 if the committed ones have drifted")  # fmt: skip


def main(args):
    """Run each part's master notebooks; refresh or compare what they write; the exit status."""
    if set(args.parts) - set(PARTS):
        raise SystemExit(f"no part {sorted(set(args.parts) - set(PARTS))[0]!r}: {', '.join(PARTS)}")
    failed = 0
    for part in args.parts or list(PARTS):
        with tempfile.TemporaryDirectory() as scratch:
            work, timings = run_masters(scratch, part=part)
            print(f"{part}: all {len(timings)} notebooks: {sum(timings.values()):.1f} s")
            if args.update:
                update(work, part)
                kept = ", ".join(PARTS[part].reference.values())
                print(f"{part}: updated {kept} from the masters")
            changed = drift(work, part)
            if changed:
                print(f"{part}: differs from the master notebooks: " + ", ".join(changed))
                failed = failed or args.check
            else:
                print(f"{part}: the reference files match the master notebooks")
    return 1 if failed else 0
