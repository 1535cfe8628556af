"""make bench-grading: one class graded by plain nbgrader and by the course's parallel grading.

    python -m bench.grading [--size N] [--lanes plain,1,2,4,dask]   # from the repository root

The class (N submissions, default 40): a correct one, a half-finished one, an empty one, one with
a broken notebook, and the rest each with one catalogued mistake. Lanes: `plain` is one
`nbgrader autograde attention` call (sequential, the baseline); 1, 2, 4 are `make autograde JOBS=k`;
`dask` is a local Dask cluster (SCHEDULER=local). Every lane regrades everyone into the same
gradebook; each must agree with plain nbgrader cell by cell. Prints wall time, CPU time (the whole
machine's busy time, so sandboxed processes count), submissions a minute and the speed-up over
plain nbgrader.
"""

import argparse
import os
import shutil
import sys
import time

from grading import classroom
from grading.authoring import course
from grading.authoring.mistakes import BUGGY


def cpu_seconds():
    """CPU seconds the whole machine has spent busy (user, nice, system, irq) since boot.

    Machine-wide on purpose: the sandboxed kernels and judges run in their own pid namespaces, so
    no process's rusage counts them. Run the benchmark on an otherwise idle machine.
    """
    with open("/proc/stat") as f:
        ticks = [int(v) for v in f.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def write_class(size):
    """A clean slate, then `size` submissions; their ids."""
    classroom.start_over()
    classroom.write_submission("correct")
    classroom.write_submission("half-finished", steps=classroom.HALF_FINISHED_STEPS)
    shutil.copytree(
        course.release_folder(), os.path.join(classroom.SUBMITTED, "empty", "attention")
    )
    broken = classroom.write_submission("broken-notebook")
    with open(os.path.join(broken, "06-layer-norm.ipynb"), "w") as f:
        f.write('{"cells": [ not json')
    for name in sorted(BUGGY)[: max(0, size - 4)]:
        function, code = BUGGY[name]
        classroom.write_submission(name.replace(".", "-").replace("_", "-"), {function: code})
    return classroom.students()


def run_lane(lane, students):
    """(wall s, CPU s, scores) of one lane."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    if lane == "plain":
        done = course.nbgrader("autograde", "attention", "--force")
        if done.returncode != 0:
            print(done.stderr[-2000:])
    elif lane == "dask":
        classroom.autograde(students, scheduler="local", force=True)
    else:
        classroom.autograde(students, jobs=int(lane), force=True)
    return time.perf_counter() - wall, cpu_seconds() - cpu, classroom.cell_scores()


def main(argv):
    """Build the class, run each lane, print the table."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.grading",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--size", type=int, default=40, help="submissions in the class")
    parser.add_argument("--lanes", default="plain,1,2,4,dask", help="comma-separated lanes")
    args = parser.parse_args(argv)
    size, lanes = args.size, args.lanes.split(",")
    students = write_class(size)
    print(f"a class of {len(students)} submissions on {os.cpu_count()} cores")
    results, baseline = {}, None
    for lane in lanes:
        print(f"lane {lane} ...", flush=True)
        results[lane] = run_lane(lane, students)
        baseline = baseline or results[lane][2]
    plain_wall = results.get("plain", (None,))[0]
    print("\n| lane | wall s | CPU s | submissions/min | vs plain nbgrader | same scores |")
    print("|---|---:|---:|---:|---:|---|")
    for lane, (wall, cpu, got) in results.items():
        name = "plain `nbgrader autograde`" if lane == "plain" else (
            "Dask LocalCluster" if lane == "dask" else f"`make autograde JOBS={lane}`")  # fmt: skip
        ratio = f"{plain_wall / wall:.2f}×" if plain_wall else "-"
        same = "yes" if got == baseline and len(got) == len(students) else "NO"
        per_minute = 60 * len(students) / wall
        print(f"| {name} | {wall:.0f} | {cpu:.0f} | {per_minute:.1f} | {ratio} | {same} |")
    if any(got != baseline for _, _, got in results.values()):
        raise SystemExit("the lanes disagree on some cell: see the table")


if __name__ == "__main__":
    main(sys.argv[1:])
