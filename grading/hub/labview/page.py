"""The lab view's page: the room's state (store.room) as HTML, every word from the course or the
hub and escaped all the same, reloaded every REFRESH seconds."""

import html
import string
import time

from checkpoints import i18n
from grading.hub.labview import store
from grading.parts import PARTS, load

REFRESH = 2  # seconds between reloads: a run shows within a few seconds


class Blank(dict):
    """Format fields a claim leaves open ({layer}, {sizes}) as an ellipsis."""

    def __missing__(self, key):
        return "…"


def claim_words(part, claim):
    """A check's words in the instructor's edition, its open fields as "…"; the id alone for a
    check the course no longer has (a history kept across a course's update)."""
    try:
        template = i18n.lookup(load(PARTS[part].claims).section, claim)
    except KeyError:
        return claim
    return string.Formatter().vformat(template, (), Blank())


def mistake_of(part, name):
    """The catalogued mistake of a part by its name, or None."""
    return load(PARTS[part].catalogue).get(name) if PARTS[part].catalogue else None


def ago(seconds):
    """'3 min 05 s' or '42 s'."""
    seconds = int(seconds)
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def table(head, rows):
    """An HTML table of escaped cells."""
    cells = lambda tag, row: "".join(f"<{tag}>{html.escape(str(c))}</{tag}>" for c in row)  # noqa: E731
    body = "".join(f"<tr>{cells('td', r)}</tr>" for r in rows) or (
        f"<tr><td colspan='{len(head)}'>-</td></tr>")  # fmt: skip
    return f"<table><tr>{cells('th', head)}</tr>{body}</table>"


def parts_of(state):
    """{(check or mistake name): part} for the rows now failing, to find their words."""
    return {n: r["part"] for r in state["learners"] for n in r["failed"] + r["mistakes"]}


def cell(row):
    """(part, checkpoint) of a report."""
    return row["part"], row["checkpoint"]


def render(state, now=None):
    """The whole page for the room's state."""
    now = time.time() if now is None else now
    part = parts_of(state)
    where = [
        (r["learner"], r["part"], r["checkpoint"], store.teaching_notebook(*cell(r)),
         "✓ holds" if r["passed"] else "✗ fails", ago(now - r["at"]) + " ago")
        for r in state["learners"]
    ]  # fmt: skip
    checks = [(claim_words(part[c], c), c, n) for c, n in state["checks"]]
    mistakes = []
    for name, count in state["mistakes"]:
        m = mistake_of(part[name], name)
        taught = store.teaching_notebook(part[name], m.checkpoint) if m else ""
        mistakes.append((m.title if m else name, name, count, taught))
    stuck = [(r["learner"], r["checkpoint"], ago(s)) for s, r in state["stuck"]]
    timeline = [(time.strftime("%H:%M", time.localtime(minute * 60)), "█" * n, n)
                for minute, n in state["timeline"][-30:]]  # fmt: skip
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="{REFRESH}">
<title>Lab view</title>
<style>body{{font-family:sans-serif;margin:1.5em}}
table{{border-collapse:collapse;margin-bottom:1.5em}}
td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:left}} th{{background:#eee}}</style>
</head><body>
<h1>Lab view: {len(where)} learners</h1>
<p>Refreshed every {REFRESH} s. <a href="export.csv">The whole history as CSV</a>.
Points come from the judge alone: nothing here changes a grade.</p>
<h2>Where each learner is</h2>
{table(["learner", "part", "checkpoint", "notebook", "result", "last run"], where)}
<h2>Failing most right now</h2>
{table(["check", "id", "learners"], checks)}
<h2>Named mistakes right now</h2>
{table(["mistake", "name", "learners", "the notebook that teaches it"], mistakes)}
<h2>Stuck longest</h2>
{table(["learner", "checkpoint failing", "for"], stuck)}
<h2>Checkpoints passed per minute</h2>
{table(["minute", "", "passed"], timeline)}
</body></html>
"""
