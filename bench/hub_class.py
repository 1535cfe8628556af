"""make bench-hub: a class of N learners on the course's hub, all at once (docs/hub.md, "Measured").

    python -m bench.hub_class [--size 20]       # as root, with no other hub running

A named class (bench01 ... benchNN and the instructor benchgrader, each with the random initial
password make hub gives) on `make hub`. Part one is released with the formgrader's button; every
learner logs in and starts their server at once, fetches part one, saves a solution (the master
notebooks' own, through the Lab's contents API) and hands it in from the Assignments tab's API,
all at once. Then the instructor collects and releases feedback with the formgrader's buttons,
the class is graded with `make autograde`'s lane (python -m grading autograde), and every learner
fetches their feedback, all at once.

Prints each phase's wall time, the time from the last hand-in to the last learner holding their
feedback, and the memory (RSS) of the hub, its proxy, the two services and the learners' servers
at their peak. Leaves the hub stopped and the class's submissions, grades and store removed.
"""

import argparse
import concurrent.futures
import os
import pwd
import shutil
import subprocess
import sys
import threading
import time

from grading.authoring import course
from grading.hub import control, exchange
from grading.hub.exchange import store
from grading.paths import AUTOGRADED, FEEDBACK, SUBMITTED, downloaded
from tests.fixtures.hub_session import (
    Formgrader,
    assignments_tab,
    free_port,
    learner_files,
    logged_in,
    make,
    save_in_lab,
    started_server,
    without_workspaces,
)

PART = "attention"
INSTRUCTOR = "benchgrader"


def names(size):
    """The bench's learners: bench01 ... benchNN."""
    return [f"bench{k:02d}" for k in range(1, size + 1)]


class PeakMemory(threading.Thread):
    """Samples the RSS of the hub's processes every second: {what: peak MiB}."""

    def __init__(self, learner_uids):
        super().__init__(daemon=True)
        self.learner_uids, self.peak, self.done = learner_uids, {}, threading.Event()

    def sample(self):
        """One sample: the RSS of each kind of process now, the peaks kept."""
        now = {"hub": 0, "proxy": 0, "services": 0, "learners' servers": 0}
        hub_pid = control.hub_pid()
        services = set(control.services(control.processes()))
        for pid, uid in control.processes():
            line = control.cmdline(pid)
            rss = int(control.proc_status(pid).get("VmRSS", "0 kB").split()[0]) / 1024
            if pid == hub_pid:
                now["hub"] += rss
            elif "configurable-http-proxy" in line:
                now["proxy"] += rss
            elif pid in services:
                now["services"] += rss
            elif uid in self.learner_uids:
                now["learners' servers"] += rss
        for what, mib in now.items():
            self.peak[what] = max(self.peak.get(what, 0), mib)

    def run(self):
        """Sample every second until done."""
        while not self.done.wait(1.0):
            self.sample()


def all_at_once(work, items):
    """Run work(item) for every item at once (a thread each); {item: result}."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(items)) as pool:
        return dict(zip(items, pool.map(work, items)))


def bench(size):
    """The whole cycle for size learners; prints the phases' times and the peak memory."""
    learners = names(size)
    env = dict(os.environ, ATTENTION_HUB_LEARNERS=" ".join(learners),
               ATTENTION_HUB_INSTRUCTORS=INSTRUCTOR)  # fmt: skip
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    clean(learners)
    course.release()
    files = learner_files("bench-hub")
    times = {}
    started = time.monotonic()
    done = make("hub", f"HUB_PORT={port}", env=env)
    if done.returncode:
        raise SystemExit(done.stdout + done.stderr)
    times["make hub (accounts, releases, services)"] = time.monotonic() - started
    memory = PeakMemory({pwd.getpwnam(n).pw_uid for n in learners})
    memory.start()
    try:
        grader = Formgrader(base, INSTRUCTOR, control.initial_password(INSTRUCTOR))
        grader.send("POST", f"assignment/{PART}/release")

        def arrive(name):
            session = logged_in(base, name, control.initial_password(name))
            started_server(session, base, name)
            assignments_tab(session, base, name, "fetch")
            save_in_lab(session, base, name, files)
            return session

        mark = time.monotonic()
        sessions = all_at_once(arrive, learners)
        times[f"{size} learners log in, start, fetch, save (at once)"] = time.monotonic() - mark
        mark = time.monotonic()
        all_at_once(lambda n: assignments_tab(sessions[n], base, n, "submit"), learners)
        last_hand_in = time.monotonic()
        times[f"{size} hand-ins (at once)"] = last_hand_in - mark
        mark = time.monotonic()
        collected = grader.send("POST", f"assignment/{PART}/collect").json()
        assert collected["success"], collected
        times["Collect (formgrader)"] = time.monotonic() - mark
        mark = time.monotonic()
        graded = subprocess.run([sys.executable, "-m", "grading", "autograde", "--part", PART],
                                capture_output=True, text=True)  # fmt: skip
        assert graded.returncode == 0, graded.stdout[-2000:] + graded.stderr[-2000:]
        times[f"autograde {size} (make autograde's lane)"] = time.monotonic() - mark
        mark = time.monotonic()
        for action in ("generate_feedback", "release_feedback"):
            said = grader.send("POST", f"assignment/{PART}/{action}").json()
            assert said["success"], said
        times["Generate + Release Feedback (formgrader)"] = time.monotonic() - mark
        mark = time.monotonic()
        all_at_once(lambda n: assignments_tab(sessions[n], base, n, "fetch_feedback"),
                    learners)  # fmt: skip
        times[f"{size} learners fetch feedback (at once)"] = time.monotonic() - mark
        times["from the last hand-in to every learner holding feedback"] = (
            time.monotonic() - last_hand_in
        )
    finally:
        memory.done.set()
        memory.join()
        make("hub-stop")
        clean(learners)
    print(f"\n{size} learners on the course's hub ({os.cpu_count()} cores):")
    for what, seconds in times.items():
        print(f"  {what:<58} {seconds:7.1f} s")
    print("peak memory (RSS):")
    for what, mib in memory.peak.items():
        print(f"  {what:<58} {mib:7.0f} MiB")


def clean(learners):
    """Remove what the bench leaves in the class, the store, the gradebook and the homes."""
    without_workspaces(learners)
    for student in learners:
        for top in (SUBMITTED, AUTOGRADED, FEEDBACK):
            shutil.rmtree(os.path.join(top, student), ignore_errors=True)
        for folder in (exchange.inbound(PART, student), exchange.feedback(PART, student)):
            shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(os.path.join(downloaded(PART, "extracted"), student), ignore_errors=True)
        if os.path.exists(os.path.join(downloaded(PART), f"{student}.zip")):
            os.remove(os.path.join(downloaded(PART), f"{student}.zip"))
    for student in learners:
        course.nbgrader("db", "student", "remove", student, "--force")
    store.unrelease(PART)


def main():
    """`python -m bench.hub_class [--size N]`, as root."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=20, help="learners (default 20)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("the bench starts make hub: run it as root")
    bench(args.size)


if __name__ == "__main__":
    main()
