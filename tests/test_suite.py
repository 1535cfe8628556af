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
