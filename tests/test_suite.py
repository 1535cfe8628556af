"""The suite's own rules (tests/conftest.py): where each worker works; its cost report."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types

import pytest

from grading.paths import ROOT
from tests import conftest


def suite_files():
    """Every test file's path, relative to the checkout."""
    found = []
    for here, dirs, names in os.walk(os.path.join(ROOT, "tests")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found += [os.path.join(here, n) for n in names if re.fullmatch(r"test_.*\.py", n)]
    return sorted(os.path.relpath(p, ROOT) for p in found)


def test_every_file_kept_on_one_worker_exists():
    assert sorted(set(conftest.SAME_WORKER) - set(suite_files())) == []


def git(folder, *argv):
    subprocess.run(["git", *argv], cwd=folder, check=True, capture_output=True)


def test_a_workers_copy_holds_what_git_sees_with_its_times_and_links_the_environment(tmp_path):
    """Tracked and untracked files (ignored and deleted ones not), build/, their modification
    times (make compares them with .venv's), and links to .venv, .python and .git; the copy is a
    folder every account may enter."""
    root = tmp_path / "checkout"
    for rel, text in {"a.py": "a", "sub/b.txt": "b", "gone.py": "g", ".gitignore": "*.log\n.venv/\n"
                      "build/\n", "new.py": "n", "x.log": "x", "build/editions/e.txt": "e",
                      ".venv/bin/python": "p"}.items():  # fmt: skip
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "a.py", "sub/b.txt", "gone.py", ".gitignore")
    (root / "gone.py").unlink()
    os.utime(root / "a.py", (1_000_000_000, 1_000_000_000))
    copy = conftest.checkout_copy("gwT", root=str(root))
    try:
        files = sorted(
            os.path.relpath(os.path.join(here, n), copy)
            for here, dirs, names in os.walk(copy)
            for n in names
        )
        assert files == [".gitignore", "a.py", "build/editions/e.txt", "new.py", "sub/b.txt"]
        assert os.stat(os.path.join(copy, "a.py")).st_mtime == 1_000_000_000
        for name in (".venv", ".git"):
            assert os.readlink(os.path.join(copy, name)) == str(root / name)
        assert not os.path.lexists(os.path.join(copy, ".python"))  # none in this checkout
        assert os.stat(copy).st_mode & 0o777 == 0o755
    finally:
        shutil.rmtree(copy)


def test_a_workers_copy_goes_when_it_is_done_and_its_screenshots_join_the_checkouts(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # the hook leaves the copy for the checkout; restored after
    checkout, copy = tmp_path / "checkout", tmp_path / "copy"
    (checkout / "test-artifacts").mkdir(parents=True)
    (checkout / "test-artifacts" / "mine.png").write_bytes(b"a")
    (copy / "test-artifacts").mkdir(parents=True)
    (copy / "test-artifacts" / "theirs.png").write_bytes(b"b")
    stash = pytest.Stash()
    stash[conftest.COPY] = str(copy)
    conftest.pytest_unconfigure(types.SimpleNamespace(stash=stash, rootpath=checkout))
    assert not copy.exists()
    assert sorted(p.name for p in (checkout / "test-artifacts").iterdir()) == [
        "mine.png",
        "theirs.png",
    ]
    assert os.getcwd() == str(checkout)


def test_a_checkout_git_cannot_list_stops_the_workers_with_what_to_do(tmp_path):
    """A folder that is no git clone (an unpacked archive): the run stops before any test, saying
    how to run it anyway, and leaves no copy behind."""
    (tmp_path / "a.py").write_text("a")
    before = set(os.listdir(tempfile.gettempdir()))
    with pytest.raises(pytest.UsageError, match="TEST_WORKERS=0"):
        conftest.checkout_copy("gwT", root=str(tmp_path))
    left = set(os.listdir(tempfile.gettempdir())) - before
    assert [n for n in left if n.startswith("attn-checkout-gwT-")] == []


def test_a_worker_in_its_copy_imports_the_course_and_runs_its_commands_there():
    """work_in: grading (so every path of grading.paths), checkpoints and the reference come from
    the copy, and so do the commands the worker starts (the working folder, PYTHONPATH)."""
    program = (
        "import json, os, sys\n"
        "from tests import conftest\n"
        "copy = conftest.checkout_copy('gwT')\n"
        "conftest.work_in(copy)\n"
        "import checkpoints, model\n"
        "from grading import paths\n"
        "print(json.dumps([copy, paths.ROOT, paths.COURSE, os.getcwd(), os.environ['PYTHONPATH'],\n"
        "                  os.path.dirname(os.path.dirname(checkpoints.__file__)),\n"
        "                  os.path.dirname(model.__file__)]))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": ROOT})  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    copy, *seen = json.loads(done.stdout)
    try:
        assert copy != ROOT and seen == [copy] * len(seen)
        assert os.path.exists(os.path.join(copy, "grading", "paths.py"))
    finally:
        shutil.rmtree(copy)


def report(nodeid, when, duration, cpu=None, own=None):
    properties = [] if cpu is None else [("machine_cpu_s", cpu)]
    properties += [] if own is None else [("own_cpu_s", own)]
    return types.SimpleNamespace(nodeid=nodeid, when=when, duration=duration,
                                 user_properties=properties)  # fmt: skip


