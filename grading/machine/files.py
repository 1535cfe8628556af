"""Reading a file someone else made (a learner, a roster export, a worker's grading): its bytes, and
only if it is a regular file. Never through a link (O_NOFOLLOW), never blocked by a FIFO put in its
place (O_NONBLOCK), never more than a limit read into memory.
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
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
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
