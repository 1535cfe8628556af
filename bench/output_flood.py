"""The grading processes' memory while one submission floods its output (issue 44, "Memory.").

    python -m bench.output_flood [--chunks N] [--lanes plain,1]

One class of one submission: the solved one (grading.classroom), with a cell at the end of its
first notebook that prints N lines of 100 KB (default 2,000: 200 MB), each flushed, so each is a
message of its own (--gathered: not flushed, so ipykernel sends what 0.2 s printed as one message,
which the grader receives whole before any cap can look at it). Each lane grades it:
    plain   `nbgrader autograde attention --force` (as make autograde hands itself over)
    J       `make autograde JOBS=J`: J grading servers, warm kernels

While a lane runs, every process below this one is sampled 20 times a second; the host's are
those not running as a sandbox uid (nbgrader or the grading server, bubblewrap's parents, the
relay), whose resident sizes are summed. Printed per lane: wall seconds, the largest such sum
seen, the largest peak (VmHWM) of any one host process (exact, whatever the sampling missed), the
autograded notebook's size, the score, and the problems grades.csv gets.
"""

import argparse
import json
import os
import subprocess
import sys
import threading
import time

import nbformat

from grading import classroom
from grading.authoring import course
from grading.machine import sandbox
from grading.parts import ASSIGNMENT
from grading.paths import ROOT

STUDENT = "flood"
NOTEBOOK = "01-softmax.ipynb"
SAMPLE_SECONDS = 0.05


def flood_cell(chunks, flush=True):
    """The learner's cell: chunks lines of 100 KB, printed one at a time, each sent as it is
    printed (flush) or as ipykernel gathers them (every 0.2 s: one message of all it printed)."""
    return f'for _ in range({chunks}):\n    print("x" * 100_000, flush={flush})\n'


def write_class(chunks, flush):
    """A clean slate and the one flooding submission."""
    classroom.start_over()
    folder = classroom.write_submission(STUDENT)
    path = os.path.join(folder, NOTEBOOK)
    book = nbformat.read(path, as_version=4)
    book.cells.append(nbformat.v4.new_code_cell(flood_cell(chunks, flush)))
    nbformat.write(book, path)


def status(pid):
    """(real uid, VmRSS KiB, VmHWM KiB) of a process, None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
    except OSError:
        return None
    kib = {key: int(fields.get(key, "0 kB").split()[0]) for key in ("VmRSS", "VmHWM")}
    return int(fields["Uid"].split()[0]), kib["VmRSS"], kib["VmHWM"]


def descendants(top):
    """The pids below top now."""
    children = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(pid))
    found, todo = [], list(children.get(top, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def learners():
    """The uids learner code runs as: the sandbox's (as root), else this user's subordinate
    ones; the grader's own uid when sandboxes share it cannot be told apart and counts as host."""
    return set(sandbox.SANDBOX_UIDS) | set(sandbox.uid_range())


class HostMemory:
    """The host processes' resident memory below this process, sampled until stop()."""

    def __init__(self):
        self.sum_peak, self.one_peak = 0, 0
        self.stopping = threading.Event()
        self.sandboxed = learners()
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def watch(self):
        """Sample until stop()."""
        while not self.stopping.wait(SAMPLE_SECONDS):
            seen = [status(pid) for pid in descendants(os.getpid())]
            host = [s for s in seen if s is not None and s[0] not in self.sandboxed]
            self.sum_peak = max(self.sum_peak, sum(rss for _, rss, _ in host))
            self.one_peak = max([self.one_peak, *(hwm for _, _, hwm in host)])

    def stop(self):
        """(the largest sum of resident sizes seen, the largest single peak), in MiB."""
        self.stopping.set()
        self.thread.join()
        return self.sum_peak / 1024, self.one_peak / 1024


def grade(lane):
    """Run one lane over the class; its process's exit status."""
    if lane == "plain":
        return course.nbgrader("autograde", ASSIGNMENT, "--force").returncode
    command = [sys.executable, "-m", "grading", "autograde", "--force", "--jobs", lane]
    return subprocess.run(command, cwd=ROOT, env=course.tool_environment(),
                          capture_output=True).returncode  # fmt: skip


def autograded_size():
    """Bytes of the flooding notebook as autograded, or 0 when there is none."""
    path = os.path.join(classroom.AUTOGRADED, STUDENT, ASSIGNMENT, NOTEBOOK)
    return os.path.getsize(path) if os.path.exists(path) else 0


def measure(lane, chunks, flush=True):
    """One lane's figures over a freshly written class."""
    write_class(chunks, flush)
    memory, start = HostMemory(), time.perf_counter()
    code = grade(lane)
    wall = time.perf_counter() - start
    summed, single = memory.stop()
    rows = {s: (total, top) for s, _, total, top, _ in classroom.grade_table()}
    return {"lane": lane, "exit": code, "wall_s": round(wall, 1), "host_rss_sum_mib": round(summed),
            "host_peak_one_mib": round(single), "notebook_bytes": autograded_size(),
            "score": rows.get(STUDENT), "problems": classroom.problems_of(STUDENT)}  # fmt: skip


def main(argv=None):
    """Measure each lane; one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=2000, help="lines of 100 KB (2000)")
    parser.add_argument("--lanes", default="plain,1", help="plain and/or J (grading servers)")
    gathered = "no flush: ipykernel sends what 0.2 s printed as one message"
    parser.add_argument("--gathered", action="store_true", help=gathered)
    args = parser.parse_args(argv)
    for lane in args.lanes.split(","):
        figures = measure(lane, args.chunks, flush=not args.gathered)
        print(json.dumps(figures, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