def test_the_cost_report_adds_each_files_phases_whatever_its_worker_group():
    reports = [
        report("tests/a.py::t1@checkout", "setup", 2.0),
        report("tests/a.py::t1@checkout", "call", 3.0),
        report("tests/a.py::t1@checkout", "teardown", 0.5, cpu=7.5, own=3.25),
        report("tests/a.py::t2[x]@checkout", "teardown", 0.5, cpu=1.0, own=0.5),
        report("tests/b.py::t@tests/b.py", "call", 1.25),
        report("tests/b.py", "collect", 9.0),  # collection is not a test's time
    ]
    seconds, cpu, own = conftest.file_seconds(reports)
    assert dict(seconds) == {"tests/a.py": 6.0, "tests/b.py": 1.25}
    assert cpu["tests/a.py"] == pytest.approx(8.5) and cpu["tests/b.py"] == 0
    assert own["tests/a.py"] == pytest.approx(3.75) and own["tests/b.py"] == 0


def test_a_workers_own_cpu_counts_what_its_children_spend_and_nothing_else():
    """Half a second computed by a child of this process (in a new session, as a grading server
    or a sandbox would be) shows in this process's own CPU; as much computed meanwhile by a
    process that left the group (as the other worker's are never in it) does not."""
    group = conftest.own_cpu_group()  # this process's, as pytest_configure made it
    if group is None:
        pytest.skip("counting a process's own CPU needs root and cgroup v1's cpuacct")
    burn = "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass"
    before = conftest.own_cpu(group)
    subprocess.run([sys.executable, "-c", burn], start_new_session=True, check=True)
    assert conftest.own_cpu(group) - before >= 0.45
    before = conftest.own_cpu(group)
    leaves = f"echo $$ > {conftest.CPU_ACCOUNTING}/cgroup.procs && exec \"$0\" -c '{burn}'"
    subprocess.run(["sh", "-c", leaves, sys.executable], check=True)
    assert conftest.own_cpu(group) - before < 0.3


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
    its cores the busy CPU seconds its cases carry over those seconds, its CPU seconds its cases'
    own; two runs are laid side by side, slowest in the later run first."""
    from bench import suite

    def run(name, cases):
        body = "".join(
            f'<testcase classname="{c}" name="t{i}" time="{t}">'
            + (f'<properties><property name="machine_cpu_s" value="{cpu}"/>'
               f'<property name="own_cpu_s" value="{cpu / 2}"/></properties>'
               if cpu is not None else "")
            + "</testcase>"
            for i, (c, t, cpu) in enumerate(cases)
        )  # fmt: skip
        (tmp_path / name).write_text(f"<testsuites><testsuite>{body}</testsuite></testsuites>")
        return str(tmp_path / name)

    a, b = "tests.test_a", "tests.sub.test_b"
    before = run("a.xml", [(a, 1.5, 3.0), (a, 2.0, 1.9), (b + ".TestX", 4.0, None)])
    after = run("b.xml", [(a, 0.5, None), (b, 5.0, 9.0)])
    seconds, cpu, own, cases = suite.file_seconds(before)
    assert cases == 3 and seconds == {"tests/test_a.py": 3.5, "tests/sub/test_b.py": 4.0}
    assert cpu == {"tests/test_a.py": pytest.approx(4.9)}
    assert own == {"tests/test_a.py": pytest.approx(2.45)}
    runs = [(seconds, cpu, own), suite.file_seconds(after)[:3]]
    rows = suite.table(runs, ["before", "after"]).splitlines()
    assert rows[2] == "| `tests/sub/test_b.py` | 4 | 53.3 |  |  | 5 | 90.9 | 1.8 | 4 |"
    assert rows[3] == "| `tests/test_a.py` | 4 | 46.7 | 1.4 | 2 | 0 | 9.1 |  |  |"
    assert rows[-1] == "| **all** | **8** | 100 | 0.7 | **2** | **6** | 100 | 1.6 | **4** |"


def test_a_lab_whose_server_outlives_sigterm_is_ended_with_its_group():
    """tests/fixtures/lab_server.py's stop_group: a leader whose child ignores SIGTERM (as jupyter
    lab's interpreter waited on an idle thread after its server stopped, for the rest of the run)
    ends with its whole group, SIGKILL after the grace."""
    from tests.fixtures.lab_server import group_members, stop_group

    child = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
    child += " print('ignoring', flush=True); time.sleep(600)"
    script = f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {child!r}]);"
    script += " time.sleep(600)"
    leader = subprocess.Popen([sys.executable, "-c", script], start_new_session=True,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert leader.stdout.readline() == "ignoring\n"  # the child has set its handler
    assert len(group_members(leader.pid)) == 2
    start = time.monotonic()
    stop_group(leader, grace=1)
    assert group_members(leader.pid) == [] and time.monotonic() - start < 10


def test_packed_attacks_each_keep_a_notebook_of_their_own():
    """The lanes' kernel escapes, packed: every attack once, no two in one notebook of one
    submission, an attack placed at a notebook's end still in that notebook, and no more
    submissions than notebooks demand."""
    from tests.fixtures import hostile_watch

    escapes, packed = hostile_watch.ESCAPES, hostile_watch.PACKED_ESCAPES
    assert sorted(a.how for a in packed) == sorted(a.how for a in escapes)
    places = [(a.student, a.notebook) for a in packed]
    assert len(set(places)) == len(places)
    assert {nb for _, nb in places} <= set(hostile_watch.NOTEBOOKS)
    for attack in escapes:
        if attack.at == "end":
            assert next(p for p in packed if p.how == attack.how).notebook == attack.notebook
    per_submission = len(hostile_watch.NOTEBOOKS)
    assert len({s for s, _ in places}) == -(-len(escapes) // per_submission)
