"""Reading a file someone else made (a learner, a roster export, a worker's grading): its bytes, and
only if it is a regular file. The file itself is never a link followed (O_NOFOLLOW: the folders on
its path are the caller's to trust; intake removes every link from a submission), never a FIFO or
a terminal that blocks or takes over (O_NONBLOCK, O_NOCTTY), and never more than a limit is read.
"""

import collections
import datetime
import hashlib
import itertools
import os
import stat


class NotPlainFile(OSError):
    """The path is a link, a FIFO, a device or a folder: nothing to read as a file."""


class TooLarge(OSError):
    """The file holds more than the reader's limit."""


def read_regular(path, limit):
    """The bytes of the regular file at path, at most limit of them.

    OSError when it cannot be opened (a link: ELOOP), NotPlainFile, or TooLarge.
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    fd = os.open(path, flags)
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        os.close(fd)
        raise
    if not regular:
        os.close(fd)
        raise NotPlainFile(f"not a regular file: {path}")
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(f"more than {limit} bytes: {path}")
    return data


def read_text_or(path, limit, default):
    """A learner file's text (undecodable bytes replaced), or default if read_regular refuses it."""
    try:
        return read_regular(path, limit).decode("utf-8", errors="replace")
    except OSError:
        return default


def walk(folder, max_depth=None, enter=None, skip_errors=False):
    """(relative path, lstat, folders above it) of everything under folder, breadth first, each
    folder's names sorted; without recursion (a tree thousands deep stops os.walk) and without
    following a link. A folder max_depth deep is listed, not entered. enter(path) runs before a
    folder is listed (intake makes it readable first); skip_errors passes over what cannot be
    read (a path too long, a folder locked) instead of raising OSError."""
    queue = collections.deque([("", 0)])
    while queue:
        rel, depth = queue.popleft()
        here = os.path.join(folder, rel)
        try:
            if enter:
                enter(here)
            names = sorted(os.listdir(here))
        except OSError:
            if skip_errors:
                continue
            raise
        for name in names:
            path = os.path.join(rel, name)
            try:
                info = os.lstat(os.path.join(folder, path))
            except OSError:
                if skip_errors:
                    continue
                raise
            yield path, info, depth
            if stat.S_ISDIR(info.st_mode) and (max_depth is None or depth < max_depth):
                queue.append((path, depth + 1))


def tree_bytes(folder, limit):
    """min(limit, bytes of the regular files under folder), links not followed, counted no
    further than limit; what cannot be read is not counted."""
    total = 0
    for _, info, _ in walk(folder, skip_errors=True):
        total += info.st_size if stat.S_ISREG(info.st_mode) else 0
        if total >= limit:
            return limit
    return total


def file_digest(path):
    """sha256 of a regular file's bytes, read in pieces (never whole), never through a link."""
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise NotPlainFile(f"not a regular file: {path}")
        while piece := f.read(1 << 20):
            digest.update(piece)
    return digest.digest()


def printable(name):
    """A file name as a sentence may quote it: bytes that are not UTF-8 written as \\xff."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


class Aside:
    """Where intake keeps what it does not grade: a folder beside the submission, made the first
    time it is needed under a name never used before (`<stem>-<UTC time>`), mode 0700, so no
    earlier folder, file or link of that name is ever written through."""

    def __init__(self, beside, stem):
        self.beside, self.stem, self.path = beside, stem, None

    @property
    def name(self):
        """The folder's name (known once something was moved)."""
        return os.path.basename(self.path) if self.path else self.stem

    def move(self, folder, rel):
        """Move folder/rel (a file or a whole folder, never followed) to the same place inside."""
        if self.path is None:
            self.path = fresh_folder(self.beside, self.stem)
        target = os.path.join(self.path, rel)
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)  # only ours, inside it
        os.rename(os.path.join(folder, rel), target)
        return target


def fresh_folder(beside, stem, mode=0o700):
    """A new folder beside/<stem>-<UTC time>[-n], made here (mkdir fails on anything there)."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    for n in itertools.count(1):
        path = os.path.join(beside, f"{stem}-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            os.mkdir(path, mode)
            return path
        except FileExistsError:
            continue
