"""Reading a file someone else made (a learner, a roster export, a worker's grading): its bytes, and
only if it is a regular file. The file itself is never a link followed (O_NOFOLLOW: the folders on
its path are the caller's to trust; intake removes every link from a submission), never a FIFO or
a terminal that blocks or takes over (O_NONBLOCK, O_NOCTTY), and never more than a limit is read.
"""

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


def tree_bytes(folder, limit):
    """Bytes of the regular files under folder, counted without following a link or recursing
    (a tree thousands deep), and no further than limit: min(total, limit)."""
    total, queue = 0, [folder]
    while queue and total < limit:
        try:
            listing = list(os.scandir(queue.pop()))
        except OSError:
            continue
        for entry in listing:
            if entry.is_dir(follow_symlinks=False):
                queue.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                total += entry.stat(follow_symlinks=False).st_size
    return min(total, limit)


def move_aside(folder, rel, aside):
    """Move folder/rel (a file or a whole folder, never followed) to the same place under aside,
    under a free name if that one is taken; the path it now has."""
    target = os.path.join(aside, rel)
    while os.path.lexists(target):
        target += "+"
    os.makedirs(os.path.dirname(target), exist_ok=True)
    os.rename(os.path.join(folder, rel), target)
    return target
