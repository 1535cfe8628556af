"""Feedback pages that render their maths offline: a copy of MathJax beside each student's pages.

nbconvert's HTML loads MathJax from a CDN, so feedback opened without a network shows raw `$$…$$`.
After nbgrader writes a student's pages, this hook copies the files they need (about 1.4 MB) from
the course's MathJax (grading/nbgrader/mathjax.py) into feedback/<student>/<part>/mathjax/, which
the course's template, which grader_config.py always sets, points them at.
"""

import os
import shutil
import stat

from grading.nbgrader.mathjax import copy_mathjax
from grading.paths import FEEDBACK


def keep_only_pages(folder, pages):
    """Remove everything nbgrader copied beside the pages (model.py, outputs/, checkpoints/, and
    an .html file of the learner's, which the formgrader would serve as a page of its own).

    Feedback is the pages: the learner has their own files, and a copy of a large submission
    should not double on the instructor's disk.
    """
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path)
        elif name not in pages:
            os.unlink(path)


def nbgrader_hook(assignment, student, notebooks):
    """GenerateFeedback.post_convert_hook: the pages only, MathJax beside them, for one student."""
    if notebooks:
        source = os.path.dirname(os.path.abspath(notebooks[0]))  # autograded/<student>/<part>
        student_id, part = os.path.basename(os.path.dirname(source)), os.path.basename(source)
        folder = os.path.join(FEEDBACK, student_id, part)
        if not os.path.isdir(folder):
            return
        pages = {os.path.splitext(os.path.basename(n))[0] + ".html" for n in notebooks}
        keep_only_pages(folder, pages)
        copy_mathjax(folder)  # the course's template (grader_config.py) points the pages at it
