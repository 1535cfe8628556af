"""The course's own copy of its interpreter (machine/interpreter.py): self-contained, the same
Python, and root's alone when root made it."""

import os
import stat
import subprocess
import sys

import pytest

from grading.machine import interpreter, system


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """A fresh copy of the running interpreter's installation, as `make` makes .python/."""
    if interpreter.system_owned(sys.base_prefix):
        pytest.skip("the system's own interpreter is used as it is: there is nothing to copy")
    target = str(tmp_path_factory.mktemp("python") / interpreter.VERSION)
    interpreter.make_copy(target)
    return target


def test_the_copy_is_the_same_python_and_finds_its_own_library(copy):
    """Same version string; its library path is relative to itself, so it runs from any place
    it is bound to (a sandbox's /opt/python) without falling back to the system's libpython."""
    binary = os.path.join(copy, "bin", interpreter.NAME)
    rpath = subprocess.run([system.program("patchelf"), "--print-rpath", binary],
                           capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    assert rpath == "$ORIGIN/../lib"
    code = "import sys, ssl, sqlite3, ctypes, decimal; print(sys.version)"
    done = subprocess.run([binary, "-I", "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == sys.version


def test_the_copy_leaves_packages_and_other_programs_behind(copy):
    """site-packages is empty (packages belong in the venv) and bin/ holds only the interpreter."""
    assert os.listdir(os.path.join(copy, "lib", interpreter.NAME, "site-packages")) == []
    assert set(os.listdir(os.path.join(copy, "bin"))) <= {interpreter.NAME, "python3", "python"}
    assert not os.path.exists(os.path.join(copy, "lib", interpreter.NAME, "test"))


def test_the_venv_is_made_from_an_interpreter_every_account_can_run():
    """.venv's base is the system's or the course's copy, and no part of it (nor of the folders
    above it) can be changed by anyone but its owner."""
    base = sys.base_prefix
    copy = os.path.realpath(interpreter.copy_folder())  # a test worker's checkout links to it
    assert interpreter.system_owned(base) or os.path.realpath(base) == copy
    for here, dirs, files in os.walk(base):
        for name in dirs + files:
            mode = os.lstat(os.path.join(here, name)).st_mode
            assert stat.S_ISLNK(mode) or not mode & (stat.S_IWGRP | stat.S_IWOTH), name
    folder = base
    while folder != "/":
        mode = os.stat(folder).st_mode
        assert mode & stat.S_IXOTH and (not mode & stat.S_IWOTH or mode & stat.S_ISVTX), folder
        folder = os.path.dirname(folder)


def test_a_venv_remade_from_another_interpreter_keeps_its_packages(tmp_path):
    """An older .venv (made straight from pyenv's python, say) is pointed at the new interpreter
    and keeps what pip installed in it."""
    folder = str(tmp_path / "venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", folder], check=True)
    marker = tmp_path / "venv" / "lib" / interpreter.NAME / "site-packages" / "kept.py"
    marker.write_text("KEPT = 1\n")
    base_python = os.path.join(sys.base_prefix, "bin", interpreter.NAME)
    interpreter.venv(folder, base_python)
    python = os.path.join(folder, "bin", "python")
    assert os.path.realpath(python) == os.path.realpath(base_python)
    done = subprocess.run([python, "-c", "import kept, sys; print(kept.KEPT, sys.prefix)"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert done.stdout.split() == ["1", folder]
