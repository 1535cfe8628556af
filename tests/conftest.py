"""What every run of the suite shares: where each worker works, and the cost report printed at
its end (docs/developing.md, "The suite's budget").

`make test` runs the suite on two pytest-xdist workers (`TEST_WORKERS=0`: in one process) with
`--dist loadgroup`, each test file one work unit, so a module's fixtures are built once.
The first worker works in the checkout; every other one in a copy of the checkout of its own
(checkout_copy), whose class, gradebook, release/, demo/ and build/ are its own: so a file that
grades the course's own class, releases into release/ or snapshots the whole checkout runs on
any worker, beside any other file. Only what the machine shares (its processes) keeps a few
files on one worker (SAME_WORKER).

Each test's report carries how busy the machine's CPUs were while it ran (machine_cpu_s), so the
summary (and the JUnit XML, for bench/suite.py) tells a file that computes from one that waits;
and, where the machine lets root count it (cgroup v1's cpuacct), the CPU seconds the test's own
processes spent (own_cpu_s), whatever the other worker did meanwhile: the cost to cut.
"""

import collections
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

# Files that must run on one worker, one after the other, with what forces it. Each worker has a
# checkout of its own, so what is left is the machine itself.
SAME_WORKER = {
    "tests/grading/test_hostile_class.py": "hostile",  # the lanes count every HOSTILE-* process
    "tests/grading/test_hostile_lanes.py": "hostile",  # on the machine: none of the class's
    # and it reads the hostile class's run; its hub's class is its own accounts, not the demo's
    "tests/grading/hub/test_hostile_exchange.py": "hostile",
    # make hub-stop ends every process of the hub's accounts, which are the machine's
    "tests/grading/hub/test_hub.py": "hub",
    "tests/grading/hub/test_formgrader_service.py": "hub",
    "tests/grading/hub/test_exchange.py": "hub",
    "tests/grading/hub/test_lti.py": "hub",
}
# The top-level packages and modules of the checkout: a worker in a copy imports them from there.
COURSE_MODULES = ("grading", "checkpoints", "xslm", "lite", "model", "grader_config")

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


def checkout_copy(worker, root=None):
    """A copy of the checkout for one worker, in a folder every account may enter (the course user
    grades there): the files git sees (tracked, and untracked ones it does not ignore) with their
    times, so that make finds .venv newer than what it was made from; build/ (the editions the
    controller built); and links to the environment (.venv, .python) and to .git."""
    root = root or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    copy = tempfile.mkdtemp(prefix=f"attn-checkout-{worker}-")
    os.chmod(copy, 0o755)
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard"], cwd=root, capture_output=True,
                                check=True).stdout  # fmt: skip
    except (OSError, subprocess.CalledProcessError) as err:
        shutil.rmtree(copy, ignore_errors=True)
        raise pytest.UsageError(
            f"a second test worker copies the checkout's files as git lists them, and git could "
            f"not list them here ({err}): run from a git clone, or in one process with "
            "`make test TEST_WORKERS=0`"
        ) from None
    for rel in filter(None, listed.decode().split("\0")):
        source, target = os.path.join(root, rel), os.path.join(copy, rel)
        if os.path.lexists(source) and not os.path.isdir(source):  # a deleted file is listed
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(source, target, follow_symlinks=False)
    if os.path.isdir(os.path.join(root, "build")):
        shutil.copytree(os.path.join(root, "build"), os.path.join(copy, "build"), symlinks=True)
    for name in (".venv", ".python", ".git"):
        if os.path.lexists(os.path.join(root, name)):
            os.symlink(os.path.join(root, name), os.path.join(copy, name))
    return copy


def work_in(copy):
    """This process works in copy: the course's packages imported from there (pytest imports the
    tests themselves from the checkout, and they find every path through grading.paths), and the
    commands it starts run there (PYTHONPATH, the working folder)."""
    sys.path.insert(0, copy)
    os.environ["PYTHONPATH"] = copy
    os.chdir(copy)
    for name in COURSE_MODULES:
        if name in sys.modules:
            raise RuntimeError(f"{name} was imported before the worker moved to its copy")
        importlib.import_module(name)


COPY = pytest.StashKey[str]()  # a worker's copy of the checkout


CPU_ACCOUNTING = "/sys/fs/cgroup/cpuacct"  # cgroup v1's CPU accounting: root may make groups
CPU_GROUP = None  # this process's own group there, if it could make one


