"""The whole nbgrader configuration of the course. nbgrader_config.py only loads this file.

Layout nbgrader sees (paths relative to the repository root):
    notebooks/attention/*.ipynb      the master notebooks (source)
                                     -> release/attention/ (student edition)
    submitted/<student>/attention/   what learners hand in  -> autograded/, feedback/
    gradebook.db                     the SQLite gradebook
    judged/<student>/*.json          the judge's verdicts and the problems found
                                     (grades.csv reads them)
The class (submitted/ and everything below it) lives in COURSE: the repository root, or the folder
ATTENTION_COURSE names. `make demo` grades its simulated class in demo/ that way, so it never
touches a real class; the masters and the student edition stay in the repository.

The assignment is named on the command line, as in nbgrader's docs: `nbgrader autograde attention`.
Scores come from the judge (grading/judge.py) through the JudgeCells preprocessor, never from what
the learner's kernel printed; the kernel runs in a bubblewrap sandbox (grading/sandbox.py).
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
# nbgrader execs this file from its own script (cwd is not on sys.path): the course's packages,
# checkpoints/ (the learner's file names, below) and grading/ (the preprocessors), import from ROOT.
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from checkpoints.artifacts import ARTIFACT_CHECKS, OUTPUTS  # noqa: E402
from checkpoints.modelfile import MODEL_FILE  # noqa: E402

ASSIGNMENT = "attention"
SOURCE_DIR = "notebooks"
EXPORT_CSV = "gradebook-export.csv"  # `nbgrader export`; `make grades` writes grades.csv
# The gradebook: SQLite beside this file, whose writers wait up to 5 minutes for each other (so
# parallel grading never fails on a lock), or any SQLAlchemy URL in DB_URL, e.g. PostgreSQL:
# DB_URL=postgresql+psycopg2://user@host:5432/gradebook (see README, "A large class").
COURSE = os.path.abspath(os.environ.get("ATTENTION_COURSE") or ROOT)
SQLITE_GRADEBOOK = os.path.join(COURSE, "gradebook.db")


def db_url():
    """The gradebook: DB_URL from the environment, else the SQLite file with a lock timeout."""
    return os.environ.get("DB_URL") or f"sqlite:///{SQLITE_GRADEBOOK}?timeout=300"


# Files the learner produces: graded as submitted, never replaced by the source versions.
LEARNER_FILES = [MODEL_FILE] + [f"{OUTPUTS}/{name}" for name in ARTIFACT_CHECKS]
# Part two (assignment "xslm", notebooks/xslm): its learner files and artifacts.
XSLM_LEARNER_FILES = ["engine.py", "gpt.py"] + [
    f"{OUTPUTS}/xslm-{name}" for name in ("loss.txt", "weights.json", "samples.txt")
]


def configure(c):
    """Fill nbgrader's config c: layout, intake hook, sandboxed kernel, judge's scores, feedback."""
    from nbconvert.preprocessors import ClearMetadataPreprocessor
    from nbgrader import preprocessors as nbp

    from grading.preprocess import JudgeCells, RepairCells, SandboxedExecute

    c.CourseDirectory.root = COURSE
    c.CourseDirectory.course_id = "attention-by-hand"
    # Relative to COURSE (nbgrader's root): "notebooks" and "release" when it is the repository,
    # the repository's own folders from another class folder (the demo's).
    c.CourseDirectory.source_directory = os.path.relpath(os.path.join(ROOT, SOURCE_DIR), COURSE)
    c.CourseDirectory.release_directory = os.path.relpath(os.path.join(ROOT, "release"), COURSE)
    c.CourseDirectory.db_url = db_url()
    c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback"]
    c.Exchange.root = os.path.join(
        COURSE, "exchange"
    )  # nbgrader's release/collect folder, inside the course
    c.Autograde.exclude_overwriting = {ASSIGNMENT: LEARNER_FILES, "xslm": XSLM_LEARNER_FILES}
    c.Autograde.pre_convert_hook = "grading.intake.nbgrader_hook"
    # RepairCells: stray or duplicated grading metadata made ordinary, deleted graded cells put back
    c.Autograde.sanitize_preprocessors = [
        nbp.ClearOutput,
        RepairCells,
        nbp.DeduplicateIds,
        nbp.OverwriteKernelspec,
        nbp.OverwriteCells,
        nbp.CheckCellMetadata,
    ]
    c.Autograde.autograde_preprocessors = [
        SandboxedExecute,
        nbp.IgnorePattern,
        ClearMetadataPreprocessor,
        nbp.LimitOutput,
        JudgeCells,
        nbp.SaveAutoGrades,
        nbp.AssignLatePenalties,
        nbp.CheckCellMetadata,
    ]
    # Seconds per cell. The interrupt does not reach a sandboxed kernel (bubblewrap's own session),
    # so a cell that runs longer ends that notebook's run, noted as a problem; its scores come
    # from the judge, so an endless loop costs no points beyond what the judge finds.
    c.Execute.timeout = 30
    c.Execute.interrupt_on_timeout = True
    # Feedback pages render their maths offline: grading/feedback.py puts a copy of MathJax beside
    # them and points the pages at it.
    c.GenerateFeedback.post_convert_hook = "grading.feedback.nbgrader_hook"
    # `nbgrader zip_collect` (make collect): downloaded/<part>/archive/<student>.zip, the hand-in
    # zips of the in-browser edition (checkpoints/handin.py), into submitted/<student>/<part>/
    c.FileNameCollectorPlugin.named_regexp = r".*/extracted/(?P<student_id>[^/]+)/(?P<file_id>.+)"
    c.FileNameCollectorPlugin.valid_ext = [".ipynb", ".py", ".txt", ".md", ".json"]
    c.ExportApp.plugin_class = "nbgrader.plugins.CsvExportPlugin"
    c.CsvExportPlugin.to = EXPORT_CSV
    c.ClearSolutions.code_stub = {"python": code_stub(os.environ.get("ATTENTION_EDITION"))}


def code_stub(edition=None):
    """What a solution cell of the student edition holds instead of the solution, in the
    edition's language (`make release EDITION=ko` sets ATTENTION_EDITION)."""
    from grading import editions

    words = {
        "your_code_here": "YOUR CODE HERE",
        "not_implemented": "replace this line with your code, then run the cell",
        **editions.details(edition or editions.ENGLISH),
    }
    message = json.dumps(words["not_implemented"], ensure_ascii=False)  # "…", as Python writes it
    return f"# {words['your_code_here']}\nraise NotImplementedError({message})"


if "get_config" in globals():  # loaded by nbgrader (via nbgrader_config.py), not imported
    configure(get_config())  # noqa: F821 -- traitlets provides get_config to config files
