"""What the lab view keeps: every checked report (in SQLite, or the course's PostgreSQL), and the
room's state read from it.

A report is checked word by word against what the course can say (a part, one of its checkpoints,
its checks' ids, its catalogue's names), so nothing a learner types reaches the history or the
page; its learner and time are the service's, never the sender's.
"""

import collections
import csv
import functools
import json
import os
import time

import nbformat
import sqlalchemy

from grading import paths
from grading.authoring import masters
from grading.parts import PARTS, load

MAX_BODY = 2048  # bytes of one report: a checkpoint's ids and names fit in a few hundred
MAX_LISTED = 20  # failing checks or mistakes one report may name
RATE = 30  # reports a learner may send ...
WINDOW = 60.0  # ... in this many seconds (a Run All of a whole notebook sends a handful)
COLUMNS = ("at", "learner", "part", "checkpoint", "passed", "failed", "mistakes")


class Refused(ValueError):
    """A report the lab view does not keep, and why."""


@functools.cache
def vocabulary(part):
    """(checkpoints, check ids, mistake names) a report of this part may hold."""
    found = PARTS[part]
    checkpoints = {
        what for kind, what in load(f"{found.judge}:CELLS").values() if kind == "visible"
    }
    mistakes = set(load(found.catalogue)) if found.catalogue else set()
    return checkpoints, set(load(found.claims)), mistakes


def checked(body):
    """The report in body (JSON bytes) as {part, checkpoint, passed, failed, mistakes}; Refused
    with the reason when it is not one the course could have sent."""
    if len(body) > MAX_BODY:
        raise Refused(f"a report is at most {MAX_BODY} bytes")
    try:
        sent = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Refused("a report is JSON") from None
    if not isinstance(sent, dict) or set(sent) != {"part", "checkpoint", "passed", "failed",
                                                   "mistakes"}:  # fmt: skip
        raise Refused("a report holds part, checkpoint, passed, failed and mistakes, only")
    part = sent["part"]
    if not isinstance(part, str) or part not in PARTS or not PARTS[part].claims:
        raise Refused("no such part")
    checkpoints, claims, mistakes = vocabulary(part)
    if not isinstance(sent["checkpoint"], str) or sent["checkpoint"] not in checkpoints:
        raise Refused("no such checkpoint")
    if not isinstance(sent["passed"], bool):
        raise Refused("passed is true or false")
    for field, known in (("failed", claims), ("mistakes", mistakes)):
        listed = sent[field]
        if (
            not isinstance(listed, list)
            or len(listed) > MAX_LISTED
            or not all(isinstance(x, str) and x in known for x in listed)
        ):
            raise Refused(f"{field}: only the course's own ids")
    if sent["passed"] and (sent["failed"] or sent["mistakes"]):
        raise Refused("a checkpoint that holds has no failing check and no mistake")
    return sent


class Limiter:
    """At most RATE reports per learner in any WINDOW seconds."""

    def __init__(self):
        self.sent = collections.defaultdict(collections.deque)

    def allow(self, learner, now):
        """True when this learner may send one more report now (and counts it)."""
        times = self.sent[learner]
        while times and times[0] <= now - WINDOW:
            times.popleft()
        if len(times) >= RATE:
            return False
        times.append(now)
        return True


REPORTS = sqlalchemy.Table(
    "lab_view_reports", sqlalchemy.MetaData(),
    sqlalchemy.Column("id", sqlalchemy.Integer, primary_key=True),
    sqlalchemy.Column("at", sqlalchemy.Float, nullable=False),
    *(sqlalchemy.Column(name, sqlalchemy.Text, nullable=False)
      for name in ("learner", "part", "checkpoint")),
    sqlalchemy.Column("passed", sqlalchemy.Boolean, nullable=False),
    *(sqlalchemy.Column(name, sqlalchemy.Text, nullable=False) for name in ("failed", "mistakes")),
)  # fmt: skip


def history_url():
    """Where the history is kept: the course's PostgreSQL gradebook database, in a table of its
    own, when DB_URL names one (docs/large-classes.md); else records/lab-view.sqlite."""
    url = os.environ.get("DB_URL", "")
    return url if url.startswith("postgresql") else f"sqlite:///{paths.LAB_VIEW}"


