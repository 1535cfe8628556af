"""make bench-grading: one class graded by plain nbgrader and by each of the course's lanes.

    python -m bench.grading [--size N] [--part attention|xslm] [--lanes plain,1,2,4,...]

The class (N submissions, default 40). Part one: a correct one, a half-finished one, an empty one,
one with a broken notebook, then the catalogued mistakes in turn (numbered once they run out).
Part two: a correct one, an empty one, then its catalogued mistakes in turn.

Lanes (every lane regrades everyone into the same gradebook, and must agree with the first lane
cell by cell):
    plain        one `nbgrader autograde <part>` call: sequential, notebooks executed (the baseline)
    plain-noexec the same with ATTENTION_EXECUTE=0
    J            `make autograde JOBS=J`: J warm grading servers, notebooks executed
    noexec-J     `make autograde EXECUTE=0 JOBS=J`: the same, no notebook run
    dask         a local Dask cluster (SCHEDULER=local): packed submissions, graded by its
                 workers in class folders of their own, recorded by grading servers here
    dask-noexec  the same with EXECUTE=0

Prints, per lane: wall time, CPU time (the whole machine's busy time, so sandboxed kernels and
judge workers count), CPU per submission, the time a hypervisor took the CPUs away (stolen: on a
shared virtual machine it slows whichever lane it hits), the peak memory of one grading server,
submissions a minute and the speed-up over plain nbgrader; then what 2,000 learners would take on
N machines.
"""

import argparse
import itertools
import os
import shutil
import sys
import threading
import time

from grading import classroom
from grading.authoring import course
from grading.authoring.mistakes import BUGGY
from grading.parts import ASSIGNMENT, XSLM

LEARNERS = 2000  # the projection's class


def cpu_seconds():
    """(busy, stolen): CPU seconds the whole machine has spent busy (user, nice, system, irq,
    softirq) since boot, and the seconds a hypervisor gave its CPUs to other machines (steal).

    Machine-wide on purpose: the sandboxed kernels and judges run in their own pid namespaces, so
    no process's rusage counts them. Run the benchmark on an otherwise idle machine. Stolen time
    is no work of ours, but it stretches wall times: a lane measured while much was stolen is
    slower than it would be, and the table says how much it was.
    """
    with open("/proc/stat") as f:
        ticks = [int(v) for v in f.readline().split()[1:]]
    busy = sum(ticks[:7]) - ticks[3] - ticks[4]  # all but idle, iowait and steal
    stolen = ticks[7] if len(ticks) > 7 else 0
    return busy / os.sysconf("SC_CLK_TCK"), stolen / os.sysconf("SC_CLK_TCK")


class PeakMemory:
    """The largest peak resident size (VmHWM) of any grading server (`python -m grading serve`)
    while it runs, sampled twice a second. A server holds nbgrader, the course and the judge; its
    sandboxed kernels and judge workers are processes of their own, not counted."""

    def __init__(self):
        self.peak, self.running = 0, True
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def watch(self):
        """Sample until stop()."""
        while self.running:
            for pid in filter(str.isdigit, os.listdir("/proc")):
                self.peak = max(self.peak, server_peak(pid))
            time.sleep(0.5)

    def stop(self):
        """The peak in MiB."""
        self.running = False
        self.thread.join()
        return self.peak / 1024


def server_peak(pid):
    """VmHWM in KiB of a grading server process, 0 for any other (or one already gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if b"grading\0serve" not in f.read():
                return 0
        with open(f"/proc/{pid}/status") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("VmHWM:")), 0)
    except (OSError, ValueError):
        return 0


def numbered(names, size):
    """size ids from names, in turn; a name's second and later uses get -2, -3, …"""
    cycle = itertools.cycle(names)
    seen = {}
    for _ in range(size):
        name = next(cycle)
        seen[name] = seen.get(name, 0) + 1
        yield name, (name if seen[name] == 1 else f"{name}-{seen[name]}")


def write_class(size, part=ASSIGNMENT):
    """A clean slate, then `size` submissions of the part; their ids."""
    classroom.start_over(part)
    if part == XSLM:
        return write_xslm_class(size)
    classroom.write_submission("correct")
    classroom.write_submission("half-finished", steps=classroom.HALF_FINISHED_STEPS)
    shutil.copytree(course.release_folder(), os.path.join(classroom.SUBMITTED, "empty", part))
    broken = classroom.write_submission("broken-notebook")
    with open(os.path.join(broken, "06-layer-norm.ipynb"), "w") as f:
        f.write('{"cells": [ not json')
    for name, student in numbered(sorted(BUGGY), max(0, size - 4)):
        function, code = BUGGY[name]
        classroom.write_submission(student.replace(".", "-").replace("_", "-"), {function: code})
    return classroom.students(part)


def write_xslm_class(size):
    """Part two's class: correct, empty, then its catalogued mistakes in turn."""
    from grading.authoring.mistakes.part_two import MISTAKES

    classroom.write_xslm_submission("xslm-correct")
    empty = os.path.join(classroom.SUBMITTED, "xslm-empty", XSLM)
    shutil.copytree(course.release_folder(assignment=XSLM), empty)
    for name, student in numbered(sorted(MISTAKES), max(0, size - 2)):
        classroom.write_xslm_submission("xslm-" + student.split(".")[1].replace("_", "-"), name)
    return classroom.students(XSLM)


