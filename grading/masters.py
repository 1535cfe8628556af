"""Run the master notebooks in a scratch copy: the source of the reference model.py and outputs/.

python -m grading.masters            # run all eight, report time per notebook
python -m grading.masters --update   # ...and copy model.py and outputs/ to the repository root
python -m grading.masters --check    # ...and exit 1 if the committed ones have drifted
"""

import filecmp
import os
import shutil
import sys
import tempfile
import time

from checkpoints.artifacts import ARTIFACT_CHECKS
from grading.reference import ROOT

SOURCE = os.path.join(ROOT, "notebooks", "attention")
ARTIFACTS = list(ARTIFACT_CHECKS)  # the artifact files the masters write into outputs/


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


def run_masters(scratch, log=print):
    """Copy the master assignment into scratch, execute every notebook there in order;
    return timings.
    """
    work = os.path.join(scratch, "attention")
    shutil.copytree(
        SOURCE, work, ignore=shutil.ignore_patterns("model.py", "outputs", "__pycache__")
    )
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in [ROOT, os.environ.get("PYTHONPATH")] if p)
    timings = {}
    names = notebooks(work)
    for k, name in enumerate(names, 1):
        start = time.perf_counter()
        execute(os.path.join(work, name), work)
        timings[name] = time.perf_counter() - start
        log(f"[{k}/{len(names)}] {name}: {timings[name]:.1f} s")
    return work, timings


def drift(work):
    """Files of the root reference that differ from what the masters just produced."""
    pairs = [("model.py", "model.py")] + [
        (os.path.join("outputs", a), os.path.join("outputs", a)) for a in ARTIFACTS
    ]
    return [
        ours
        for ours, made in pairs
        if not os.path.exists(os.path.join(ROOT, ours))
        or not filecmp.cmp(os.path.join(ROOT, ours), os.path.join(work, made), shallow=False)
    ]


def main(argv):
    """`python -m grading.masters [--update|--check]`: run the masters; refresh or compare."""
    with tempfile.TemporaryDirectory() as scratch:
        work, timings = run_masters(scratch)
        print(f"all {len(timings)} notebooks: {sum(timings.values()):.1f} s")
        if "--update" in argv:
            shutil.copy(os.path.join(work, "model.py"), os.path.join(ROOT, "model.py"))
            os.makedirs(os.path.join(ROOT, "outputs"), exist_ok=True)
            for a in ARTIFACTS:
                shutil.copy(os.path.join(work, "outputs", a), os.path.join(ROOT, "outputs", a))
            print("updated model.py and outputs/ from the master notebooks")
        changed = drift(work)
        if changed:
            print("differs from the master notebooks: " + ", ".join(changed))
            return 1 if "--check" in argv else 0
        print("model.py and outputs/ match the master notebooks")
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