def own_cpu_group(root=CPU_ACCOUNTING):
    """A cpuacct group holding this process, which every process it starts joins (the sandboxes
    move in the freezer, pids and memory hierarchies only, not this one): its folder, or None
    where none can be made (not root, no cgroup v1) or where cpuacct shares its hierarchy with
    the cpu controller (a group there would also share the CPU out differently). Groups of
    earlier runs that no process is left in are removed."""
    if not cpuacct_alone():
        return None
    try:
        for name in os.listdir(root):
            if name.startswith("attention-tests-"):
                try:
                    os.rmdir(os.path.join(root, name))  # refused while a process is in it
                except OSError:
                    pass
        folder = os.path.join(root, f"attention-tests-{os.getpid()}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    except OSError:
        return None
    return folder


def cpuacct_alone():
    """Whether cgroup v1's cpuacct is a hierarchy of its own here (it only counts)."""
    try:
        with open("/proc/self/cgroup") as f:
            return any(line.split(":")[1] == "cpuacct" for line in f if line.count(":") >= 2)
    except OSError:
        return False


def own_cpu(folder=None):
    """CPU seconds the processes of this process's group have spent (0.0 without one)."""
    folder = folder or CPU_GROUP
    if not folder:
        return 0.0
    try:
        with open(os.path.join(folder, "cpuacct.usage")) as f:
            return int(f.read()) / 1e9
    except (OSError, ValueError):
        return 0.0


def pytest_configure(config):
    """Every worker after the first works in a copy of the checkout of its own. Each process
    counts its own CPU (own_cpu_group)."""
    global CPU_GROUP
    CPU_GROUP = own_cpu_group()
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker not in (None, "gw0"):
        config.stash[COPY] = copy = checkout_copy(worker)
        work_in(copy)


def leave_cpu_group(folder, root=CPU_ACCOUNTING):
    """This process back in the root group, and its own group removed (unless a process it
    started is still in it: the next run's own_cpu_group removes it then)."""
    try:
        with open(os.path.join(root, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
        os.rmdir(folder)
    except OSError:
        pass


def pytest_unconfigure(config):
    """A worker's copy goes once it is done; the screenshots its tests kept join the checkout's.
    Its CPU group goes too."""
    if CPU_GROUP:
        leave_cpu_group(CPU_GROUP)
    copy = config.stash.get(COPY, None)
    if copy:
        kept = os.path.join(copy, "test-artifacts")
        if os.path.isdir(kept):
            shutil.copytree(kept, os.path.join(config.rootpath, "test-artifacts"),
                            dirs_exist_ok=True)  # fmt: skip
        os.chdir(config.rootpath)
        shutil.rmtree(copy, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Each file its own work unit, but SAME_WORKER's files one unit together."""
    for item in items:
        path = item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group(SAME_WORKER.get(path, path)))


def machine_busy():
    """CPU seconds all cores have spent busy since boot (/proc/stat: user, nice, system, irq and
    softirq; idle, iowait and a hypervisor's steal left out); 0 where there is no /proc/stat."""
    try:
        with open("/proc/stat") as f:
            user, nice, system, _, _, irq, softirq = map(int, f.readline().split()[1:8])
    except (OSError, ValueError):
        return 0.0
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


BUSY_AT_SETUP = pytest.StashKey[tuple]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    item.stash[BUSY_AT_SETUP] = (machine_busy(), own_cpu())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """The teardown report carries the machine's busy CPU seconds over the test's setup, call and
    teardown (with workers, the other worker's share is in it too) and, where they are counted,
    the CPU seconds of this process and everything it started."""
    report = (yield).get_result()
    if call.when == "teardown" and BUSY_AT_SETUP in item.stash:
        busy, own = item.stash[BUSY_AT_SETUP]
        report.user_properties.append(("machine_cpu_s", round(machine_busy() - busy, 2)))
        if CPU_GROUP:
            report.user_properties.append(("own_cpu_s", round(own_cpu() - own, 2)))


def file_seconds(reports):
    """{test file: seconds of setup, call and teardown} over reports (each phase counted once),
    {test file: the machine's busy CPU seconds meanwhile} and {test file: its own CPU seconds}."""
    seconds, cpu, own = collections.Counter(), collections.Counter(), collections.Counter()
    for report in reports:
        if getattr(report, "when", None) in ("setup", "call", "teardown"):
            path = report.nodeid.split("::")[0].split("@")[0]
            seconds[path] += report.duration
            cpu[path] += dict(report.user_properties).get("machine_cpu_s", 0.0)
            own[path] += dict(report.user_properties).get("own_cpu_s", 0.0)
    return seconds, cpu, own


def pytest_terminal_summary(terminalreporter):
    """The run's wall time against the budget, and its ten slowest files with how many of the
    machine's cores were busy while each ran (near 1 of 2 in one process: waiting on kernels,
    servers and timeouts leaves room for a second worker; near 2: the machine is full) and, where
    counted, the CPU seconds each file's own processes spent."""
    reports = [r for kind in terminalreporter.stats.values() for r in kind if hasattr(r, "nodeid")]
    seconds, cpu, own = file_seconds(reports)
    if not seconds:
        return
    wall, spent = time.monotonic() - STARTED, sum(seconds.values())
    write = terminalreporter.write_line
    terminalreporter.section("the suite's cost (docs/developing.md)")
    counted = f"; {sum(own.values()):,.0f} CPU s of the tests' own" if sum(own.values()) else ""
    write(f"wall {wall:,.0f} s of the {BUDGET_S:,} s budget ({100 * wall / BUDGET_S:.0f}%); "
          f"{spent:,.0f} s in tests over {len(seconds)} files; the machine's cores busy "
          f"{sum(cpu.values()) / max(spent, 1e-9):.1f} of {os.cpu_count()} on average"
          f"{counted}")  # fmt: skip
    for path, took in seconds.most_common(SLOWEST):
        mine = f"{own[path]:6.0f} CPU s" if counted else ""
        write(f"{took:8.0f} s  {100 * took / spent:4.1f}%  {cpu[path] / max(took, 1e-9):3.1f} cores"
              f"{mine}  {path}")  # fmt: skip
