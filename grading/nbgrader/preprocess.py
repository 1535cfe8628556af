"""nbgrader's side of trusted grading: six preprocessors, a late-penalty plugin, the intake hook.

Wired in grader_config.py:

    sanitize:  RepairCells        stray or duplicated nbgrader metadata becomes an ordinary cell
               QuietOverwriteCells  nbgrader's OverwriteCells, without its false alarm about the
                                  hidden tests the release itself removed (nbgrader#1961)
    autograde: NotAsRoot          an Autograde still running as root stops before any learner code
               SandboxedExecute   the learner's notebook runs in a bubblewrap sandbox; a dead kernel
                                  loses nothing (the notebook keeps what ran)
               HandedInOutputs    instead of SandboxedExecute when ATTENTION_EXECUTE=0: nothing
                                  runs, the cells keep the outputs the learner saved (display only)
               JudgeCells         every graded cell's outputs are replaced by the judge's verdict,
                                  computed from model.py and outputs/ as submitted
               FromWorker         in place of both when a Dask worker graded the submission
                                  (scale/remote.py): its outputs and records, recorded here
               ApplyDeadlines     deadlines.csv's due date and extension into the gradebook,
                                  before nbgrader's AssignLatePenalties asks LatePolicy
    hook:      intake             unreadable and renamed notebooks, before nbgrader reads them

What the kernel prints in a graded cell is discarded: the scores nbgrader saves come from the judge.
"""

import asyncio
import importlib
import json
import os
import shutil
import subprocess
import time

import nbformat
from jupyter_client.connect import port_names
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.paths import jupyter_path
from jupyter_core.utils import run_sync
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.preprocessors import (
    ClearHiddenTests,
    ClearSolutions,
    Execute,
    NbGraderPreprocessor,
    OverwriteCells,
)
from traitlets import Bool, default

from checkpoints import i18n
from grading import parts
from grading.judge import core
from grading.machine import cgroups, sandbox
from grading.nbgrader import deadlines
from grading.nbgrader.output_caps import Budget, CappedOutputs
from grading.parts import ASSIGNMENT
from grading.paths import JUDGED, SUBMITTED, masters
from grading.scale import warm_kernels


def record_path(student, notebook):
    """judged/<student>/<notebook>.json: where the judge's record of one notebook is kept."""
    return os.path.join(JUDGED, student, notebook + ".json")


def add_problem(resources, sentence):
    """Note one problem sentence in resources, for the notebook's record and grades.csv."""
    resources.setdefault("attention_problems", []).append(sentence)


# ── sanitize ──


def without_hidden_tests(source):
    """A cell's source as the release hands it out: nbgrader's own hidden-tests block removed."""
    cell = nbformat.v4.new_code_cell(source)
    ClearHiddenTests()._remove_hidden_test_region(cell)  # the very code the release ran
    return cell.source


class QuietOverwriteCells(OverwriteCells):
    """OverwriteCells, without one false alarm. The gradebook keeps a locked cell as the master
    has it, hidden tests included, but the release removed them, so every honest submission
    "changed" each hidden cell and nbgrader warned (nbgrader#1961), teaching instructors to ignore
    the warning. A locked cell whose only difference is that block gets its source back here,
    silently; any other change still warns, and is overwritten, as nbgrader does."""

    def preprocess_cell(self, cell, resources, cell_index):
        """Put the hidden tests back where the release alone removed them; then nbgrader's own."""
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None and cell.cell_type == "code":
            try:
                kept = self.gradebook.find_source_cell(grade_id, self.notebook_id,
                                                       self.assignment_id)  # fmt: skip
            except MissingEntry:
                kept = None
            if kept is not None and kept.locked and cell.source != kept.source:
                if cell.source == without_hidden_tests(kept.source):
                    cell.source = kept.source
        return super().preprocess_cell(cell, resources, cell_index)