class History:
    """Every report kept, in the table lab_view_reports (made on first use, kept after the lab)."""

    def __init__(self, url):
        if url.startswith("sqlite:///"):
            os.makedirs(os.path.dirname(url[len("sqlite:///") :]), exist_ok=True)
        self.engine = sqlalchemy.create_engine(url)
        REPORTS.metadata.create_all(self.engine)

    def add(self, learner, report, at=None):
        """Keep one checked report of a learner's, at the service's own time; the row kept, as
        rows() gives it."""
        row = {"at": time.time() if at is None else at, "learner": learner, **report}
        with self.engine.begin() as db:
            db.execute(REPORTS.insert(), {**row, "failed": json.dumps(report["failed"]),
                                          "mistakes": json.dumps(report["mistakes"])})  # fmt: skip
        return row

    def rows(self):
        """Every report, oldest first, as dicts of COLUMNS."""
        with self.engine.connect() as db:
            kept = db.execute(sqlalchemy.select(REPORTS).order_by(REPORTS.c.at, REPORTS.c.id))
            return [
                {**{name: row._mapping[name] for name in COLUMNS},
                 "failed": json.loads(row.failed), "mistakes": json.loads(row.mistakes)}
                for row in kept
            ]  # fmt: skip

    def write_csv(self, out):
        """The history as CSV (the instructor's record), one report per row."""
        writer = csv.writer(out)
        writer.writerow(COLUMNS)
        for r in self.rows():
            stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r["at"]))
            writer.writerow([stamp, r["learner"], r["part"], r["checkpoint"], int(r["passed"]),
                             " ".join(r["failed"]), " ".join(r["mistakes"])])  # fmt: skip


@functools.cache
def teaching_notebook(part, checkpoint):
    """The notebook whose graded cell checks this checkpoint, or ""."""
    cells = load(f"{PARTS[part].judge}:CELLS")
    grade_ids = {g for g, cell in cells.items() if cell == ("visible", checkpoint)}
    for name in masters.notebooks(PARTS[part].masters):
        book = nbformat.read(os.path.join(PARTS[part].masters, name), as_version=4)
        if any(c.metadata.get("nbgrader", {}).get("grade_id") in grade_ids for c in book.cells):
            return name
    return ""


class Room:
    """The room's state, kept up to date report by report, so that a page never reads the whole
    history: each learner's latest report, since when each failing checkpoint fails, passes per
    minute."""

    def __init__(self, rows=()):
        self.latest, self.failing_since = {}, {}
        self.passes = collections.Counter()
        for row in rows:
            self.add(row)

    def add(self, r):
        """Take one report (a row of the history) into the room."""
        key = (r["learner"], r["part"], r["checkpoint"])
        if r["passed"]:
            self.failing_since.pop(key, None)
            self.passes[int(r["at"] // 60)] += 1
        else:
            self.failing_since.setdefault(key, r["at"])
        self.latest[r["learner"]] = r

    def at(self, now):
        """The room at time now: where each learner is; the checks failing and mistakes named
        most in the latest reports, each counted once per learner; who fails one checkpoint
        longest; passes per minute."""
        now_failing = [r for r in self.latest.values() if not r["passed"]]
        checks = collections.Counter(f for r in now_failing for f in set(r["failed"]))
        mistakes = collections.Counter(m for r in now_failing for m in set(r["mistakes"]))
        # a latest report that fails has its checkpoint in failing_since (add puts it there)
        stuck = sorted(
            ((now - self.failing_since[r["learner"], r["part"], r["checkpoint"]], r)
             for r in now_failing),
            key=lambda pair: -pair[0],
        )  # fmt: skip
        return {
            "learners": sorted(self.latest.values(), key=lambda r: r["learner"]),
            "checks": checks.most_common(),
            "mistakes": mistakes.most_common(),
            "stuck": stuck,
            "timeline": sorted(self.passes.items()),
        }


def room(rows, now):
    """The room's state from a history's rows at time now (Room.at)."""
    return Room(rows).at(now)
