"""The suite's own rules (tests/conftest.py): the files that share the checkout; its cost report."""

import os
import re
import types

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


def report(nodeid, when, duration):
    return types.SimpleNamespace(nodeid=nodeid, when=when, duration=duration)


def test_the_cost_report_adds_each_files_phases_whatever_its_worker_group():
    reports = [
        report("tests/a.py::t1@checkout", "setup", 2.0),
        report("tests/a.py::t1@checkout", "call", 3.0),
        report("tests/a.py::t2[x]@checkout", "teardown", 0.5),
        report("tests/b.py::t@tests/b.py", "call", 1.25),
        report("tests/b.py", "collect", 9.0),  # collection is not a test's time
    ]
    seconds = conftest.file_seconds(reports)
    assert dict(seconds) == {"tests/a.py": 5.5, "tests/b.py": 1.25}


def test_the_per_file_table_adds_each_files_cases_from_a_runs_junit_xml(tmp_path):
    """bench.suite: a file's seconds are its cases' times (grouped ones, in classes, included);
    two runs are laid side by side, slowest in the later run first."""
    from bench import suite

    def run(name, cases):
        body = "".join(
            f'<testcase classname="{c}" name="t{i}" time="{t}"/>' for i, (c, t) in enumerate(cases)
        )
        (tmp_path / name).write_text(f"<testsuites><testsuite>{body}</testsuite></testsuites>")
        return str(tmp_path / name)

    a, b = "tests.test_a", "tests.sub.test_b"
    before = run("a.xml", [(a, 1.5), (a, 2.0), (b + ".TestX", 4.0)])
    after = run("b.xml", [(a, 0.5), (b, 5.0)])
    seconds, cases = suite.file_seconds(before)
    assert cases == 3 and seconds == {"tests/test_a.py": 3.5, "tests/sub/test_b.py": 4.0}
    rows = suite.table([seconds, suite.file_seconds(after)[0]], ["before", "after"]).splitlines()
    assert rows[2].startswith("| `tests/sub/test_b.py` | 4 | 53.3 | 5 | 90.9")
    assert rows[-1] == "| **all** | **8** | 100 | **6** | 100 |"