class RepairCells(NbGraderPreprocessor):
    """Keep nbgrader metadata only on the source notebook's cells, once each, as the source has it.

    An extra cell with grade metadata, a duplicated or re-pointed grade id, or metadata in an old
    format would make nbgrader drop the whole submission; here such a cell becomes an ordinary
    cell, and the problem is recorded for grades.csv.
    """

    def preprocess(self, nb, resources):
        """Known cells get the source's metadata, others become ordinary, missing ones come back."""
        name, assignment = resources["nbgrader"]["notebook"], resources["nbgrader"]["assignment"]
        source = nbformat.read(os.path.join(masters(assignment), name + ".ipynb"), as_version=4)
        known = {
            c.metadata.nbgrader["grade_id"]: c for c in source.cells if "nbgrader" in c.metadata
        }
        seen = set()
        for cell in list(nb.cells):
            meta = cell.metadata.get("nbgrader")
            if meta is None:
                continue
            grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
            if (
                grade_id in known
                and grade_id not in seen
                and cell.cell_type == known[grade_id].cell_type
            ):
                seen.add(grade_id)
                cell.metadata["nbgrader"] = json.loads(
                    json.dumps(known[grade_id].metadata["nbgrader"])
                )
                continue
            del cell.metadata["nbgrader"]
            why = (
                "a second copy of"
                if grade_id in seen
                else f"the wrong cell type ({cell.cell_type}) for"
                if grade_id in known
                else "an unknown grading id"
                if grade_id
                else "no id for"
            )
            add_problem(
                resources,
                f"{name}: a cell with {why} {grade_id or 'its grading metadata'!s} "
                "was graded as an ordinary cell",
            )
        restore_missing(nb, source, seen, resources, ClearSolutions(config=self.config))
        remember_problems(resources)
        return nb, resources


def restore_missing(nb, source, present, resources, clear=None):
    """Put back every graded or locked cell of the source that the submission lacks.

    Each goes back after its neighbour. A solution cell goes back as the release hands it out
    (clear: nbgrader's ClearSolutions, configured with the course's stub), never with the
    master's solution in it: the autograded notebook becomes the learner's feedback.

    (nbgrader's own add_missing_cells fails when the cell before a missing one is locked but not
    graded, and then drops the whole submission.)
    """
    name = resources["nbgrader"]["notebook"]
    position = {c.metadata.get("nbgrader", {}).get("grade_id"): k for k, c in enumerate(nb.cells)}
    placed = 0
    for k, cell in enumerate(source.cells):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is None or grade_id in present:
            continue
        before = [c.metadata.get("nbgrader", {}).get("grade_id") for c in source.cells[:k]]
        anchor = next((position[g] for g in reversed(before) if g in position), None)
        at = len(nb.cells) if anchor is None else anchor + 1
        restored = nbformat.from_dict(json.loads(json.dumps(cell)))
        if restored.metadata["nbgrader"].get("solution"):
            (clear or ClearSolutions()).preprocess_cell(restored, {"language": "python"}, at)
        nb.cells.insert(at, restored)
        position = {
            c.metadata.get("nbgrader", {}).get("grade_id"): i for i, c in enumerate(nb.cells)
        }
        placed += 1
        if cell.metadata["nbgrader"].get("grade"):
            add_problem(
                resources,
                f"{name}: the graded cell {grade_id} was missing; it was put back "
                "(its score comes from the judge, like every other)",
            )
    return placed


def remember_problems(resources):
    """Keep problems on disk between sanitize and autograde.

    They are two passes with two resources dicts.
    """
    info = resources["nbgrader"]
    path = record_path(info["student"], info["notebook"]) + ".sanitize"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(resources.get("attention_problems", []), f)


def recalled_problems(student, notebook):
    """The problems the sanitize pass saved for this notebook ([] if none)."""
    path = record_path(student, notebook) + ".sanitize"
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# ── execute ──


KERNEL_ENV = {
    "NBGRADER_EXECUTION": "autograde",
    "IPYTHONDIR": "/tmp/.ipython",
    "MPLBACKEND": "agg",
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",  # debugpy's warning about frozen modules: noise
}


