"""What the trusted judge costs for one submission: its first in a process, then every other.

    .venv/bin/python -m bench.judge [--part xslm] [--runs 4]     # from the repository root

Judges a part's reference submission (the files its masters write, as the repository keeps them)
`runs` times in one process, as a grading server judges its submissions one after another. The
first run also computes the reference's answers to the hidden cases, once per process; the later
runs are what each further submission costs. For each run: wall seconds, the CPU seconds the
whole machine spent (the sandboxed workers are processes of their own) and the seconds a
hypervisor stole. Run it on an otherwise idle machine, and read the stolen column first.
"""

import argparse
import sys
import time

from bench.grading import cpu_seconds
from bench.verdicts import handed_in, scratch
from grading.judge import attention, xslm
from grading.machine import sandbox
from grading.parts import PARTS

JUDGES = {"attention": attention, "xslm": xslm}


def timed(judge, folder):
    """(wall s, machine CPU s, stolen s) of one judgement of folder; every cell must pass."""
    busy, stolen, start = *cpu_seconds(), time.perf_counter()
    verdicts, _ = judge.judge_folder(folder)
    wall = time.perf_counter() - start
    failed = sorted(g for g, v in verdicts.items() if not v.passed)
    if failed:
        raise SystemExit(f"the reference failed {failed}: fix that before timing the judge")
    after_busy, after_stolen = cpu_seconds()
    return wall, after_busy - busy, after_stolen - stolen


def measure(part, runs):
    """Judge part's reference `runs` times in this process; print each run, then the later
    runs' best and median wall seconds."""
    walls = []
    with scratch(handed_in(part)) as folder:
        for k in range(runs):
            wall, cpu, stolen = timed(JUDGES[part], folder)
            walls.append(wall)
            label = "first" if k == 0 else f"run {k + 1}"
            print(f"{label}: {wall:.2f} s wall, {cpu:.2f} CPU s, {stolen:.2f} s stolen", flush=True)
    later = sorted(walls[1:])
    where = "UNSAFE: no sandbox" if sandbox.unsafe() else "sandboxed"
    print(f"{part}'s judge after the first: best {later[0]:.2f} s, "
          f"median {later[len(later) // 2]:.2f} s ({where})")  # fmt: skip


def main(argv):
    """The command line: --part, --runs."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.judge",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--part", choices=sorted(PARTS), default="xslm")
    parser.add_argument("--runs", type=int, default=4, help="judgements in one process (≥ 2)")
    args = parser.parse_args(argv)
    if args.runs < 2:
        parser.error("--runs must be at least 2: the first run is not what later ones cost")
    measure(args.part, args.runs)


if __name__ == "__main__":
    main(sys.argv[1:])
