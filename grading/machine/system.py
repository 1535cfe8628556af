"""The Debian packages the course's commands need, made sure of before they start.

    python3 -m grading system sandbox browser postgres    # what `make test` runs first

For each need it looks for the programs that need brings. As root, on a machine with apt-get, it
installs the packages that are missing; otherwise it stops (exit 1) before anything else runs and
prints the one command that installs them. SYSTEM_INSTALL=0 only tells, even as root.

Standard library only: `make` runs it with the system's python3, before .venv exists.
"""

import glob
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Program:
    """A program a command needs, and the Debian package that brings it."""

    name: str
    """The program, or a path pattern when it is not on PATH (PostgreSQL's initdb)."""
    package: str
    purpose: str
    variable: str = ""
    """An environment variable that, when set, names the program instead (BWRAP=/path/to/bwrap)."""

    def wanted(self):
        """What is looked for: the variable's value when it is set, else the name."""
        return (self.variable and os.environ.get(self.variable)) or self.name

    def found(self):
        """Whether the program exists here."""
        wanted = self.wanted()
        if "*" in wanted:
            return bool(glob.glob(wanted))
        return shutil.which(wanted) is not None

    def overridden(self):
        """Whether a variable names the program (then installing its package cannot help)."""
        return bool(self.variable and os.environ.get(self.variable))


NEEDS = {
    "sandbox": [
        Program("bwrap", "bubblewrap", "the sandbox learner code runs in", "BWRAP"),
        Program("prlimit", "util-linux", "the sandbox's resource limits"),
        Program("setpriv", "util-linux", "the sandbox's own unprivileged uid"),
        Program("unshare", "util-linux", "the sandbox's user namespace, grading without root"),
        Program("newuidmap", "uidmap", "the sandbox's own uid, grading without root"),
    ],
    "browser": [
        Program("/usr/bin/chromium", "chromium", "the browser tests, driven by Playwright")
    ],
    "postgres": [
        Program("/usr/lib/postgresql/*/bin/initdb", "postgresql", "the PostgreSQL gradebook")
    ],
    "npm": [Program("npm", "npm", "MathJax for the feedback pages (from the npm registry)")],
    "node": [
        Program("node", "nodejs", "make site: Pyodide compiles the kernel's bytecode in Node.js")
    ],
    "interpreter": [
        Program(
            "patchelf",
            "patchelf",
            "the course's own copy of its Python (grading/machine/interpreter.py)",
        )
    ],
}


def program(name):
    """The program to run for `name`: what its variable names when set (BWRAP=...), else name."""
    return next(p for group in NEEDS.values() for p in group if p.name == name).wanted()


def missing(needs):
    """The Programs of the named needs that this machine lacks, in order, each once."""
    unknown = [n for n in needs if n not in NEEDS]
    if unknown:
        raise SystemExit(
            f"grading.machine.system: unknown need {unknown[0]!r}; known: {', '.join(NEEDS)}"
        )
    programs = [p for n in needs for p in NEEDS[n]]
    return [p for k, p in enumerate(programs) if p not in programs[:k] and not p.found()]


def packages(programs):
    """The Debian packages that bring these programs, each once."""
    return list(dict.fromkeys(p.package for p in programs))


def can_install():
    """Whether this process may install packages itself: root, apt-get, and not told otherwise."""
    return (
        os.geteuid() == 0
        and shutil.which("apt-get") is not None
        and os.environ.get("SYSTEM_INSTALL", "1") != "0"
    )


def apt_get_install(names):
    """apt-get install, once more after `apt-get update` when the package lists are stale."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *names]
    quiet = {"env": env, "stdout": subprocess.DEVNULL}  # apt-get's errors still show (stderr)
    if subprocess.run(install, **quiet).returncode == 0:
        return True
    print(
        "apt-get could not install them; refreshing the package lists (apt-get update)", flush=True
    )
    subprocess.run(["apt-get", "update", "-qq"], **quiet)
    return subprocess.run(install, **quiet).returncode == 0


def describe(programs):
    """One line per missing program: what it is for and which package brings it."""
    lines = []
    for p in programs:
        name = f"{p.variable}={p.wanted()}" if p.overridden() else p.wanted()
        lines.append(f"  {name} ({p.purpose}): Debian package {p.package}")
    return "\n".join(lines)


def ensure(needs):
    """0 when every program of these needs is here (installing them as root), else 1, explained."""
    lacking = missing(needs)
    if not lacking:
        return 0
    installable = [p for p in lacking if not p.overridden()]
    if installable and can_install():
        names = packages(installable)
        print(f"Installing the Debian packages this command needs (apt-get): {' '.join(names)}",
              flush=True)  # fmt: skip
        apt_get_install(names)
        lacking = missing(needs)
        if not lacking:
            return 0
    print("This command needs programs this machine does not have:", file=sys.stderr)
    print(describe(lacking), file=sys.stderr)
    if any(p.overridden() for p in lacking):
        print(
            "A variable names a program that is not there: unset it, or point it at one.",
            file=sys.stderr,
        )
    names = packages(p for p in lacking if not p.overridden())
    if names:
        sudo = "" if os.geteuid() == 0 else "sudo "
        print(f"Install them with:\n  {sudo}apt-get install -y {' '.join(names)}", file=sys.stderr)
        print("then run the same make command again.", file=sys.stderr)
    return 1


def arguments(parser, command):
    """`python3 -m grading system NEED ...`."""
    parser.add_argument("needs", nargs="+", choices=sorted(NEEDS), metavar="need",
                        help=f"what the command needs: {', '.join(NEEDS)}")  # fmt: skip


def main(args):
    """Make sure of the programs these needs bring; the exit status."""
    return ensure(args.needs)
