"""What the tests ask of a process (standard library only: the course user's scripts use it)."""

import os
import threading


def alive(pid):
    """Whether a process runs (a zombie has ended; only its parent has not read its status)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def snapshot():
    """{pid: (parent pid, (its name, then its uids: real, effective, saved, filesystem))} of every
    process now; the name is the kernel's (15 characters), kept by a zombie too."""
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:
            continue  # it ended meanwhile
        uids = tuple(int(u) for u in fields["Uid"].split())
        found[int(pid)] = (int(fields["PPid"]), (fields["Name"].strip(), *uids))
    return found


def command_line(pid):
    """A process's command line, its first 300 characters ("" once it has ended)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read(300).replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def below(table, top):
    """The pids of table that descend from top (top not included)."""
    children = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found, todo = set(), list(children.get(top, []))
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo.extend(children.get(pid, []))
    return found


class Owners:
    """Who every process below `top` runs as: sampled every 0.05 s from start to stop().

    `seen` is {pid: [(name, real, effective, saved, fs uid) of each sighting, in order]}; a process
    that hands itself over (root, then setpriv to another account, one pid) shows both, root
    first. A setuid helper of the system (newuidmap) runs with root's effective uid for the
    account that started it, whose real uid it keeps.
    """

    def __init__(self, top):
        self.top, self.seen, self.commands, self.parents = top, {}, {}, {}
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def watch(self):
        while True:
            table = snapshot()
            for pid in below(table, self.top):
                sightings = self.seen.setdefault(pid, [])
                if not sightings or sightings[-1] != table[pid][1]:
                    sightings.append(table[pid][1])
                    self.commands[pid] = command_line(pid)
                    self.parents[pid] = table[pid][0]
            if self.stopping.wait(0.05):
                return

    def stop(self):
        """Stop sampling; seen."""
        self.stopping.set()
        self.thread.join(timeout=5)
        return self.seen

    def still_root(self, relay="attn-relay"):
        """{pid: command line} of those root started and that were still root when last seen (a
        real uid of 0). A process that handed its work over and only relays its output (named
        `relay`) is not counted, provided none of its children stayed root."""
        rooted = {pid for pid, seen in self.seen.items() if seen[-1][1] == 0}
        relays = {pid for pid in rooted if self.seen[pid][-1][0] == relay}
        excused = {r for r in relays if not any(self.parents[p] == r for p in rooted)}
        return {pid: self.commands[pid] for pid in rooted - excused}

    def raised(self):
        """The names of the processes another account started that ran with root's effective
        uid: setuid programs."""
        return {seen[-1][0] for seen in self.seen.values() if seen[-1][1] != 0 and seen[-1][2] == 0}

    def accounts(self, relay="attn-relay"):
        """Every real uid a process below top ran as once it had handed over (relays aside)."""
        return {seen[-1][1] for seen in self.seen.values() if seen[-1][0] != relay}
