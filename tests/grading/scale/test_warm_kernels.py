"""Warm kernels (scale/warm_kernels.py, scale/forker.py): each notebook gets a new kernel
forked in its submission's sandbox, as fresh as one started from scratch; a forker that dies or
lies costs nothing but the speed-up.
"""

import os

import nbformat
import pytest

from grading.machine import sandbox
from grading.nbgrader.preprocess import SandboxedExecute, launcher_arguments
from grading.scale import warm_kernels

pytestmark = pytest.mark.skipif(
    sandbox.problem() is not None, reason=f"no sandbox here: {sandbox.problem()}"
)


def notebook(*sources):
    """A Python notebook of code cells."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def run(folder, *sources, warm=True):
    """Execute the cells as grading does, in folder; (each cell's printed text, problems noted)."""
    resources = {"metadata": {"path": str(folder)}, "nbgrader": {"notebook": "probe"}}
    nb, resources = SandboxedExecute(warm_kernels=warm, timeout=60).preprocess(
        notebook(*sources), resources
    )
    printed = [
        "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream").strip()
        for cell in nb.cells
    ]
    return printed, resources.get("attention_problems", [])


@pytest.fixture
def folder(tmp_path):
    """A submission folder (0755, as nbgrader's autograded folders are), warm sandboxes ended."""
    os.chmod(tmp_path, 0o755)
    (tmp_path / "helper.py").write_text("ANSWER = 42\n")
    yield tmp_path
    warm_kernels.close()


def forker_of(folder):
    """The warm sandbox serving folder now (None when there is none)."""
    return warm_kernels._current.get(os.path.abspath(folder))


def test_each_notebook_gets_its_own_fresh_kernel_forked_in_one_sandbox(folder):
    """Two notebooks: two kernels, both forked; nothing of the first is left in the second."""
    first, _ = run(
        folder,
        "import os, random, sys; secret = 1; print(os.getpid(), random.random())",
        "import helper; print(helper.ANSWER, os.getcwd())",
    )
    second, problems = run(
        folder,
        "import os, random; print(os.getpid(), random.random())",
        "print('secret' in dir(), 'helper' in __import__('sys').modules)",
    )
    assert problems == []
    assert forker_of(folder).kernels == 2  # both kernels were forked, not started cold
    (pid1, draw1), (pid2, draw2) = first[0].split(), second[0].split()
    assert pid1 != pid2 and draw1 != draw2  # a new process, with its own random state
    assert first[1] == f"42 {sandbox.WORKDIR}"  # the learner's own files import, as in a kernel
    assert second[1] == "False False"


def test_a_forked_kernel_prints_what_a_kernel_started_from_scratch_prints(folder):
    """The same cells, warm and cold: the same printed text (interpreter, paths, argv's shape)."""
    cells = (
        "import sys, os; print(sys.executable, sys.argv[0].endswith('ipykernel_launcher.py'))",
        "print(sorted(p for p in sys.path if 'site-packages' not in p))",
        "print(os.environ.get('NBGRADER_EXECUTION'), __name__)",
        "1/0",
        "print('after an error, the next cell still runs')",
    )
    assert run(folder, *cells, warm=True) == run(folder, *cells, warm=False)


def test_a_kernel_that_kills_its_forker_costs_only_the_speed_up(folder):
    """The kernel kills its parent (the forker): the next notebook still runs, in a new sandbox."""
    run(folder, "import os, signal; os.kill(os.getppid(), signal.SIGKILL)")
    killed = forker_of(folder)
    printed, problems = run(folder, "print('still graded')")
    assert printed == ["still graded"] and problems == []
    assert forker_of(folder) is not killed


@pytest.mark.skipif(not sandbox.as_root(), reason="the sandbox uid (setpriv) is used as root")
def test_a_kernel_cannot_reach_its_forkers_pipes(folder):
    """The forker changed uid, so it is not dumpable: its kernel cannot open /proc/<it>/fd."""
    printed, _ = run(
        folder,
        "import os\ntry:\n    os.open(f'/proc/{os.getppid()}/fd/1', os.O_WRONLY); print('open')\n"
        "except PermissionError:\n    print('denied')",
    )
    assert printed == ["denied"]


LIAR = """import sys
print('{"ready": 2}', flush=True)
for line in sys.stdin:
    print('{"pid": 1}' if 'spawn' in line else 'not json', flush=True)
"""


def test_a_forker_that_answers_nonsense_is_not_believed(folder, tmp_path, monkeypatch):
    """A forker whose replies are wrong is ended; the notebook runs in a kernel started cold."""
    liar = tmp_path / "liar.py"
    liar.write_text(LIAR)
    monkeypatch.setattr(warm_kernels, "FORKER", str(liar))
    printed, problems = run(folder, "print('graded all the same')")
    assert printed == ["graded all the same"] and problems == []
    assert forker_of(folder).process.poll() is not None  # the liar's sandbox was ended


def test_closing_ends_the_sandbox_and_removes_its_runtime_folder(folder):
    """After a submission, no process and no socket folder of its warm sandbox remain."""
    run(folder, "print(1)")
    forker = forker_of(folder)
    warm_kernels.close()
    assert forker.process.poll() is not None
    assert not os.path.exists(forker.runtime)
    assert forker_of(folder) is None


