"""The whole nbgrader configuration of the course. nbgrader_config.py only loads this file.

nbgrader's source is notebooks/masters/<part>/ (the masters), its release release/<part>/ (the
student edition), and its course root the class folder COURSE, which holds submitted/, autograded/,
feedback/ and the gradebook. Every path is defined once, in grading/paths.py, and the parts and
the files a learner hands in for each in grading/parts.py; this file only configures nbgrader.

The assignment is named on the command line, as in nbgrader's docs: `nbgrader autograde attention`.
Scores come from the judge (grading/judge/) through the JudgeCells preprocessor, never from what
the learner's kernel printed; the kernel runs in a bubblewrap sandbox (grading/machine/sandbox.py).
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
# nbgrader execs this file from its own script (cwd is not on sys.path): the course's packages,
# checkpoints/ and grading/ (the paths, the parts and the preprocessors), import from ROOT.
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from grading.parts import LEARNER_FILES  # noqa: E402
from grading.paths import COURSE, EXCHANGE, EXPORT_CSV, MASTERS, RELEASED, db_url  # noqa: E402

# nbgrader's commands that grade or unpack learners' zips: run as root, they start again as the
# course user.
GRADING_COMMANDS = ("autograde", "generate_feedback", "zip_collect", "release_assignment",
                    "collect", "release_feedback", "list")  # fmt: skip


def configure(c):
    """Fill nbgrader's config c: layout, intake hook, sandboxed kernel, judge's scores, feedback."""
    from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
    from nbgrader import preprocessors as nbp

    from grading import course_user
    from grading.nbgrader import deadlines, mathjax, records
    from grading.nbgrader.preprocess import (
        ApplyDeadlines,
        HandedInOutputs,
        JudgeCells,
        LatePolicy,
        NotAsRoot,
        QuietOverwriteCells,
        RepairCells,
        SandboxedExecute,
        executes,
    )

    if "nbgrader" in sys.modules and sys.argv[1:2] in ([name] for name in GRADING_COMMANDS):
        course_user.become([sys.executable, "-m", "nbgrader", *sys.argv[1:]])  # as root only
    records.settle()  # the gradebook in records/, an older layout's moved there first
    records.quiet_first_submission_warning()  # a false alarm of nbgrader's on SQLAlchemy 2
    c.CourseDirectory.root = COURSE
    c.CourseDirectory.course_id = "attention-by-hand"
    # Relative to COURSE (nbgrader's root): "notebooks/masters" and "release" in the repository,
    # the repository's own folders from another class folder (the demo's).
    c.CourseDirectory.source_directory = os.path.relpath(MASTERS, COURSE)
    c.CourseDirectory.release_directory = os.path.relpath(RELEASED, COURSE)
    c.CourseDirectory.db_url = db_url()
    c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback"]
    # The exchange is the course's own (grading/hub/exchange/): learners hand in through the hub's
    # exchange service, which alone names who handed in and when; these are the instructor's steps,
    # on its store in EXCHANGE.
    instructor = "grading.hub.exchange.instructor"
    c.ExchangeFactory.release_assignment = f"{instructor}.ReleaseAssignment"
    c.ExchangeFactory.collect = f"{instructor}.Collect"
    c.ExchangeFactory.release_feedback = f"{instructor}.ReleaseFeedback"
    c.ExchangeFactory.list = f"{instructor}.List"
    # The store, the course user's: made here when this account can, and by every grading
    # command (grading/course_user.py gives it over).
    try:
        os.makedirs(EXCHANGE, mode=0o700, exist_ok=True)
    except PermissionError:
        pass
    c.Autograde.exclude_overwriting = LEARNER_FILES
    c.Autograde.pre_convert_hook = "grading.nbgrader.intake.nbgrader_hook"
    c.Autograde.post_convert_hook = "grading.nbgrader.preprocess.end_judgement"  # its sandboxes end
    # ATTENTION_EXECUTE=0 (make autograde EXECUTE=0): the no-execution lane. Nothing runs; the
    # cells keep the outputs the learner saved (display only: the judge alone scores, in both lanes)
    try:
        execute = executes()
    except ValueError as err:
        raise SystemExit(str(err)) from None
    # RepairCells: stray or duplicated grading metadata made ordinary, deleted graded cells put back
    c.Autograde.sanitize_preprocessors = [
        *([nbp.ClearOutput] if execute else []),
        RepairCells,
        nbp.DeduplicateIds,
        nbp.OverwriteKernelspec,
        QuietOverwriteCells,  # nbgrader's OverwriteCells, without the hidden-tests false alarm
        nbp.CheckCellMetadata,
    ]
    c.Autograde.autograde_preprocessors = [
        NotAsRoot,
        SandboxedExecute if execute else HandedInOutputs,
        nbp.IgnorePattern,
        ClearMetadataPreprocessor,
        nbp.LimitOutput,
        JudgeCells,
        nbp.SaveAutoGrades,
        ApplyDeadlines,  # deadlines.csv's due date and extension into the gradebook
        nbp.AssignLatePenalties,
        nbp.CheckCellMetadata,
    ]
    c.AssignLatePenalties.plugin_class = LatePolicy  # the part's policy, per notebook
    try:  # a mistake in deadlines.csv stops nbgrader before it grades anyone, saying where
        deadlines.load()
    except deadlines.DeadlineError as err:
        raise SystemExit(f"{os.path.relpath(deadlines.DEADLINES, COURSE)}: {err}") from None
    # Seconds per cell. The interrupt does not reach a sandboxed kernel (bubblewrap's own session),
    # so a cell that runs longer ends that notebook's run, noted as a problem; its scores come
    # from the judge, so an endless loop costs no points beyond what the judge finds.
    c.Execute.timeout = 30
    c.Execute.interrupt_on_timeout = True
    # Feedback pages render their maths offline: grading.nbgrader.feedback puts a copy of MathJax
    # beside them and points the pages at it.
    c.GenerateFeedback.post_convert_hook = "grading.nbgrader.feedback.nbgrader_hook"
    # `nbgrader generate_assignment` itself releases the checkpoints package the notebooks import
    c.GenerateAssignment.post_convert_hook = "grading.nbgrader.release.nbgrader_hook"
    # The formgrader's pages and the feedback pages (both HTMLExporter) show the judge's verdicts as
    # HTML and everything else a learner wrote or printed as text: no learner HTML or script runs
    # in the instructor's browser (grading/nbgrader/display.py).
    c.HTMLExporter.preprocessors = ["grading.nbgrader.display.SafeDisplay"]
    c.HTMLExporter.filters = {"markdown2html": "grading.nbgrader.display.markdown2html"}
    # Both load the course's MathJax, Safe (no links, styles or classes from a formula) and
    # offline: grading/nbgrader/mathjax.py. Before make has set the copy up, the pages show the
    # maths as TeX rather than load nbgrader's MathJax from the web with its looser Safe mode.
    c.HTMLExporter.extra_template_basedirs = mathjax.template_basedirs()
    # Autograded notebooks keep each hidden cell as the gradebook holds it (QuietOverwriteCells):
    # the feedback pages show it as the release did, without its hidden-tests block.
    c.GenerateFeedback.preprocessors = [nbp.GetGrades, CSSHTMLHeaderPreprocessor,
                                        nbp.ClearHiddenTests]  # fmt: skip
    # `nbgrader zip_collect` (make collect): downloaded/<part>/archive/<student>.zip, the hand-in
    # zips of the in-browser edition (checkpoints/handin.py), into submitted/<student>/<part>/
    c.FileNameCollectorPlugin.valid_ext = [".ipynb", ".py", ".txt", ".md", ".json"]
    c.ZipCollectApp.collector_plugin = "grading.nbgrader.collect.HandInCollector"  # + its time
    # the course unpacks the zips itself: plain files and folders, bounded, or the zip refused
    c.ZipCollectApp.extractor_plugin = "grading.nbgrader.unpack.HandInExtractor"
    c.ExportApp.plugin_class = "nbgrader.plugins.CsvExportPlugin"
    c.CsvExportPlugin.to = EXPORT_CSV
    c.ClearSolutions.code_stub = {"python": code_stub(os.environ.get("ATTENTION_EDITION"))}


def code_stub(edition=None):
    """What a solution cell of the student edition holds instead of the solution, in the
    edition's language (`make release EDITION=ko` sets ATTENTION_EDITION)."""
    from grading.authoring import editions

    words = {
        "your_code_here": "YOUR CODE HERE",
        "not_implemented": "replace this line with your code, then run the cell",
        **editions.details(edition or editions.ENGLISH),
    }
    message = json.dumps(words["not_implemented"], ensure_ascii=False)  # "…", as Python writes it
    return f"# {words['your_code_here']}\nraise NotImplementedError({message})"


if "get_config" in globals():  # loaded by nbgrader (via nbgrader_config.py), not imported
    configure(get_config())  # noqa: F821 -- traitlets provides get_config to config files
