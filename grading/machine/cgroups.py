"""A cgroup per sandbox: its processes are capped, frozen, ended and counted, none escapes.

A learner process can double-fork, call setsid and ignore signals; its process group, session
and parent then say nothing about it. A cgroup does: every process a sandbox ever starts is in
its sandbox's group (cgroup v1 `freezer`, `pids` and `memory`: as root, or as the course user
once root has delegated this course's parent group to it, see grading.course_user). Ending the
group freezes it (frozen processes cannot fork), kills every member but the ones kept, thaws it,
and waits until the group's list of processes holds only those. That list being so is the
confirmation.

Where cgroups cannot be used (no v1 freezer, or neither root nor a delegated parent),
`Group.available()` is False and a sandbox is ended by its pid namespace alone (bubblewrap's
--die-with-parent); docs/scoring-and-sandbox.md says so.
"""

import os
import signal
import time
import uuid

ROOTS = ("/sys/fs/cgroup/freezer", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory")
MEMORY_BYTES = 3 << 30  # all a sandbox's processes and the tmpfs pages they write, together
PARENT = "attention-grading"  # every group of this course, under each root
SECONDS = 10  # a freeze or an end takes milliseconds; this long means the machine is broken


class GroupStuck(RuntimeError):
    """A group's processes could not be frozen or ended in SECONDS."""


class Group:
    """One sandbox's cgroup, in the freezer and pids hierarchies."""

    def __init__(self, processes):
        self.name = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.folders = [os.path.join(root, PARENT, self.name) for root in ROOTS]
        for folder in self.folders:
            os.makedirs(folder, mode=0o755)
        self.write("pids", "pids.max", str(processes))
        self.write("memory", "memory.limit_in_bytes", str(MEMORY_BYTES))

    @staticmethod
    def available():
        """Whether this process can make groups here: cgroup v1 freezer, pids and memory, and
        either root or the course's parent group delegated to this uid (it owns the folder)."""
        if os.geteuid() == 0:
            return all(os.access(root, os.W_OK) for root in ROOTS)
        return all(delegated(os.path.join(root, PARENT)) for root in ROOTS)

    def path(self, controller, name):
        """The file `name` of this group in one controller's hierarchy."""
        return os.path.join(next(f for f in self.folders if f"/{controller}/" in f), name)

    def write(self, controller, name, value):
        """Write one of the group's control files."""
        with open(self.path(controller, name), "w") as f:
            f.write(value)

    def read(self, controller, name):
        """Read one of the group's control files."""
        with open(self.path(controller, name)) as f:
            return f.read()

    def join_command(self):
        """A prefix that puts the command it runs into this group first (then execs it)."""
        procs = [os.path.join(folder, "cgroup.procs") for folder in self.folders]
        script = 'for f in "$1" "$2" "$3"; do echo $$ > "$f" || exit 125; done; shift 3; exec "$@"'
        return ["/bin/sh", "-c", script, "join", *procs]

    def members(self):
        """The host pids in the group now (a process leaves it when it exits)."""
        return {int(p) for p in self.read("freezer", "cgroup.procs").split()}

    def set_state(self, state):
        """FROZEN or THAWED, and wait until the kernel says it is so."""
        self.write("freezer", "freezer.state", state)
        deadline = time.monotonic() + SECONDS
        while self.read("freezer", "freezer.state").strip() != state:
            if time.monotonic() > deadline:
                raise GroupStuck(f"the sandbox's processes could not be {state.lower()}")
            self.write("freezer", "freezer.state", state)
            time.sleep(0.005)

    def end(self, keep=()):
        """Kill every member not in keep (host pids) and confirm that only keep is left.

        The freeze is what makes one pass enough (a frozen process cannot fork); a process can
        hold the freeze off (asleep in userfaultfd, say), so the killing goes on without it, in
        passes until nothing but keep is left.
        """
        try:
            self.set_state("FROZEN")
        except GroupStuck:
            pass  # FREEZING: the killing below still lands, and a killed process stops forking
        try:
            self.kill_all_but(keep)
        finally:
            self.set_state("THAWED")
        deadline = time.monotonic() + SECONDS
        while self.members() - set(keep):
            if time.monotonic() > deadline:
                raise GroupStuck("a sandbox's processes did not end")
            self.kill_all_but(keep)  # one forked before its parent's SIGKILL landed
            time.sleep(0.005)

    def kill_all_but(self, keep):
        """SIGKILL every member not in keep (a frozen one dies as it thaws, before any fork)."""
        for pid in self.members() - set(keep):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def remove(self):
        """End every member and remove the group."""
        self.end()
        for folder in self.folders:
            try:
                os.rmdir(folder)
            except OSError:
                pass  # a group still busy is left for the next run's sweep


def delegated(folder):
    """Whether folder is a cgroup this uid was given (its own: it may make groups in it)."""
    try:
        return os.lstat(folder).st_uid == os.getuid() and os.access(folder, os.W_OK)
    except OSError:
        return False


def delegate(user):
    """As root: make this course's parent group in each hierarchy and give it to user (a
    pwd entry), who can then make, limit, freeze and remove groups under it, and nothing else."""
    for root in ROOTS:
        folder = os.path.join(root, PARENT)
        os.makedirs(folder, mode=0o755, exist_ok=True)
        os.chown(folder, user.pw_uid, user.pw_gid, follow_symlinks=False)


def new_group(processes):
    """A Group when cgroups can be used here, else None (groups left by dead graders swept)."""
    if not Group.available():
        return None
    sweep()
    return Group(processes)


def sweep():
    """Remove the empty groups of grading processes that are gone (a grader killed mid-way)."""
    for root in ROOTS:
        folder = os.path.join(root, PARENT)
        for name in os.listdir(folder) if os.path.isdir(folder) else []:
            owner = name.split("-", 1)[0]
            if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
                try:
                    os.rmdir(os.path.join(folder, name))  # refused while it has a process
                except OSError:
                    pass
