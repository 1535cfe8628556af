"""The class's system accounts: each learner and instructor a uid, a group and a home of their own.

Made as grading.course_user makes the course user: idempotently, with the system's own tools, and
changing nothing that is already right. Unlike the course user they have homes (0700, their own):
the hub starts each one's JupyterLab there.
"""

import contextlib
import fcntl
import os
import pwd

from grading import course_user

HOME_MODE = 0o700  # no learner can list or read another's home


def make(name):
    """As root: the account name with its home (made when missing, its home's mode set); its
    pwd entry."""
    if course_user.account(name) is None:
        created(name)
    user = pwd.getpwnam(name)
    home = os.open(user.pw_dir, course_user.FOLDER_ONLY)
    try:
        st = os.fstat(home)
        if st.st_uid != user.pw_uid:
            raise SystemExit(f"{user.pw_dir} is not {name}'s: the hub will not start there")
        if st.st_mode & 0o777 != HOME_MODE:
            os.fchmod(home, HOME_MODE)
    finally:
        os.close(home)
    return user


@contextlib.contextmanager
def account_tools():
    """Held while an account tool (useradd, userdel) runs: the course user's set-up lock, as two
    at once would find /etc/passwd locked, and one of them would fail."""
    lock = os.open(course_user.SETUP_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                   0o600)  # fmt: skip
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
    finally:
        os.close(lock)  # and with it the lock


def created(name):
    """useradd name, under account_tools' lock."""
    with account_tools():
        if course_user.account(name) is None:
            print(f"Creating the hub account {name} (its own uid and home)", flush=True)
            course_user.run(["useradd", "--create-home", "--user-group", "--shell", "/bin/bash",
                             name])  # fmt: skip


def uids(names):
    """The uids of those of names that are accounts."""
    return {user.pw_uid for user in map(course_user.account, names) if user is not None}
