"""Figures for the closing notes.

Notebook run times, student-edition size, check and grading speed, for part one and part two
(its training in notebook 4, its checkpoints and its judge).

make bench            (or, from the repository root: .venv/bin/python -m bench.run)
"""

import tempfile
import time

from bench import judge as judge_bench
from checkpoints.attention.steps import CHECKS
from grading.authoring import course, masters
from grading.judge import attention_hidden as hidden
from grading.judge.isolation import underlay
from grading.judge.reference import reference
from grading.machine import sandbox


def timed(fn, repeat=5):
    """Best wall-clock seconds of fn() over repeat runs (the minimum: least disturbed by noise)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    """Print the figures: masters' run times, release size, check speeds, one judged submission."""
    print("== master notebooks (nbclient, scratch copy) ==")
    with tempfile.TemporaryDirectory() as scratch:
        _, timings = masters.run_masters(scratch)
    print(f"total {sum(timings.values()):.1f} s")
    print("== student edition ==")
    course.release()
    print("== checks, best of 5, on the reference ==")
    for name, check in CHECKS.items():
        # timed() calls the closure right away, inside this iteration, so late binding never bit;
        # the default arguments pin the loop variables explicitly all the same.
        visible = timed(lambda check=check: check(reference()))
        hidden_time = timed(lambda name=name: hidden.judge(name, underlay(reference(), name)))
        print(f"{name:13} visible {visible * 1000:7.1f} ms   hidden {hidden_time * 1000:7.1f} ms")
    print("== the judge on one whole submission (one sandboxed worker per checkpoint) ==")
    sandbox.require()
    judge_bench.measure("attention", 4)
    part_two()


def part_two():
    """Part two: its five notebooks (training included), its checks, its judge on one submission."""
    import xslm
    from checkpoints.xslm.checks import CHECKS as XSLM_CHECKS
    from checkpoints.xslm.checks import Local, checkpoint_report

    print("== part two: master notebooks (nbclient, scratch copy) ==")
    with tempfile.TemporaryDirectory() as scratch:
        _, timings = masters.run_masters(scratch, part="xslm")
    print(f"total {sum(timings.values()):.1f} s")
    print("== part two: checkpoints, best of 3, on the reference ==")
    for name in XSLM_CHECKS:
        best = timed(lambda name=name: checkpoint_report(name, Local(xslm.engine, xslm.gpt)), 3)
        print(f"{name:13} {best * 1000:8.1f} ms")
    print("== part two: the judge on one whole submission ==")
    judge_bench.measure("xslm", 4)


if __name__ == "__main__":
    main()
