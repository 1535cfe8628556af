"""What the class's accounts may read of the course's checkout: make hub locks the rest.

On the hub every learner is a system account with a shell and their own code, and their servers
run the course's code from the checkout (paths.ROOT). Before the hub starts (`lock`, called by
control.start), everything of ROOT that no learner's process needs is made unreadable to every
account but root and the course user: the owner is kept, the group becomes the course user's, which
may read and enter (g+rX, never write) as grading must, and others lose every bit (o-rwx). Then a
learner's account tries to open the reference model, a master notebook, the hidden cases and the
git history, and the course user tries to read them too: any answer but "learner refused, course
user served" stops make hub, naming the path.

Why an allow-list (LEARNERS_READ) rather than a list of the instructor's places: solutions,
reference files, hidden inputs, seeds and fingerprints are in many places (the masters and their
text forms, the editions' translated and built notebooks, model.py, xslm/, outputs/, the judge,
the mistakes' code, the tests and benches, demo/, site/, the git history...), and each new one
would have to be named before it is safe. The learners' side needs a short list, named here: a
file nobody named is locked, and a learner's process that needs it fails at once in the hub's
tests instead of leaking quietly.

Each make hub locks again, so what a pull brings back with the usual modes is locked anew (git
keeps none of these bits). Some things are left as they are:
- a path others could not read already (no bit for others): the hub's state (.hub/, root's own),
  the class's folders given to the course user (mode 0700, learners' hand-ins inside: root does
  not walk them), and what lies below a folder already locked (no learner reaches it);
- links, which are never followed (what they name is locked or not by its own path);
- a file with other hard links (a clone's git objects shared with the repository it was cloned
  from): its other names may be outside the checkout; its folder, locked, keeps learners from it;
- anything but files and folders.
"""

import fnmatch
import json
import os
import shutil
import stat
import subprocess
import sys

from grading import course_user, hub, paths
from grading.parts import ASSIGNMENT

# What a learner's processes read of ROOT (relative paths; `*` stands for one name): their
# servers, the hub's pre-spawn hook that fills their workspaces, nbgrader's exchange plugins and
# the kernels. Everything else of ROOT that others could read is locked.
LEARNERS_READ = (
    ".venv",  # the course's Python packages and tools, which their servers and kernels run
    ".python",  # the interpreter .venv is made from
    "checkpoints",  # the learner package: every workspace holds a copy of it
    "release",  # the student editions (release-<edition> for another edition), which make hub
    "release-*",  # builds: what learners' workspaces and the exchange's releases are made of
    "notebooks/lab-config",  # make lab's Lab configuration
    "notebooks/editions/*/lab",  # an edition's Lab settings (its translations are locked)
    "grading/__init__.py",
    "grading/paths.py",
    "grading/parts.py",
    "grading/hub",  # the learners' Lab and nbgrader configuration, the exchange's plugins
    "grading/authoring/__init__.py",
    "grading/authoring/course.py",  # fill_workspace: a workspace from a student edition
    "grading/authoring/masters.py",  # install_package, which fill_workspace uses
    "grading/nbgrader/__init__.py",
    "grading/nbgrader/unpack.py",  # how the exchange's zips are unpacked
)
# What make hub's check tries to open as a learner (each must be refused) and as the course user
# (each must be served), those of them that exist (a checkout may have no .git/ folder)
CHECKED = (
    paths.REFERENCE_MODEL,
    os.path.join(paths.masters(ASSIGNMENT), "01-softmax.ipynb"),
    os.path.join(paths.ROOT, "grading", "judge", f"{ASSIGNMENT}_hidden.py"),  # hidden cases, seed
    os.path.join(paths.ROOT, ".git", "HEAD"),
)
FOLDER_ONLY = os.O_RDONLY | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_NONBLOCK | os.O_CLOEXEC
FILE_ONLY = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
# Run by each account the check becomes: of the paths on its input (one a line), those it could
# open, one a line
OPENS = """import sys
for path in sys.stdin.read().splitlines():
    try:
        open(path, "rb").close()
        print(path)
    except OSError:
        pass
"""
# What lock changed (each entry's path from ROOT, its device and inode, its group and mode before),
# for unlock to put back when the hub stops
LOCKED = os.path.join(hub.STATE, "locked.json")


def lock(learner):
    """As root, before the hub starts: lock ROOT against the class's accounts, then check it
    with the account learner (a pwd entry); SystemExit, naming the path, when the check fails."""
    grader = course_user.account()
    changed = read_record()
    root = os.open(paths.ROOT, FOLDER_ONLY)
    try:
        lock_below(root, (), grader.pw_gid, changed)
    finally:
        os.close(root)
    write_record(changed)
    why = leak(learner, grader)
    if why:
        raise SystemExit(why)
    print(f"Locked what is the instructor's alone in {paths.ROOT} against the class's accounts "
          f"(checked as {learner.pw_name}; docs/hub.md).")  # fmt: skip


def verdict(parts):
    """'read' when LEARNERS_READ names the path of parts (a tuple of names from ROOT), 'above'
    when it names something below it, None otherwise."""
    found = None
    for pattern in LEARNERS_READ:
        names = pattern.split("/")
        if len(parts) <= len(names) and all(map(fnmatch.fnmatchcase, parts, names)):
            if len(parts) == len(names):
                return "read"
            found = "above"
    return found


def lock_below(fd, parts, gid, changed=None):
    """Lock what the open folder fd (ROOT/parts) holds but what LEARNERS_READ names; a folder
    above something it names keeps its mode and is walked. Each change is added to changed."""
    for entry in os.scandir(fd):
        here = (*parts, entry.name)
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        seen = verdict(here)
        if stat.S_ISLNK(st.st_mode) or seen == "read":
            continue
        if seen == "above" and stat.S_ISDIR(st.st_mode):
            inner = open_below(fd, entry.name, FOLDER_ONLY, st)
            if inner is not None:
                try:
                    lock_below(inner, here, gid, changed)
                finally:
                    os.close(inner)
        else:
            lock_tree(fd, entry.name, st, gid, changed, here)


