"""The class report as one HTML page: no script, no file beside it, pictures as inline SVG.

Every text that comes from a class (student ids, problem sentences) is escaped: a student id is a
folder name a learner's zip may have chosen.
"""

import html

GREEN, RED, GREY, BLUE = "#2e7d32", "#c62828", "#757575", "#1565c0"
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 64em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; width: 100%; font-size: 0.92em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.5em; text-align: left; }
td { vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: #757575; }
"""


def esc(value):
    """value as HTML text."""
    return html.escape(str(value))


def number(value, digits=2):
    """A number for a table cell, or a dash for None."""
    return "–" if value is None else f"{value:.{digits}f}"


def histogram_svg(bins, width=560, height=160):
    """The score distribution: one bar per range of totals, its count above it."""
    if not bins:
        return "<p class='muted'>no graded submission yet</p>"
    most = max(count for *_, count in bins) or 1
    step = width / len(bins)
    bars = []
    for k, (low, high, count) in enumerate(bins):
        h = (height - 40) * count / most
        x, y = k * step + 2, height - 20 - h
        bars.append(
            f"<rect x='{x:.1f}' y='{y:.1f}' width='{step - 4:.1f}' height='{h:.1f}' fill='{BLUE}'>"
            f"<title>{low:g}–{high:g}: {count}</title></rect>"
            f"<text x='{x + step / 2 - 2:.1f}' y='{y - 4:.1f}' font-size='11' "
            f"text-anchor='middle'>{count}</text>"
            f"<text x='{x + step / 2 - 2:.1f}' y='{height - 5}' font-size='10' "
            f"text-anchor='middle' fill='{GREY}'>{low:g}</text>"
        )
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' role='img' "
        f"aria-label='score distribution'>{''.join(bars)}</svg>"
    )


def share_svg(share, width=120, height=12):
    """A small bar: the share of the class passing a cell, green on red."""
    if share is None:
        return ""
    w = width * share
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}'>"
        f"<rect width='{width}' height='{height}' fill='{RED}' opacity='0.35'/>"
        f"<rect width='{w:.1f}' height='{height}' fill='{GREEN}'/></svg>"
    )


def table(head, rows):
    """An HTML table; head is [(title, is_number)], rows lists of cell HTML."""
    ths = "".join(f"<th>{esc(title)}</th>" for title, _ in head)
    trs = "".join(
        "<tr>" + "".join(f"<td{' class=n' if n else ''}>{cell}</td>"
                         for (_, n), cell in zip(head, row)) + "</tr>"
        for row in rows
    )  # fmt: skip
    return f"<table><thead><tr>{ths}</tr></thead><tbody>{trs}</tbody></table>"


def checkpoints_html(rows):
    """Per graded cell: passing share (with its bar), difficulty, discrimination."""
    head = [("notebook", False), ("cell", False), ("kind", False), ("points", True),
            ("passing", True), ("", False), ("difficulty p", True),
            ("discrimination r", True)]  # fmt: skip
    return table(head, [
        [esc(r["notebook"]), esc(r["grade_id"]), esc(r["kind"]), number(r["max"], 0),
         "–" if r["passing"] is None else f"{r['passing']:.0%}", share_svg(r["passing"]),
         number(r["difficulty"]), number(r["discrimination"])]
        for r in rows
    ])  # fmt: skip


def mistakes_html(rows):
    """Per named mistake, most frequent first, with what it is and where it is taught."""
    if not rows:
        return "<p class='muted'>no catalogued mistake was named in this class</p>"
    head = [("learners", True), ("mistake", False), ("what it does", False), ("taught in", False)]
    return table(head, [
        [str(r["students"]), f"<b>{esc(r['title'])}</b><br><span class='muted'>{esc(r['name'])}"
         f"</span>", esc(r["explanation"]), esc(r["notebook"])]
        for r in rows
    ])  # fmt: skip


def render(report):
    """The whole page of a class report (grading.report.build's dict)."""
    part, top = report["part"], report["max"]
    editions = table(
        [("edition", False), ("students", True), ("graded", True), ("mean", True)],
        [[esc(code), str(e["students"]), str(e["graded"]), number(e["mean"], 1)]
         for code, e in report["editions"].items()],
    )  # fmt: skip
    problems = table(
        [("students", True), ("problem", False)],
        [[str(p["students"]), esc(p["problem"])] for p in report["problems"]],
    ) if report["problems"] else "<p class='muted'>none</p>"  # fmt: skip
    look = table(
        [("student", False), ("why", False)],
        [[esc(s["student"]), "<br>".join(esc(w) for w in s["why"])] for s in report["look"]],
    ) if report["look"] else "<p class='muted'>nobody</p>"  # fmt: skip
    late = table(
        [("student", False), ("hand-in", False), ("points taken", True)],
        [[esc(s["student"]), esc(s["late"]), number(s["penalty"], 2)] for s in report["late"]],
    ) if report["late"] else "<p class='muted'>no deadline, or all on time</p>"  # fmt: skip
    summary = (
        f"{report['graded']} of {report['students']} students graded; "
        f"mean {number(report['mean'], 1)}, median {number(report['median'], 1)} of {top:g} points"
    )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Class report: {esc(part)}</title><style>{STYLE}</style></head><body>"
        f"<h1>Class report: {esc(part)}</h1><p id='summary'>{esc(summary)}</p>"
        f"<h2>Scores</h2>{histogram_svg(report['histogram'])}"
        "<h2>What to re-teach: the mistakes the judge named</h2>"
        f"{mistakes_html(report['mistakes'])}"
        f"<h2>Checkpoints</h2><p class='muted'>difficulty p: the share of the cell's points the "
        f"class earned; discrimination r: how the cell's score follows the rest of the total "
        f"(below 0.2: the cell tells little apart)</p>{checkpoints_html(report['checkpoints'])}"
        f"<h2>Students who need a look</h2>{look}"
        f"<h2>Deadlines</h2>{late}"
        f"<h2>Problems met while grading</h2>{problems}"
        f"<h2>Editions</h2>{editions}"
        "</body></html>\n"
    )
