"""What the tests ask of a process (standard library only: the course user's scripts use it)."""


def alive(pid):
    """Whether a process runs (a zombie has ended; only its parent has not read its status)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
