"""A release carries the checkpoints package, however it is made.

Every notebook of the student edition imports `checkpoints`, which lives at the top of the
repository, outside nbgrader's source folders, so `nbgrader generate_assignment` alone released
notebooks that could not run. As GenerateAssignment.post_convert_hook, this puts the part's share
of the package (in the edition's language, ATTENTION_EDITION) into the folder nbgrader released
to, whatever flags chose it; `make release` (authoring/course.py) then checks that it is there.
"""

import os

from grading.authoring.masters import ENGLISH, install_package


def release_folder(assignment):
    """The folder the running `nbgrader generate_assignment` writes the part's release into."""
    from nbgrader.apps.generateassignmentapp import GenerateAssignmentApp

    coursedir = GenerateAssignmentApp.instance().coursedir
    return coursedir.format_path(coursedir.release_directory, ".", assignment)


def nbgrader_hook(assignment, student, notebooks):
    """GenerateAssignment.post_convert_hook: the package beside the released notebooks."""
    install_package(
        release_folder(assignment), assignment, os.environ.get("ATTENTION_EDITION") or ENGLISH
    )
