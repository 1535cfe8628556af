"""The course's own copy of its Python interpreter, so that every account and every sandbox runs
the same Python: `make` builds .venv from it.

    python3 -m grading interpreter .venv     # make the copy if needed, then the venv from it

An interpreter installed under a home folder (pyenv's, under /root) cannot be run by the course
user (`make course-user`), and inside a sandbox, where no home folder exists, its library search
path (RUNPATH, absolute) finds nothing, so the loader falls back to the system's libpython: a
different patch release under the same standard library. The copy, .python/<version>/ in the
repository, holds the interpreter, its shared library, its headers and its standard library (not
its tests, not its site-packages), with the library path made relative ($ORIGIN/../lib) by
patchelf. An interpreter the system owns (/usr) is used as it is.

Standard library only: `make` runs it with the system's python3, before .venv exists.
"""

import os
import shutil
import subprocess
import sys

from grading.machine import system
from grading.paths import PYTHON_COPY

SYSTEM_TREES = ("/usr", "/bin", "/lib")  # where Debian installs Python: every account can run it
VERSION = ".".join(map(str, sys.version_info[:3]))
NAME = f"python{sys.version_info[0]}.{sys.version_info[1]}"  # python3.11


def system_owned(prefix):
    """Whether prefix lies in the trees the system owns (no copy needed)."""
    return any(prefix == tree or prefix.startswith(tree + "/") for tree in SYSTEM_TREES)


def copy_folder(version=VERSION):
    """.python/<version>: where this interpreter's copy lives."""
    return os.path.join(PYTHON_COPY, version)


def skip_in_copy(here, names):
    """What the copy leaves out: other programs in bin/, the stdlib's tests, installed packages."""
    relative = os.path.relpath(here, sys.base_prefix)
    if relative == "bin":
        return [n for n in names if n not in (NAME, "python3", "python")]
    if relative == os.path.join("lib", NAME):
        return [n for n in names if n in ("test", "idlelib", "turtledemo")]
    if relative == os.path.join("lib", NAME, "site-packages"):
        return names  # the folder stays, empty: packages belong in the venv
    return []


def make_copy(target):
    """Copy the running interpreter's installation to target, its library path made relative."""
    system.ensure(["interpreter"])
    partial = target + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    os.makedirs(partial)
    for part in ("bin", "lib", "include"):
        source = os.path.join(sys.base_prefix, part)
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(partial, part), symlinks=True, ignore=skip_in_copy)
    binary = os.path.join(partial, "bin", NAME)
    subprocess.run(
        [system.program("patchelf"), "--set-rpath", "$ORIGIN/../lib", binary], check=True
    )
    done = subprocess.run([binary, "-I", "-c", "import sys; print(sys.version)"],
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0 or done.stdout.strip() != sys.version:
        raise SystemExit(f"the copy of Python in {partial} does not run: {done.stderr[-500:]}")
    os.replace(partial, target)


def interpreter():
    """The interpreter to build the venv from: the system's own, or the course's copy of this one
    (made the first time)."""
    if system_owned(sys.base_prefix):
        return sys.executable
    target = copy_folder()
    if not os.path.isfile(os.path.join(target, "bin", NAME)):
        print(f"copying Python {VERSION} from {sys.base_prefix} to {target} ...", file=sys.stderr)
        make_copy(target)
    return os.path.join(target, "bin", NAME)


def venv(folder, python):
    """Make (or remake) the venv folder from python, keeping what is installed in it.

    venv keeps an existing bin/python link, so the links to an earlier interpreter go first.
    """
    for name in ("python", "python3", NAME):
        link = os.path.join(folder, "bin", name)
        if os.path.islink(link):
            os.unlink(link)
    subprocess.run([python, "-m", "venv", folder], check=True)


def arguments(parser, command):
    """`python3 -m grading interpreter VENV`."""
    parser.add_argument("venv", help="the folder of the virtual environment to make (.venv)")


def main(args):
    """The venv, built from interpreter()."""
    python = interpreter()
    venv(args.venv, python)
    print(f"{args.venv}: a venv of {python}", file=sys.stderr)
