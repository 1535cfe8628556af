"""The course's copy of MathJax, for the feedback pages and the formgrader: maths offline, and
no link a learner writes in a formula.

nbconvert's and nbgrader's templates load MathJax 2.7 from a CDN (`config=TeX-AMS_CHTML-full,Safe`),
so offline neither page typesets its maths. make (every target that writes feedback, and make test)
unpacks MathJax 2.7.9 from the npm registry into .venv/mathjax, and from it:

- each student's feedback pages get the files their configuration loads, in
  feedback/<student>/<part>/mathjax/ (grading/nbgrader/feedback.py copies them);
- .venv's Jupyter servers (the formgrader's) serve the same files at <base>static/course-mathjax/,
  from .venv/static/, which .venv/etc/jupyter/jupyter_server_config.json names (`serve()`);
- both pages load them through the course's template macro (grading/nbgrader/templates/), with
  Safe mode on and no link, style, class, id, size or extension from any formula (a learner's
  `\\href{…}{…}` shows its text only, and `\\style{cursor:url(/logout)}` fetches nothing); the
  page also refuses to follow a javascript: link, whatever made one. grader_config.py always
  sets those templates: before the copy is made, the maths shows as TeX, never looser.
"""

import importlib.util
import json
import os
import shutil

from grading.paths import MATHJAX, ROOT

# Everything TeX-AMS_CHTML-full and Safe load at run time (the rest of the package is other
# fonts, outputs and inputs); a browser on a page lists what it asks for.
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
SERVED_NAME = "course-mathjax"  # the formgrader's copy: <base>static/course-mathjax/
STATIC = os.path.join(ROOT, ".venv", "static")  # what Jupyter serves beside its own static files
# .venv's own Jupyter configuration (its `.d` folders only enable extensions)
JUPYTER_CONFIG = os.path.join(ROOT, ".venv", "etc", "jupyter", "jupyter_server_config.json")
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")


def copy_mathjax(dest, name="mathjax"):
    """Copy the MathJax files the pages need into dest/name.

    Return False, copying nothing, if MathJax was not set up.
    """
    if not os.path.isdir(MATHJAX):
        return False
    for rel in NEEDED:
        source, target = os.path.join(MATHJAX, rel), os.path.join(dest, name, rel)
        if not os.path.exists(source):
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.isdir(source):
            shutil.copytree(source, target, dirs_exist_ok=True)
        else:
            shutil.copy(source, target)
    return True


def serve():
    """Give the Jupyter servers of .venv the formgrader's copy: the files in .venv/static/, and
    the configuration that serves that folder. Return False if MathJax was not set up."""
    shutil.rmtree(os.path.join(STATIC, SERVED_NAME), ignore_errors=True)
    if not copy_mathjax(STATIC, SERVED_NAME):
        return False
    # .venv's real path: a copy of the checkout reaches the same .venv through a link
    serve_static_folder(os.path.realpath(STATIC))
    return True


def serve_static_folder(folder):
    """Name folder as Jupyter's one extra static folder in .venv's configuration file, keeping
    whatever else the file says."""
    config = {}
    if os.path.exists(JUPYTER_CONFIG):
        with open(JUPYTER_CONFIG, encoding="utf-8") as f:
            config = json.load(f)
    config.setdefault("ServerApp", {})["extra_static_paths"] = [folder]
    os.makedirs(os.path.dirname(JUPYTER_CONFIG), exist_ok=True)
    with open(JUPYTER_CONFIG, "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
        f.write("\n")


def template_basedirs():
    """nbconvert's template folders for both pages: the course's (its MathJax macro) before
    nbgrader's own (found without importing the formgrader, which would import its server)."""
    nbgrader = importlib.util.find_spec("nbgrader").submodule_search_locations[0]
    return [TEMPLATES, os.path.join(nbgrader, "server_extensions", "formgrader", "templates")]
