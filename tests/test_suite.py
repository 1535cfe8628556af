"""The suite's own rules (tests/conftest.py): the files that share the checkout; its cost report."""

import os
import re
import time
import types

import pytest

from grading.paths import ROOT
from tests import conftest

# What a test file does when it writes in the checkout or grades as root: the calls that put it
# among SHARES_THE_CHECKOUT (grading/classroom.py, grading/authoring/course.py, make's targets).
WRITES_THE_CHECKOUT = re.compile(
    r"classroom\.(start_over|demo|autograde|grades\(\))"
    r"|(classroom\.write_submission|course\.release)\((?![^)]*(into|released)=)"
    r"|write_real_class\("
    r"|server\.Server\("
    r"|\"make\", \"(collect|demo)\""
)  # a release or workspace made into a folder of the test's own (into=) writes none of it, nor
# does a workspace (make lab's and make site's: each releases into a folder of its own, and
# build/editions/ is rewritten only when it changes; the Lab keeps its state in the workspace),
# nor a submission written from such a release (released=) in a class of the test's own


def suite_files():
    """Every test file's path, relative to the checkout."""
    found = []
    for here, dirs, names in os.walk(os.path.join(ROOT, "tests")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found += [os.path.join(here, n) for n in names if re.fullmatch(r"test_.*\.py", n)]
    return sorted(os.path.relpath(p, ROOT) for p in found)


def test_every_file_named_as_sharing_the_checkout_exists():
    assert sorted(set(conftest.SHARES_THE_CHECKOUT) - set(suite_files())) == []


def test_every_file_that_writes_in_the_checkout_shares_it():
    """A file that releases into release/, grades the course's class or sets the course user up
    as root runs in the one unit with the others that do (never beside one)."""
    writers = []
    for path in suite_files():
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            if WRITES_THE_CHECKOUT.search(f.read()):
                writers.append(path)
    known = {"tests/grading/test_hostile_class.py", "tests/grading/test_classroom.py"}
    assert known <= set(writers)  # the pattern still finds what it is meant to
    assert [p for p in writers if p not in conftest.SHARES_THE_CHECKOUT] == []


def report(nodeid, when, duration, cpu=None):
    properties = [] if cpu is None else [("machine_cpu_s", cpu)]
    return types.SimpleNamespace(nodeid=nodeid, when=when, duration=duration,
                                 user_properties=properties)  # fmt: skip


def test_the_cost_report_adds_each_files_phases_whatever_its_worker_group():
    reports = [
        report("tests/a.py::t1@checkout", "setup", 2.0),
        report("tests/a.py::t1@checkout", "call", 3.0),
        report("tests/a.py::t1@checkout", "teardown", 0.5, cpu=7.5),
        report("tests/a.py::t2[x]@checkout", "teardown", 0.5, cpu=1.0),
        report("tests/b.py::t@tests/b.py", "call", 1.25),
        report("tests/b.py", "collect", 9.0),  # collection is not a test's time
    ]
    seconds, cpu = conftest.file_seconds(reports)
    assert dict(seconds) == {"tests/a.py": 6.0, "tests/b.py": 1.25}
    assert cpu["tests/a.py"] == pytest.approx(8.5) and cpu["tests/b.py"] == 0


def test_machine_busy_counts_the_cpu_a_test_spends():
    """Half a second of computing here shows in the machine's busy seconds (at least most of it:
    the clock ticks at 1/100 s)."""
    before = conftest.machine_busy()
    end = time.process_time() + 0.5
    while time.process_time() < end:
        pass
    assert conftest.machine_busy() - before >= 0.4


def test_the_per_file_table_adds_each_files_cases_from_a_runs_junit_xml(tmp_path):
    """bench.suite: a file's seconds are its cases' times (grouped ones, in classes, included),
    its cores the busy CPU seconds its cases carry over those seconds; two runs are laid side by
    side, slowest in the later run first."""
    from bench import suite

    def run(name, cases):
        body = "".join(
            f'<testcase classname="{c}" name="t{i}" time="{t}">'
            + (f'<properties><property name="machine_cpu_s" value="{cpu}"/></properties>'
               if cpu is not None else "")
            + "</testcase>"
            for i, (c, t, cpu) in enumerate(cases)
        )  # fmt: skip
        (tmp_path / name).write_text(f"<testsuites><testsuite>{body}</testsuite></testsuites>")
        return str(tmp_path / name)

    a, b = "tests.test_a", "tests.sub.test_b"
    before = run("a.xml", [(a, 1.5, 3.0), (a, 2.0, 1.9), (b + ".TestX", 4.0, None)])
    after = run("b.xml", [(a, 0.5, None), (b, 5.0, 9.0)])
    seconds, cpu, cases = suite.file_seconds(before)
    assert cases == 3 and seconds == {"tests/test_a.py": 3.5, "tests/sub/test_b.py": 4.0}
    assert cpu == {"tests/test_a.py": pytest.approx(4.9)}
    rows = suite.table([(seconds, cpu), suite.file_seconds(after)[:2]], ["before", "after"])
    rows = rows.splitlines()
    assert rows[2].startswith("| `tests/sub/test_b.py` | 4 | 53.3 |  | 5 | 90.9 | 1.8 |")
    assert rows[3] == "| `tests/test_a.py` | 4 | 46.7 | 1.4 | 0 | 9.1 |  |"
    assert rows[-1] == "| **all** | **8** | 100 | 0.7 | **6** | 100 | 1.6 |"