def test_only_an_ipykernel_launcher_command_is_forked():
    """Any other kernel command (another kernel, another launcher) starts from scratch."""
    command = ["py", "-m", "ipykernel_launcher", "-f", "k.json"]
    assert launcher_arguments(command) == ["-f", "k.json"]
    assert launcher_arguments(["py", "-m", "other_kernel", "-f", "k.json"]) is None
    assert launcher_arguments(None) is None


def test_a_cell_past_its_timeout_ends_the_notebook_as_in_a_cold_kernel(folder):
    """An endless loop: the same outputs and the same problem noted, warm or cold."""
    cells = ("while True:\n    pass", "print('never reached')")

    def timed(warm):
        resources = {"metadata": {"path": str(folder)}, "nbgrader": {"notebook": "probe"}}
        run = SandboxedExecute(warm_kernels=warm, timeout=3, interrupt_on_timeout=True)
        nb, resources = run.preprocess(notebook(*cells), resources)
        return [c.outputs for c in nb.cells], resources.get("attention_problems")

    warm, cold = timed(True), timed(False)
    assert warm == cold
    assert "CellTimeoutError" in warm[1][0]


def test_a_process_in_a_namespace_of_its_own_is_ended_with_its_kernel(folder):
    """A kernel's child in a nested user and pid namespace (it is pid 1 there, as bubblewrap's
    init is in the sandbox) does not pass for the forker or bubblewrap: it ends with the kernel."""
    printed, _ = run(
        folder,
        "import subprocess, time\n"
        "subprocess.Popen(['unshare', '-Upf', 'sleep', '600'])\n"
        "time.sleep(1); print('started')",
    )
    assert printed == ["started"]
    forker = forker_of(folder)
    if forker.group is not None:  # as root: the group holds only what it held at ready
        assert forker.group.members() == forker.own


def test_a_kernel_cannot_ptrace_its_forker(folder):
    """PTRACE_ATTACH on the forker fails: it is not dumpable (no Yama needed)."""
    printed, _ = run(
        folder,
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print(libc.ptrace(16, os.getppid(), None, None), ctypes.get_errno() != 0)",
    )
    assert printed == ["-1 True"]


def test_a_tree_the_wipe_cannot_remove_costs_only_the_speed_up(folder):
    """A folder chain deeper than the wipe can walk: the next notebook still runs, from scratch
    in a sandbox of its own, and sees nothing of it."""
    run(
        folder,
        "import os\n"
        "os.chdir('/tmp')\n"
        "for _ in range(1500):\n"
        "    os.mkdir('d'); os.chdir('d')\n"
        "print('deep')",
    )
    printed, problems = run(folder, "import os; print('d' in os.listdir('/tmp'))")
    assert printed == ["False"] and problems == []


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
def test_learner_code_writes_nothing_to_the_graders_terminal(folder, capfd, warm):
    """A cell that writes a terminal escape past the kernel protocol, to every file descriptor it
    holds that is no socket (ipykernel's saved copy of the first stdout and stderr included),
    reaches neither the grader's stdout nor its stderr; print still reaches the cell."""
    capfd.readouterr()
    printed, _ = run(folder, WRITE_TO_EVERY_FD, warm=warm)
    out, err = capfd.readouterr()
    # ipykernel's thread forwards what reached fd 1 and 2 into the cell's stream whenever it
    # reads it, so the escapes it forwarded may land anywhere in the printed line
    line = printed[0].replace(ESCAPE, "")
    assert "through the protocol; wrote to fd " in line, printed
    wrote = [fd.strip() for fd in line.rsplit("wrote to fd ", 1)[1].split(",")]
    assert all(fd.isdigit() for fd in wrote) and len(wrote) >= 3  # 1, 2 and the saved copies
    assert "PAST-THE-PROTOCOL" not in out + err


ESCAPE = "\x1b]0;PAST-THE-PROTOCOL\x07"
WRITE_TO_EVERY_FD = """
import os
written = []
for name in os.listdir("/proc/self/fd"):
    try:
        target = os.readlink(f"/proc/self/fd/{name}")
        if not target.startswith(("socket:", "anon_inode:")):
            os.write(int(name), b"\\x1b]0;PAST-THE-PROTOCOL\\x07")
            written.append(name)
    except OSError:
        pass
print("through the protocol; wrote to fd " + ", ".join(written))
"""


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
def test_learner_code_finds_its_socket_folder_sealed(folder, warm):
    """By the first cell the kernel's socket folder is the grader's again (sandbox.seal): learner
    code can add no name to it, so nothing the grader connects to or removes there is planted."""
    printed, problems = run(folder, PLANT_IN_SOCKET_FOLDER, warm=warm)
    assert printed == ["refused"] and problems == []


PLANT_IN_SOCKET_FOLDER = """
import os, sys
sockets = os.path.dirname(sys.argv[sys.argv.index("-f") + 1])
try:
    open(os.path.join(sockets, "planted"), "w").close()
    print("planted")
except OSError:
    print("refused")
"""


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
def test_no_learner_file_runs_while_the_kernel_starts(folder, warm):
    """A handed-in storemagic.py (the name of IPython's default extension) is not imported while
    the kernel starts, before its socket folder is sealed; the learner's own modules still
    import from the first cell on."""
    (folder / "storemagic.py").write_text(
        "open('/tmp/learner-code-ran-at-start', 'w').close()\n"
        "def load_ipython_extension(ip):\n    pass\n"
    )
    printed, problems = run(
        folder,
        "import os, helper; print(os.path.exists('/tmp/learner-code-ran-at-start'), helper.ANSWER)",
        warm=warm,
    )
    assert printed == ["False 42"] and problems == []