# `python -m ipykernel_launcher` would look for ipykernel_launcher in the working folder first: a
# learner's file of that name would run before the kernel's socket folder is sealed.
LAUNCH = (
    "import runpy, sys; del sys.path[0]; "
    "runpy.run_module('ipykernel_launcher', run_name='__main__', alter_sys=True)"
)


# The working folder (the learner's files) joins sys.path only when the first cell runs, by
# IPython's own rule (init_path: before site-packages): while the kernel starts, before the seal,
# no learner's file can shadow a module it imports (IPython's own storemagic extension, say).
CWD_AT_FIRST_CELL = """
def __attention_cwd(*_):
    from ipykernel.kernelapp import IPKernelApp
    app = IPKernelApp.instance()
    app.ignore_cwd = False
    app.init_path()
    get_ipython().events.unregister("pre_run_cell", __attention_cwd)
get_ipython().events.register("pre_run_cell", __attention_cwd)
"""
KERNEL_FLAGS = ["--IPKernelApp.ignore_cwd=True", f"--IPKernelApp.exec_lines={CWD_AT_FIRST_CELL}"]


class NotAsRoot(NbGraderPreprocessor):
    """Root never grades. Every grading command root starts hands itself over to the course user
    (grading.course_user); an Autograde that still runs as root (the formgrader's button, in a
    server root started) fails here, first of the autograde preprocessors, before any learner
    code runs. (nbgrader only logs an exception of the intake hook, so the check is here.)"""

    def preprocess(self, nb, resources):
        """The notebook as it is, unless this process is root."""
        if os.geteuid() == 0:
            raise PermissionError(
                "grading never runs as root: grade with `make autograde` or `nbgrader autograde`, "
                "which hand themselves over to the course user (docs/scoring-and-sandbox.md)"
            )
        return nb, resources


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel launched inside the sandbox, talking over ipc sockets in a folder bound into it.

    With a forker (warm kernels, scale.warm_kernels) the kernel is forked in the submission's
    warm sandbox instead; if that sandbox fails, the kernel is started from scratch as usual.
    """

    runtime = None  # this kernel's socket folder (grading.machine.sandbox.socket_folder)
    staging = None  # the host folder of staged copies, /handed-in inside
    handed_in = None  # the name of this notebook's staged copy in it
    forker = None
    group = None  # a cold kernel's cgroup
    kernel_argv = None
    edition = i18n.DEFAULT

    @default("kernel_spec_manager")
    def _kernel_spec_manager_default(self):
        """Kernel specs from Jupyter's folders alone. jupyter_client would add IPython's folder,
        and for the course user, who has no home, IPython makes that a new temporary folder on
        every call, never removed: one empty folder in /tmp per notebook graded."""
        return KernelSpecManager(data_dir=self.data_dir, kernel_dirs=jupyter_path("kernels"))

    def format_kernel_cmd(self, extra_arguments=None):
        """The kernel's own command; the sandboxed one is made at launch (`cold_command`)."""
        self.kernel_argv = super().format_kernel_cmd(extra_arguments) + KERNEL_FLAGS
        sandbox.open_to_sandbox(self.runtime, self.connection_file)  # written by now
        return self.kernel_argv

    def cold_command(self):
        """The kernel started from scratch in a sandbox (and a cgroup) of its own.

        The working folder (the learner's files) is not searched while ipykernel loads (LAUNCH);
        IPython puts it on sys.path for the cells, after the standard library, as always.
        """
        self.group = cgroups.new_group(sandbox.PROCESSES)
        python, rest = self.kernel_argv[0], launcher_arguments(self.kernel_argv) or []
        return sandbox.wrap(
            sandbox.filled([python, "-c", LAUNCH, *rest], self.handed_in),
            handed_in=self.staging,
            extra_binds=[self.runtime],
            env={**KERNEL_ENV, "ATTENTION_EDITION": self.edition},
            memory=sandbox.KERNEL_MEMORY_BYTES,
            group=self.group,
        )

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        """Fork the kernel in the warm sandbox when there is one; otherwise start it."""
        argv = launcher_arguments(kernel_cmd)
        if self.forker is not None and argv is not None:
            try:
                env = {"ATTENTION_EDITION": self.edition}
                process = self.forker.spawn(argv, env, self.handed_in)
            except warm_kernels.ForkerGone as gone:
                self.log.warning("%s; starting the kernel from scratch", gone)
            else:
                self.provisioner.process = process
                self.provisioner.pid, self.provisioner.pgid = process.pid, None
                self._reconcile_connection_info(self.provisioner.connection_info)
                return
        # The kernel's own stdout and stderr are learner code's to write (os.write(2, ...)): they
        # go nowhere, so no byte of it reaches the grader's terminal or log; cells' output comes
        # back through the kernel protocol alone.
        kw.update(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        await super()._async_launch_kernel(self.cold_command(), **kw)

    def _reconcile_connection_info(self, info):
        """Check the kernel's connection info against this manager's own, in memory.

        jupyter_client would read the connection file back, and rewrite it when it differs: by
        path, in the socket folder the sandbox may write until the seal, and which an
        unprivileged grader cannot even look into once the folder is the sandbox's. The info is
        the one this manager wrote before the folder was opened, so nothing is read back.
        """
        if not self._equal_connections(info, self.get_connection_info()):
            raise RuntimeError("the kernel's connection info is not the one its manager wrote")

    def end_sandbox(self):
        """End every process this kernel started and confirm it (its cgroup, or its forker's)."""
        group, self.group = self.group, None
        if group is not None:
            try:
                group.remove()
            except (OSError, cgroups.GroupStuck) as stuck:  # said; never the submission's loss
                self.log.warning("a kernel's processes did not end: %s", stuck)
        if self.forker is not None:
            self.forker.end_learners()


def edition_of(nb):
    """The language edition a notebook was handed out in (its metadata says; English if not).

    The learner's messages in the kernel and the judge's verdicts follow it.
    """
    meta = nb.metadata.get("attention")  # the learner's file: any shape at all
    code = meta.get("edition") if isinstance(meta, dict) else None
    return code if isinstance(code, str) and code in i18n.editions() else i18n.DEFAULT


# The autograded notebook's own word on where its ungraded cells' outputs came from: written by
# the lane that grades it (a learner's own value is replaced or removed), read by the pages
# (grading/nbgrader/display.py), which mark outputs the learner saved as theirs.
OUTPUTS = "attention_outputs"
HANDED_IN = "saved by the learner, not run at grading"


def note_outputs_handed_in(nb, handed_in):
    """Say in nb's metadata whether its outputs are the learner's saved ones; remove any such
    word the learner wrote when they are not."""
    if handed_in:
        nb.metadata[OUTPUTS] = HANDED_IN
    else:
        nb.metadata.pop(OUTPUTS, None)


def outputs_handed_in(nb):
    """True when the lane that graded nb kept the outputs the learner saved (EXECUTE=0)."""
    return nb.metadata.get(OUTPUTS) == HANDED_IN


def launcher_arguments(cmd):
    """The arguments after `python -m ipykernel_launcher` in a kernel command, else None."""
    if cmd and len(cmd) >= 3 and list(cmd[1:3]) == ["-m", "ipykernel_launcher"]:
        return list(cmd[3:])
    return None


class SandboxedExecute(CappedOutputs, Execute):
    """nbgrader's Execute with the kernel in the sandbox.

    The kernel works on a private copy of the submission; nothing it does is read back but the
    outputs it sends, and those only up to the caps of output_caps. Whatever happens to the
    kernel, the submission is not dropped.
    """

    store_widget_state = Bool(False)  # a widget's state is output the caps would not see

    warm_kernels = Bool(
        False,
        help="Fork each notebook's kernel in one warm sandbox per submission (scale/server.py).",
    ).tag(config=True)

    def create_kernel_manager(self):
        """nbgrader's kernel manager, on ipc sockets in a socket folder of its own."""
        km = super().create_kernel_manager()
        km.transport = "ipc"
        km.runtime = sandbox.socket_folder(self._sockets)
        km.staging, km.handed_in = self._staging, self._handed_in
        km.forker = self._forker
        km.edition = self.edition
        km.connection_file = os.path.join(km.runtime, "kernel.json")
        km.ip = os.path.join(km.runtime, "ipc")
        self._km = km
        return km

    async def async_start_new_kernel_client(self):
        """Once the kernel has bound its sockets, seal their folder (sandbox.seal), then connect.

        Sealed first, the sockets are the grader's to connect to whoever it runs as: bound by the
        sandbox uid, they would let only root connect.
        """
        try:
            await self.sockets_bound()
            sandbox.seal(self._km.runtime)
        except Exception:
            self._km.end_sandbox()  # confirmed ended before jupyter_client removes names there
            await self._async_cleanup_kernel()
            raise
        return await super().async_start_new_kernel_client()

    # nbclient's synchronous twin wraps its own coroutine, not an override: without this line
    # setup_kernel would connect through nbclient's and never seal.
    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    async def sockets_bound(self):
        """Wait until the kernel has bound its five sockets: five names in its socket folder.

        Only their names are looked up (never followed): no learner code has run yet, and the
        seal refuses any that is not a socket.
        """
        info = self._km.get_connection_info()
        names = [f"{info['ip']}-{info[port]}" for port in port_names]
        deadline = time.monotonic() + self.startup_timeout
        while not all(os.path.lexists(name) for name in names):
            if time.monotonic() > deadline or not await self._km.is_alive():
                raise RuntimeError("the kernel ended or did not bind its sockets in time")
            await asyncio.sleep(0.02)

    def warm_sandbox(self, submission):
        """This submission's warm sandbox, or None (warm kernels off, or it cannot start)."""
        if not self.warm_kernels:
            return None
        try:
            return warm_kernels.forker_for(submission, KERNEL_ENV)
        except (warm_kernels.ForkerGone, OSError) as gone:
            self.log.warning("%s; kernels start from scratch", gone)
            return None

    def preprocess(self, nb, resources, km=None):
        """Run sandboxed on a staged copy; whatever the kernel does is noted, never fatal."""
        sandbox.require()
        self.kernel_manager_class = SandboxedKernelManager
        resources["attention_edition"] = self.edition = edition_of(nb)
        self.budget = Budget()
        note_outputs_handed_in(nb, False)  # the kernel's outputs, not the learner's saved ones
        submission = os.path.abspath(resources.get("metadata", {}).get("path") or ".")
        self._forker, self._km = self.warm_sandbox(submission), None
        if self._forker is not None:
            self._staging, self._sockets = self._forker.staging, self._forker.runtime
        else:
            self._staging = sandbox.private_folder("attn-in-")
            self._sockets = sandbox.private_folder("attn-kernel-")
        self._handed_in = sandbox.stage(submission, self._staging)
        try:
            return super().preprocess(nb, resources, km)
        except Exception as err:  # a dead, stuck, lying or starved kernel: outputs are display only
            add_problem(
                resources,
                f"{resources['nbgrader']['notebook']}: the kernel stopped while running "
                f"it ({type(err).__name__}); the cells after that point did not run "
                "(scores come from the judge, so none are lost)",
            )
            return nb, resources
        finally:
            capped = self.budget.problem(resources["nbgrader"]["notebook"])
            if capped:
                add_problem(resources, capped)
            if self._km is not None:
                self._km.end_sandbox()  # confirmed: no process of this notebook is left
            if self._forker is None:
                shutil.rmtree(self._staging, ignore_errors=True)
                shutil.rmtree(self._sockets, ignore_errors=True)
            else:
                shutil.rmtree(os.path.join(self._staging, self._handed_in), ignore_errors=True)


# ── or not execute ──

EXECUTE = "ATTENTION_EXECUTE"  # 0: the no-execution lane (make autograde EXECUTE=0)


def executes(env=None):
    """True unless ATTENTION_EXECUTE=0 asks for the no-execution lane; any value but 0 or 1 is
    refused, so a typo never grades in the other lane unnoticed."""
    value = (os.environ if env is None else env).get(EXECUTE, "1").strip() or "1"
    if value not in ("0", "1"):
        raise ValueError(f"{EXECUTE}={value!r}: say 1 (run the notebooks) or 0 (do not)")
    return value == "1"


class HandedInOutputs(NbGraderPreprocessor):
    """The no-execution lane's stand-in for SandboxedExecute: no kernel starts and no learner code
    runs; every cell keeps the outputs the learner saved, shown in the feedback, never trusted
    (JudgeCells replaces every graded cell's outputs, as in the executing lane). What it skips:
    the kernels, and with them the outputs a fresh run would have printed. The notebook says so
    in its metadata, and the pages mark every output left as the learner's own."""

    def preprocess(self, nb, resources):
        """The notebook as handed in; its edition noted for the judge's verdicts."""
        resources["attention_edition"] = edition_of(nb)
        note_outputs_handed_in(nb, True)
        return nb, resources


# ── judge ──

_current = {}  # the one Judgement alive: nbgrader grades a student's notebooks one after another


def judgement_for(student, assignment=ASSIGNMENT):
    """The Judgement of this student's submission of an assignment, shared by its notebooks.

    Part one is judged on model.py and outputs/, part two (xslm) on engine.py, gpt.py and
    outputs/. Any other Judgement is closed.
    """
    folder = os.path.join(SUBMITTED, student, assignment)
    key = (student, assignment, core.fingerprint(folder))
    if key not in _current:
        for old in list(_current):
            _current.pop(old).close()  # its workers end now, not when nbgrader exits
        _current[key] = part_judge(assignment).Judgement(folder)
    return _current[key]


def end_judgement(assignment=None, student=None, notebooks=None):
    """Autograde.post_convert_hook: once a student's notebooks are graded, their Judgement's
    workers end. A command would end them as it exits; the hub's formgrader lives on, and would
    otherwise keep the last learner's code loaded in idle sandboxes until its next Autograde."""
    while _current:
        _current.popitem()[1].close()


def part_judge(assignment):
    """The judge module of a part (its registry entry): its Judgement class and its CELLS."""
    return importlib.import_module(parts.PARTS[assignment].judge)


def graded_cells(assignment):
    """{grade_id: (kind, what)} of the assignment's graded cells."""
    return part_judge(assignment).CELLS


def verdict_outputs(verdict):
    """A graded cell's outputs for a verdict: the report, then an error output when it failed."""
    data = {"text/plain": verdict.text}
    if verdict.html:
        data["text/html"] = verdict.html
    outputs = [nbformat.v4.new_output("display_data", data=data)]
    if not verdict.passed:
        summary = verdict.text.splitlines()[0]
        outputs.append(
            nbformat.v4.new_output(
                "error",
                ename="CheckpointFailed",
                evalue=summary,
                traceback=[f"CheckpointFailed: {summary}"],
            )
        )
    return outputs


class JudgeCells(NbGraderPreprocessor):
    """Replace every graded cell's outputs with the judge's verdict.

    The judge's record is kept for grades.csv.
    """

    def preprocess(self, nb, resources):
        """Graded code cells show the judge's verdict, not the kernel's output; write the record."""
        info = resources["nbgrader"]
        judgement = judgement_for(info["student"], info["assignment"])
        graded = graded_cells(info["assignment"])
        judged = [
            (cell, grade_id)
            for cell in nb.cells
            if cell.cell_type == "code"
            and (grade_id := cell.metadata.get("nbgrader", {}).get("grade_id")) in graded
        ]
        judgement.prepare([grade_id for _, grade_id in judged])
        cells = {}
        for cell, grade_id in judged:
            with i18n.speaking(resources.get("attention_edition", i18n.DEFAULT)):
                verdict = judgement.verdict(grade_id)
            cell.outputs = verdict_outputs(verdict)
            cells[grade_id] = {"passed": verdict.passed, **verdict.record}
        problems = recalled_problems(info["student"], info["notebook"]) + resources.get(
            "attention_problems", []
        )
        found = relevant(judgement.problems, cells, graded)
        edition = resources.get("attention_edition", i18n.DEFAULT)
        record = {"cells": cells, "problems": problems + found, "edition": edition}
        with open(record_path(info["student"], info["notebook"]), "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1, sort_keys=True, ensure_ascii=False)
        return nb, resources


class FromWorker(NbGraderPreprocessor):
    """In place of SandboxedExecute and JudgeCells when a Dask worker graded the submission
    (grading/scale/remote.py): every code cell's outputs as the worker's graded notebook has
    them, and the judge's record of the notebook as the worker wrote it. Nothing runs and nothing
    is judged here; SaveAutoGrades, next, scores the outputs as in every lane."""

    graded = None  # the worker's results for the submission being recorded (scale/server.py)

    def preprocess(self, nb, resources):
        """nb with the worker's outputs; its judge's record written to judged/."""
        info, graded = resources["nbgrader"], FromWorker.graded or {}
        name = info["notebook"] + ".ipynb"
        mine = (info["student"], info["assignment"])
        if (graded.get("student"), graded.get("assignment")) != mine or name not in graded.get(
            "notebooks", {}
        ):
            raise ValueError(f"{name}: the Dask worker sent back no graded notebook")
        theirs = nbformat.reads(graded["notebooks"][name], as_version=4)
        if [(c.cell_type, c.source) for c in nb.cells] != [
            (c.cell_type, c.source) for c in theirs.cells
        ]:
            raise ValueError(f"{name}: the Dask worker graded different cells than these")
        for mine, done in zip(nb.cells, theirs.cells):
            if mine.cell_type == "code":
                mine.outputs, mine.execution_count = done.outputs, done.execution_count
        note_outputs_handed_in(nb, outputs_handed_in(theirs))  # as the worker's lane noted it
        record = json.loads(graded.get("records", {}).get(name) or "null")
        if not isinstance(record, dict) or not isinstance(record.get("cells"), dict):
            raise ValueError(f"{name}: the Dask worker sent back no judge's record")
        path = record_path(info["student"], info["notebook"])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1, sort_keys=True, ensure_ascii=False)
        return nb, resources


def relevant(problems, cells, graded=None):
    """The submission's file problems that concern this notebook's cells.

    Each is said once, where it costs.
    """
    names = {(graded or graded_cells(ASSIGNMENT))[g][1] for g in cells}
    return [
        p
        for p in problems
        if not p.startswith(tuple(f"{name}: the " for name in parts.learner_programs()))
        or any(f" {n} section" in p for n in names)
    ]


# ── deadlines ──


class ApplyDeadlines(NbGraderPreprocessor):
    """Write the part's due date and the student's extension (deadlines.csv) into the gradebook,
    so that nbgrader's AssignLatePenalties, next, measures lateness against them. A part the file
    does not list keeps whatever nbgrader itself holds."""

    def preprocess(self, nb, resources):
        """Set the assignment's duedate and the submission's extension, then pass nb through."""
        assignment, student = resources["nbgrader"]["assignment"], resources["nbgrader"]["student"]
        deadline = deadlines.load().get(assignment)
        if deadline is None:  # not in deadlines.csv: a due date set in nbgrader itself stands
            return nb, resources
        extension = (deadline.due_for(student) - deadline.due) or None
        with Gradebook(resources["nbgrader"]["db_url"]) as gb:  # once a submission, not a notebook
            submission = gb.find_submission(assignment, student)
            if (submission.assignment.duedate, submission.extension) != (deadline.due, extension):
                submission.assignment.duedate = deadline.due
                submission.extension = extension
                gb.db.commit()
        return nb, resources


class LatePolicy(LateSubmissionPlugin):
    """nbgrader's late-penalty plugin, following the part's policy in deadlines.csv."""

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        """The points a notebook loses: none on time, else what the part's policy takes."""
        deadline = deadlines.load().get(self.parent.assignment_id)
        policy = deadline.policy if deadline else deadlines.Policy()
        return policy.penalty(score or 0.0, total_seconds_late) or None
