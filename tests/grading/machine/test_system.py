"""README's commands make sure of the Debian packages they need before anything else runs."""

import os
import subprocess
import sys

from grading.machine import system
from grading.paths import ROOT


def clean_env(**extra):
    """This process's environment without the enclosing make's flags, plus extra."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    return {**env, **extra}


def test_make_test_stops_before_any_test_when_the_sandbox_binary_is_missing(tmp_path):
    """With BWRAP naming a missing program, `make test` stops in its first step and says what to
    install; pytest never starts (were it to start, it would only collect, and say so)."""
    missing = str(tmp_path / "nowhere" / "bwrap")
    done = subprocess.run(
        ["make", "test", f"BWRAP={missing}", "SYSTEM_INSTALL=0"],
        cwd=ROOT,
        env=clean_env(PYTEST_ADDOPTS="--collect-only -q"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode != 0
    assert f"BWRAP={missing}" in done.stderr and "Debian package bubblewrap" in done.stderr
    assert "system-test" in done.stderr  # make names the step that stopped it
    assert "collected" not in done.stdout and "pytest" not in done.stdout


def fake_apt_get(folder, log):
    """A stand-in apt-get on PATH that records its arguments and installs nothing; its first
    install fails, as with package lists that are out of date, until it has been run to update."""
    folder.mkdir()
    script = folder / "apt-get"
    script.write_text(
        f'#!/bin/sh\necho "$@" >> {log}\n'
        f'case "$1" in install) grep -q "^update" {log} || exit 100;; esac\nexit 0\n'
    )
    script.chmod(0o755)
    return str(folder)


def test_missing_packages_are_installed_as_root_or_named_with_the_command(tmp_path):
    """With none of the sandbox's programs on PATH: as root, apt-get is asked to install their
    packages, and the check looks again (they are still missing, so it stops); as anyone else,
    apt-get is left alone and the message gives the sudo command."""
    log = tmp_path / "apt-get.log"
    bin_dir = fake_apt_get(tmp_path / "bin", log)
    done = subprocess.run(
        [sys.executable, "-m", "grading", "system", "sandbox"],
        cwd=ROOT,
        env=clean_env(PATH=bin_dir, SYSTEM_INSTALL="1"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "bwrap (the sandbox learner code runs in): Debian package bubblewrap" in done.stderr
    if os.geteuid() == 0:
        calls = log.read_text().splitlines()
        assert calls[0].split()[:2] == ["install", "-y"]
        assert calls[0].split()[-3:] == ["bubblewrap", "util-linux", "uidmap"]
        assert "update" in calls[1] and calls[2] == calls[0]  # stale lists refreshed once
        assert "Installing the Debian packages this command needs" in done.stdout
        assert "apt-get install -y bubblewrap util-linux uidmap" in done.stderr
    else:
        assert not log.exists()
        assert "sudo apt-get install -y bubblewrap util-linux uidmap" in done.stderr


def test_each_program_is_named_once_and_unknown_needs_are_refused(monkeypatch):
    """Two needs that share a package list it once; a misspelt need is an error, not a pass."""
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("BWRAP", raising=False)
    lacking = system.missing(["sandbox", "sandbox", "npm"])
    names = ["bwrap", "prlimit", "setpriv", "unshare", "newuidmap", "npm"]
    assert [p.name for p in lacking] == names
    assert system.packages(lacking) == ["bubblewrap", "util-linux", "uidmap", "npm"]
    try:
        system.missing(["sandbx"])
    except SystemExit as err:
        assert "unknown need 'sandbx'" in str(err)
    else:
        raise AssertionError("an unknown need passed")


def test_the_sandbox_runs_the_bubblewrap_the_variable_names(monkeypatch, tmp_path):
    """BWRAP is the one name for the sandbox's program: the check and the sandbox agree."""
    from grading.machine import sandbox

    monkeypatch.setenv("BWRAP", str(tmp_path / "bwrap"))
    assert system.program("bwrap") == str(tmp_path / "bwrap")
    assert sandbox.bwrap()[0] == str(tmp_path / "bwrap")
    monkeypatch.delenv("BWRAP")
    assert sandbox.bwrap()[0] == "bwrap"