def lock_tree(fd, name, st, gid, changed=None, parts=()):
    """Lock the entry name of the open folder fd (stat st, ROOT/parts), and if it is a folder
    all it holds; a folder others could not enter already is left as it is, with what it holds.
    Each change is added to changed."""
    folder = stat.S_ISDIR(st.st_mode)
    if not st.st_mode & 0o007 or not (folder or stat.S_ISREG(st.st_mode)):
        return
    if not folder and st.st_nlink != 1:
        return  # its other names may be outside ROOT (see the module's text)
    opened = open_below(fd, name, FOLDER_ONLY if folder else FILE_ONLY, st)
    if opened is None:
        return
    try:
        if changed is not None:
            changed.append(["/".join(parts), st.st_dev, st.st_ino, st.st_gid,
                            stat.S_IMODE(st.st_mode)])  # fmt: skip
        os.fchown(opened, -1, gid)
        os.fchmod(opened, locked(st.st_mode))
        if folder:
            for entry in os.scandir(opened):
                try:
                    inner = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                lock_tree(opened, entry.name, inner, gid, changed, (*parts, entry.name))
    finally:
        os.close(opened)


def open_below(fd, name, flags, st):
    """name opened in the open folder fd, never through a link, if it is still the entry stat st
    saw; None when it changed or is gone."""
    try:
        opened = os.open(name, flags, dir_fd=fd)
    except OSError:
        return None
    now = os.fstat(opened)
    if (now.st_dev, now.st_ino, stat.S_IFMT(now.st_mode)) != (
        st.st_dev, st.st_ino, stat.S_IFMT(st.st_mode)
    ):  # fmt: skip
        os.close(opened)
        return None
    return opened


def locked(mode):
    """mode with the owner's bits kept, the group's read (and enter or run, where the owner may:
    g+rX, never write: the group is the course user's) and nothing for others."""
    return (mode & 0o700) | 0o040 | (0o010 if mode & 0o100 else 0)


def leak(learner, grader):
    """Why the lock does not hold, in one sentence: a CHECKED path learner opens, or one grader
    (the course user) cannot; None when it holds."""
    checked = [path for path in CHECKED if os.path.isfile(path) and without_link(path)]
    opened = opens(learner, ["--init-groups"], checked)
    if opened:
        return (f"make hub stops: the learner account {learner.pw_name} can read {opened[0]}, "
                "which only root and the course user may (grading/hub/privacy.py).")  # fmt: skip
    served = opens(grader, ["--clear-groups"], checked)
    refused = [path for path in checked if path not in served]
    if refused:
        return (f"make hub stops: the course user {grader.pw_name} cannot read {refused[0]}, "
                "which grading reads (grading/hub/privacy.py).")  # fmt: skip
    return None


def without_link(path):
    """Whether path (in ROOT) is reached from ROOT through no link: a worker's copy of the
    checkout links .git to the checkout's, which is locked or not by its own path."""
    inside = os.path.relpath(path, paths.ROOT)
    return os.path.realpath(path) == os.path.join(os.path.realpath(paths.ROOT), inside)


def opens(user, groups, checked):
    """Those of the paths checked the account user (a pwd entry) can open for reading, with
    groups (setpriv's --init-groups or --clear-groups)."""
    argv = [shutil.which("setpriv") or "setpriv", f"--reuid={user.pw_uid}",
            f"--regid={user.pw_gid}", *groups, "--inh-caps=-all", "--",
            sys.executable, "-I", "-c", OPENS]  # fmt: skip
    done = subprocess.run(argv, cwd="/", env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                          input="\n".join(checked), capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"make hub stops: the check as {user.pw_name} failed: "
                         f"{done.stderr.strip()[-500:]}")  # fmt: skip
    return done.stdout.splitlines()


def read_record():
    """What an earlier lock changed and no unlock put back yet (a hub that did not stop)."""
    try:
        with open(LOCKED, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return []


def write_record(changed):
    """Keep what lock changed, for unlock (in the hub's state folder, root's alone)."""
    with open(LOCKED + ".new", "w", encoding="utf-8") as f:
        json.dump(changed, f)
    os.replace(LOCKED + ".new", LOCKED)


def unlock():
    """As root, once nothing of the hub runs: put back the group and mode of every entry lock
    changed that is still the same entry (reached without a link); the record goes."""
    changed = read_record()
    for rel, dev, ino, gid, mode in changed:
        opened = open_path(rel)
        if opened is None:
            continue
        try:
            now = os.fstat(opened)
            if (now.st_dev, now.st_ino) == (dev, ino):
                os.fchown(opened, -1, gid)
                os.fchmod(opened, mode)
        finally:
            os.close(opened)
    if changed:
        print(f"Gave back the modes of {len(changed)} of {paths.ROOT}'s entries the hub locked.")
    if os.path.exists(LOCKED):
        os.remove(LOCKED)


def open_path(rel):
    """ROOT/rel opened for fstat, each part without following a link; None if it cannot be."""
    names = rel.split("/")
    try:
        fd = os.open(paths.ROOT, FOLDER_ONLY)
    except OSError:
        return None
    for k, name in enumerate(names):
        flags = FOLDER_ONLY if k < len(names) - 1 else FILE_ONLY
        try:
            inner = os.open(name, flags, dir_fd=fd)
        except OSError:
            inner = None
        os.close(fd)
        if inner is None:
            return None
        fd = inner
    return fd
