"""What every run of the suite shares: which tests may run at the same time, and the cost
report printed at its end (docs/developing.md, "The suite's budget").

`make test` runs the suite in one process; `make test TEST_WORKERS=2` on pytest-xdist workers with
`--dist loadgroup`. There each test file is one work unit, so a module's fixtures are built once;
the files in SHARES_THE_CHECKOUT form one unit together, run in their usual order on one worker,
because each of them writes where the others read (the class, the gradebook, release/, build/,
demo/) or snapshots the whole checkout. Every other file works in its own temporary folders and
runs beside them on the other worker.

Each test's report carries how busy the machine's CPUs were while it ran (machine_cpu_s), so the
summary (and the JUnit XML, for bench/suite.py) tells a file that computes from one that waits.
"""

import collections
import os
import shutil
import subprocess
import time

import pytest

# The files that write in the checkout (or need all of it to hold still), with what forces it.
# A new test file that grades the course's class (classroom.*, make collect, make demo), releases
# into release/ (course.release() without into=) or hands the course's own class over to the
# course user (a grading server's set-up), belongs here (tests/test_suite.py checks it). Setting
# the course user up is not among them: it is idempotent, one process at a time, and done once
# before the workers start.
SHARES_THE_CHECKOUT = {
    "tests/grading/authoring/test_release_places.py": "compares release/ and the gradebook",
    "tests/grading/nbgrader/test_collect.py": "make collect into the class, release/",
    "tests/grading/nbgrader/test_classroom_intake.py": "the class, its gradebook, release/",
    "tests/grading/nbgrader/test_deadlines.py": "the class, deadlines.csv",
    "tests/grading/nbgrader/test_display.py": "grader_config: records/, exchange/, deadlines.csv",
    "tests/grading/nbgrader/test_mixed_class.py": "start_over(), release-ko/, release-ja/",
    "tests/grading/nbgrader/test_nbgrader_cli.py": "the class, the gradebook, the formgrader",
    "tests/grading/nbgrader/test_xslm_nbgrader.py": "the class, release/xslm, demo/",
    "tests/grading/scale/test_farm.py": "start_over(), the class through every lane",
    "tests/grading/scale/test_server.py": "as root: the course user's set-up, the class given",
    "tests/grading/test_classroom.py": "the class and demo/",
    "tests/grading/test_hostile_class.py": "snapshots the checkout; the class",
    "tests/grading/test_hostile_lanes.py": "snapshots the checkout; the class",
}

BUDGET_S = 35 * 60  # the whole suite, `make test`, on the 2-core CI machine
SLOWEST = 10
STARTED = time.monotonic()


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Once, before any worker starts: what the files on both sides would otherwise first make
    at the same time. The editions' translated notebooks (build/editions/, which make site and
    make lab build, and which the hostile classes' snapshot of the checkout covers): built here,
    each later build in the run finds them current and writes nothing. As root, the course user
    (grading as root sets it up on first use, in either worker)."""
    if hasattr(session.config, "workerinput"):  # a worker: the controller did it
        return
    from grading.authoring import editions
    from grading.parts import PARTS

    for code in editions.languages():
        for part in PARTS:
            try:
                editions.build(code, part)
            except SystemExit as incomplete:  # the editions' own tests say what is wrong
                print(f"build/editions/{code}/{part} not built: {incomplete}")
    if os.geteuid() == 0 and shutil.which("useradd"):
        from grading import course_user

        try:
            course_user.setup()
        except (OSError, subprocess.CalledProcessError, SystemExit) as err:
            print(f"the course user is not set up: {err}")  # its own tests say why


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Each file its own work unit, but SHARES_THE_CHECKOUT's files one unit together."""
    for item in items:
        path = item.nodeid.split("::")[0]
        unit = "checkout" if path in SHARES_THE_CHECKOUT else path
        item.add_marker(pytest.mark.xdist_group(unit))


def machine_busy():
    """CPU seconds all cores have spent busy since boot (/proc/stat: user, nice, system, irq and
    softirq; idle, iowait and a hypervisor's steal left out); 0 where there is no /proc/stat."""
    try:
        with open("/proc/stat") as f:
            user, nice, system, _, _, irq, softirq = map(int, f.readline().split()[1:8])
    except (OSError, ValueError):
        return 0.0
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


BUSY_AT_SETUP = pytest.StashKey[float]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    item.stash[BUSY_AT_SETUP] = machine_busy()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """The teardown report carries the machine's busy CPU seconds over the test's setup, call and
    teardown: with workers, the other worker's share is in it too."""
    report = (yield).get_result()
    if call.when == "teardown" and BUSY_AT_SETUP in item.stash:
        busy = machine_busy() - item.stash[BUSY_AT_SETUP]
        report.user_properties.append(("machine_cpu_s", round(busy, 2)))


def file_seconds(reports):
    """{test file: seconds of setup, call and teardown} over reports (each phase counted once),
    and {test file: the machine's busy CPU seconds meanwhile}."""
    seconds, cpu = collections.Counter(), collections.Counter()
    for report in reports:
        if getattr(report, "when", None) in ("setup", "call", "teardown"):
            path = report.nodeid.split("::")[0].split("@")[0]
            seconds[path] += report.duration
            cpu[path] += dict(report.user_properties).get("machine_cpu_s", 0.0)
    return seconds, cpu


def pytest_terminal_summary(terminalreporter):
    """The run's wall time against the budget, and its ten slowest files with how many of the
    machine's cores were busy while each ran (near 1 of 2 in one process: waiting on kernels,
    servers and timeouts leaves room for a second worker; near 2: the machine is full)."""
    reports = [r for kind in terminalreporter.stats.values() for r in kind if hasattr(r, "nodeid")]
    seconds, cpu = file_seconds(reports)
    if not seconds:
        return
    wall, spent = time.monotonic() - STARTED, sum(seconds.values())
    write = terminalreporter.write_line
    terminalreporter.section("the suite's cost (docs/developing.md)")
    write(f"wall {wall:,.0f} s of the {BUDGET_S:,} s budget ({100 * wall / BUDGET_S:.0f}%); "
          f"{spent:,.0f} s in tests over {len(seconds)} files; the machine's cores busy "
          f"{sum(cpu.values()) / max(spent, 1e-9):.1f} of {os.cpu_count()} on average")  # fmt: skip
    for path, took in seconds.most_common(SLOWEST):
        write(f"{took:8.0f} s  {100 * took / spent:4.1f}%  {cpu[path] / max(took, 1e-9):3.1f} cores"
              f"  {path}")  # fmt: skip
