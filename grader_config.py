"""The whole nbgrader configuration of the course. nbgrader_config.py only loads this file.

Layout nbgrader sees (paths relative to the repository root):
    notebooks/attention/*.ipynb      the master notebooks (source)    -> release/attention/ (student edition)
    submitted/<student>/attention/   what learners hand in             -> autograded/, feedback/
    gradebook.db                     the SQLite gradebook
"""
import os

ROOT = os.path.dirname(os.path.abspath(__file__))
ASSIGNMENT = "attention"

# Files the learner produces: graded as submitted, never replaced by the source versions.
LEARNER_FILES = ["model.py", "outputs/02-scale.txt", "outputs/05-perm.txt", "outputs/08-notes.md"]


def configure(c):
    c.CourseDirectory.root = ROOT
    c.CourseDirectory.course_id = "attention-by-hand"
    c.CourseDirectory.source_directory = "notebooks"
    c.CourseDirectory.assignment_id = ASSIGNMENT
    c.CourseDirectory.db_url = "sqlite:///" + os.path.join(ROOT, "gradebook.db")
    # Never ship or copy caches; grading_record.json is written by the hidden checks while grading.
    c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "grading_record.json"]
    c.Autograde.exclude_overwriting = {ASSIGNMENT: LEARNER_FILES}
    c.Execute.timeout = 30                 # seconds per cell; an infinite loop costs only its own cell
    c.Execute.interrupt_on_timeout = True
    c.ClearSolutions.code_stub = {
        "python": '# YOUR CODE HERE\nraise NotImplementedError("write this part, then run the save cell below it")'}
    # The hidden test cells import `grading` (instructor-only, outside the student edition). The
    # kernel imports it from the course root before any learner file can shadow the name.
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in [ROOT, os.environ.get("PYTHONPATH")] if p)
    c.Execute.extra_arguments = [
        f"--IPKernelApp.exec_lines=import sys; sys.path.insert(0, {ROOT!r}); "
        "import grading.hidden, grading.isolation; sys.path.remove(" + repr(ROOT) + ")"]


if "get_config" in globals():   # loaded by nbgrader (via nbgrader_config.py), not imported
    configure(get_config())  # noqa: F821 -- traitlets provides get_config to config files
