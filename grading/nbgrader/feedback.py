"""Feedback pages that render their maths offline: a copy of MathJax beside each student's pages.

nbconvert's HTML loads MathJax from a CDN, so feedback opened without a network shows raw `$$…$$`.
`make mathjax` (part of the environment set-up) unpacks MathJax 2.7.9 from the npm registry into
.venv/mathjax; after nbgrader writes a student's pages, this hook copies the files they need (about
1.4 MB) into feedback/<student>/attention/mathjax/ and points the pages' MathJax script at that
copy.
"""

import glob
import os
import re
import shutil
import stat

from grading.paths import FEEDBACK, MATHJAX

URL = "mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
CDN = re.compile(r'src="https://cdnjs\.cloudflare\.com/ajax/libs/mathjax/[^"?]+\?config=([^"]+)"')
# What TeX-AMS_CHTML-full needs at run time (the rest of the package is other fonts and outputs).
NEEDED = [
    "MathJax.js",
    "config/TeX-AMS_CHTML-full.js",
    "config/Safe.js",  # `config=…,Safe` in the page's address: without it Safe mode never starts
    "extensions/Safe.js",
    "jax/output/CommonHTML",
    "fonts/HTML-CSS/TeX/woff",
    "jax/element/mml/optable",
    "jax/input/TeX",
    "extensions/TeX",
]


def copy_mathjax(dest):
    """Copy the MathJax files the pages need into dest/mathjax.

    Return False, copying nothing, if MathJax was not set up.
    """
    if not os.path.isdir(MATHJAX):
        return False
    for rel in NEEDED:
        source, target = os.path.join(MATHJAX, rel), os.path.join(dest, "mathjax", rel)
        if not os.path.exists(source):
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.isdir(source):
            shutil.copytree(source, target, dirs_exist_ok=True)
        else:
            shutil.copy(source, target)
    return True


def point_pages_at_copy(folder):
    """Rewrite each page's MathJax script from the CDN to the copy beside it."""
    for page in glob.glob(os.path.join(folder, "*.html")):
        with open(page, encoding="utf-8") as f:
            text = f.read()
        local = CDN.sub(lambda m: f'src="mathjax/MathJax.js?config={m.group(1)}"', text)
        if local != text:
            with open(page, "w", encoding="utf-8") as f:
                f.write(local)


def keep_only_pages(folder):
    """Remove everything nbgrader copied beside the pages (model.py, outputs/, checkpoints/...).

    Feedback is the pages: the learner has their own files, and a copy of a large submission
    should not double on the instructor's disk.
    """
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path)
        elif not name.endswith(".html"):
            os.unlink(path)


def nbgrader_hook(assignment, student, notebooks):
    """GenerateFeedback.post_convert_hook: the pages only, MathJax beside them, for one student."""
    if notebooks:
        source = os.path.dirname(os.path.abspath(notebooks[0]))  # autograded/<student>/<part>
        student_id, part = os.path.basename(os.path.dirname(source)), os.path.basename(source)
        folder = os.path.join(FEEDBACK, student_id, part)
        if not os.path.isdir(folder):
            return
        keep_only_pages(folder)
        if copy_mathjax(folder):
            point_pages_at_copy(folder)
