"""What every run of the suite shares: which tests may run at the same time, and the cost
report printed at its end (docs/developing.md, "The suite's budget").

`make test` runs the suite on two pytest-xdist workers with `--dist loadgroup`. Each test file is
one work unit, so a module's fixtures are built once; the files in SHARES_THE_CHECKOUT form one
unit together, run in their usual order on one worker, because each of them writes where the
others read (the class, the gradebook, release/, build/, demo/) or snapshots the whole checkout.
Every other file works in its own temporary folders and runs beside them on the other worker.
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


def file_seconds(reports):
    """{test file: seconds of setup, call and teardown} over reports (each phase counted once)."""
    seconds = collections.Counter()
    for report in reports:
        if getattr(report, "when", None) in ("setup", "call", "teardown"):
            seconds[report.nodeid.split("::")[0].split("@")[0]] += report.duration
    return seconds


def pytest_terminal_summary(terminalreporter):
    """The run's wall time against the budget, and its ten slowest files."""
    reports = [r for kind in terminalreporter.stats.values() for r in kind if hasattr(r, "nodeid")]
    seconds = file_seconds(reports)
    if not seconds:
        return
    wall, busy = time.monotonic() - STARTED, sum(seconds.values())
    write = terminalreporter.write_line
    terminalreporter.section("the suite's cost (docs/developing.md)")
    write(f"wall {wall:,.0f} s of the {BUDGET_S:,} s budget ({100 * wall / BUDGET_S:.0f}%); "
          f"{busy:,.0f} s in tests over {len(seconds)} files")  # fmt: skip
    for path, spent in seconds.most_common(SLOWEST):
        write(f"{spent:8.0f} s  {100 * spent / busy:4.1f}%  {path}")
