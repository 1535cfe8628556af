"""The course user: the unprivileged account grading runs as, set up by root once per boot.

    python -m grading.course_user setup      # as root: what `make course-user` runs
    python -m grading.course_user check      # as anyone: what is set up, and what is missing

Set-up makes, when they are missing:
- the system account USER (no login, no home) and its group;
- its subordinate ids, SANDBOX_UIDS in /etc/subuid and /etc/subgid, so each of its sandboxes runs
  under a uid of its own (grading.sandbox, "mapped"); newuidmap (Debian's uidmap) maps them;
- this course's parent cgroup in each hierarchy, given to USER (grading.cgroups.delegate), so
  its sandboxes' processes are capped, frozen and ended without root. cgroups live in memory:
  set-up runs again after a reboot.

Everything is idempotent and changes nothing that is already right.
"""

import argparse
import os
import pwd
import shutil
import subprocess
import sys

from grading import cgroups, sandbox

USER = "attention-grader"


def account(name=USER):
    """The course user's pwd entry, or None when it does not exist."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


def granted(user, path):
    """Whether /etc/subuid or /etc/subgid (path) grants user all of SANDBOX_UIDS."""
    ids = sandbox.subordinate_ids(path, user)
    first, last = sandbox.SANDBOX_UIDS[0], sandbox.SANDBOX_UIDS[-1]
    return first in ids and last in ids


def missing(name=USER):
    """What set-up would still do, in words (empty when all is set)."""
    user, gaps = account(name), []
    if user is None:
        return [f"the account {name}"]
    for path, what in (("/etc/subuid", "subordinate uids"), ("/etc/subgid", "subordinate gids")):
        if not granted(user, path):
            gaps.append(f"{name}'s {what} {sandbox.SANDBOX_UIDS[0]}-{sandbox.SANDBOX_UIDS[-1]}")
    for tool in ("newuidmap", "newgidmap"):
        if shutil.which(tool) is None:
            gaps.append(f"{tool} (Debian package uidmap)")
    for root in cgroups.ROOTS:
        folder = os.path.join(root, cgroups.PARENT)
        if os.path.isdir(root) and (
            not os.path.isdir(folder) or os.stat(folder).st_uid != user.pw_uid
        ):
            gaps.append(f"the cgroup {folder}, given to {name}")
    return gaps


def run(argv):
    """Run one of the system's account tools; its error, if any, stops set-up."""
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def setup(name=USER):
    """As root: make the course user, its subordinate ids and its cgroups; the user's entry."""
    if os.geteuid() != 0:
        raise SystemExit("grading.course_user setup needs root (it creates an account)")
    if account(name) is None:
        print(f"Creating the course user {name} (a system account: no login, no home)", flush=True)
        run(["useradd", "--system", "--user-group", "--no-create-home", "--home-dir",
             "/nonexistent", "--shell", "/usr/sbin/nologin", name])  # fmt: skip
    user = account(name)
    span = f"{sandbox.SANDBOX_UIDS[0]}-{sandbox.SANDBOX_UIDS[-1]}"
    if not (granted(user, "/etc/subuid") and granted(user, "/etc/subgid")):
        print(f"Granting {name} the sandbox uids {span} (/etc/subuid, /etc/subgid)", flush=True)
        run(["usermod", "--add-subuids", span, "--add-subgids", span, name])
    if all(os.path.isdir(root) for root in cgroups.ROOTS):
        cgroups.delegate(user)
    return user


def main(argv=None):
    """The command line: setup or check."""
    parser = argparse.ArgumentParser(
        prog="python -m grading.course_user",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("command", choices=["setup", "check"])
    parser.add_argument("--user", default=USER, help=f"the account's name (default {USER})")
    args = parser.parse_args(argv)
    if args.command == "setup":
        setup(args.user)
    gaps = missing(args.user)
    for gap in gaps:
        print(f"missing: {gap}")
    if not gaps:
        print(f"The course user {args.user} is set up: grading can run without root.")
    return 1 if gaps else 0


if __name__ == "__main__":
    sys.exit(main())