def lane_settings(lane):
    """(how: plain | jobs | dask, jobs, execute) of a lane's name."""
    execute = not lane.endswith("noexec") and not lane.startswith("noexec")
    if lane.startswith("plain"):
        return "plain", None, execute
    if lane.startswith("dask"):
        return "dask", None, execute
    return "jobs", int(lane.split("-")[-1]), execute


def run_lane(lane, students, part):
    """{wall, cpu, peak, book, scores} of one lane (book: the recording servers' CPU in Dask)."""
    how, jobs, execute = lane_settings(lane)
    os.environ["ATTENTION_EXECUTE"] = "1" if execute else "0"
    memory, wall, cpu = PeakMemory(), time.perf_counter(), cpu_seconds()
    outcomes = []
    if how == "plain":
        done = course.nbgrader("autograde", part, "--force")
        if done.returncode != 0:
            print(done.stderr[-2000:])
    else:
        scheduler = "local" if how == "dask" else None
        outcomes = classroom.autograde(students, jobs=jobs, scheduler=scheduler, force=True,
                                       assignment=part)  # fmt: skip
    wall = time.perf_counter() - wall
    cpu, stolen = (after - before for after, before in zip(cpu_seconds(), cpu))
    scores = {s: cells for s, cells, *_ in classroom.grade_table(part) if cells}
    book = sum(o.cpu for o in outcomes) if how == "dask" else None
    return {"wall": wall, "cpu": cpu, "stolen": stolen, "peak": memory.stop(), "book": book,
            "scores": scores}  # fmt: skip


LANE_NAMES = {"plain": "plain `nbgrader autograde`",
              "plain-noexec": "plain `nbgrader autograde`, ATTENTION_EXECUTE=0",
              "dask": "Dask LocalCluster, no shared folder",
              "dask-noexec": "Dask LocalCluster, no shared folder, EXECUTE=0"}  # fmt: skip


def lane_name(lane):
    """How the table names a lane."""
    if lane in LANE_NAMES:
        return LANE_NAMES[lane]
    _, jobs, execute = lane_settings(lane)
    return f"`make autograde {'' if execute else 'EXECUTE=0 '}JOBS={jobs}`"


def table(results, size, baseline):
    """The markdown table of every lane."""
    plain = results.get("plain", {}).get("wall")
    lines = ["| lane | wall s | CPU s | CPU s a submission | stolen s | server peak MiB "
             "| submissions/min | vs plain nbgrader | same scores |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]  # fmt: skip
    for lane, r in results.items():
        ratio = f"{plain / r['wall']:.2f}×" if plain else "-"
        same = "yes" if r["scores"] == baseline and len(r["scores"]) == size else "NO"
        peak = f"{r['peak']:.0f}" if r["peak"] else "-"
        lines.append(f"| {lane_name(lane)} | {r['wall']:.0f} | {r['cpu']:.0f} | "
                     f"{r['cpu'] / size:.2f} | {r['stolen']:.0f} | {peak} | "
                     f"{60 * size / r['wall']:.1f} | {ratio} | "
                     f"{same} |")  # fmt: skip
    return "\n".join(lines)


def projection(results, size):
    """What LEARNERS would take on N 2-core machines, from the measured CPU per submission."""
    lines = [f"\nProjected for {LEARNERS:,} learners on N machines of 2 cores, each busy all the "
             "time (the measured CPU s a submission of the lane, divided over 2N cores); Dask's "
             "recording runs on the course's machine, at the measured recording CPU a submission "
             "over its 2 cores, beside the workers:"]  # fmt: skip
    for lane, r in results.items():
        if lane.startswith("plain"):
            continue
        per = r["cpu"] / size
        book = (r["book"] or 0.0) / size
        cells = []
        for machines in (1, 4, 10):
            work = LEARNERS * max(per - book, 0.0) / (2 * machines)
            minutes = max(work, LEARNERS * book / 2) / 60
            cells.append(f"N={machines}: {minutes:.0f} min")
        note = f" (recording {book:.2f} CPU s a submission)" if r["book"] is not None else ""
        lines.append(f"- {lane_name(lane)}: {', '.join(cells)}{note}")
    return "\n".join(lines)


def main(argv):
    """Build the class, run each lane, print the table and the projection."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.grading",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--size", type=int, default=40, help="submissions in the class")
    parser.add_argument("--part", default=ASSIGNMENT, choices=[ASSIGNMENT, XSLM])
    parser.add_argument("--lanes", default="plain,1,2,4,noexec-2,dask,dask-noexec",
                        help="comma-separated lanes (see above)")  # fmt: skip
    args = parser.parse_args(argv)
    lanes = args.lanes.split(",")
    for lane in lanes:
        try:
            lane_settings(lane)
        except ValueError:
            parser.error(f"no lane {lane!r}")
    students = write_class(args.size, args.part)
    size = len(students)
    print(f"a class of {size} submissions of {args.part} on {os.cpu_count()} cores")
    results, baseline = {}, None
    for lane in lanes:
        print(f"lane {lane} ...", flush=True)
        results[lane] = run_lane(lane, students, args.part)
        baseline = baseline or results[lane]["scores"]
    print()
    print(table(results, size, baseline))
    print(projection(results, size))
    if any(r["scores"] != baseline for r in results.values()):
        raise SystemExit("the lanes disagree on some cell: see the table")


if __name__ == "__main__":
    main(sys.argv[1:])
