"""Figures for the in-browser edition: build time and size, and how long a learner waits.

make bench-site       (or, from the repository root: .venv/bin/python -m bench.site [--runs N])

Builds the site into a scratch folder, serves it with python -m http.server and drives Debian's
chromium. Each run is a learner with a fresh browser profile, who visits three times:

- cold: the first visit. The landing page opens; after LANDING_READ seconds the learner clicks
  part one's English link; notebook 1 shows; at once they type a correct softmax and run every
  cell; the clock stops when its checkpoint says it holds;
- return: the same visit again later, in a new tab, once the site's service worker has kept every
  file (the browser's HTTP cache and the worker's copy are warm);
- offline: the return visit once more, with the server stopped.

Each visit gives two figures, from the link to notebook 1 shown and from there to the first
verdict; the table gives the minimum, median and maximum of the runs, and their sum against
TARGETS (README's table).

--against SITE compares this checkout's site with one built before (`make site SITE=dir` in an
older checkout): learners alternate between the two, so both meet the same machine (whose speed
varies by a second from hour to hour), and a table prints for each.
"""

import argparse
import os
import re
import statistics
import sys
import tempfile
import time

from grading.authoring import course
from grading.parts import ASSIGNMENT, PARTS
from lite import build
from tests.fixtures.lab_server import serving
from tests.lite.test_site import wait_until_kept
from tests.test_browser import CHROMIUM, CHROMIUM_FLAGS, SOFTMAX

PASSED = "softmax: all 8 checks hold"
LANDING_READ = 3  # seconds on the landing page before the link: a glance, not a read
VISITS = ("cold", "return", "offline")
TARGETS = {"cold": 10.0, "return": 5.0, "offline": 5.0}  # seconds from the link to the verdict
EXERCISE = re.compile("NotImplementedError|def softmax")


def folder_mib(path):
    """MiB of the files under path."""
    return course.folder_size(path) / 2**20


def visit(page, base, notebook):
    """(seconds from the landing page's link to notebook 1 shown, from there to its checkpoint's
    verdict) of one visit: the link clicked after LANDING_READ s, a correct softmax typed at once
    and every cell run."""
    page.goto(base + "/index.html")
    time.sleep(LANDING_READ)
    start = time.monotonic()
    page.locator(f'a[href$="?path=en/{notebook}"]').click()
    editor = page.locator(".jp-CodeCell").filter(has_text=EXERCISE).first.locator(".cm-content")
    editor.wait_for(timeout=120_000)
    shown = time.monotonic()
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(SOFTMAX)
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.get_by_text(PASSED).first.wait_for(timeout=180_000)
    return shown - start, time.monotonic() - shown


def one_learner(browser, site, notebook):
    """{visit: (to notebook shown, to verdict)} for a fresh profile's cold, return and offline
    visits."""
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    figures = {}
    with serving(site) as base:
        page = context.new_page()
        figures["cold"] = visit(page, base, notebook)
        wait_until_kept(page, site)
        page.close()
        page = context.new_page()
        figures["return"] = visit(page, base, notebook)
        page.close()
    figures["offline"] = visit(context.new_page(), base, notebook)  # the server has stopped
    context.close()
    return figures


def spread(values):
    """'min / median / max' of values, in seconds."""
    return " / ".join(f"{v:4.1f}" for v in (min(values), statistics.median(values), max(values)))


def table(runs):
    """The lines of the figures' table: per visit, each figure's spread and the total's target."""
    lines = [f"{'':8} {'link -> notebook':>18} {'notebook -> verdict':>20} {'in all':>18}  target",
             f"{'':8} {'min / median / max':>18} {'':>20} {'':>18}"]  # fmt: skip
    for name in VISITS:
        shown = [r[name][0] for r in runs]
        verdict = [r[name][1] for r in runs]
        total = [a + b for a, b in zip(shown, verdict)]
        met = "met" if max(total) <= TARGETS[name] else "NOT met"
        lines.append(f"{name:8} {spread(shown):>18} {spread(verdict):>20} {spread(total):>18}"
                     f"  <= {TARGETS[name]:.0f} s: {met}")  # fmt: skip
    return lines


def older_site(folder, notebook):
    """folder, checked to be a site built by make site that has notebook 1 where this one does."""
    if not os.path.isfile(os.path.join(folder, "service-worker.js")):
        raise SystemExit(f"--against {folder}: no site built by make site there")
    if not os.path.isfile(os.path.join(folder, "files", "en", *notebook.split("/"))):
        raise SystemExit(f"--against {folder}: its English notebook 1 is not at en/{notebook}")
    return folder


def main(argv):
    """Build, serve, and time `runs` learners' cold, return and offline visits."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.site", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--runs", type=int, default=5, help="how many learners (default 5)")
    parser.add_argument("--against", metavar="SITE", help="a site built before, to compare with")
    args = parser.parse_args(argv)
    runs = args.runs
    notebook = f"{PARTS[ASSIGNMENT].folder}/01-softmax.ipynb"
    against = older_site(args.against, notebook) if args.against else None
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as scratch:
        site = os.path.join(scratch, "site")
        start = time.monotonic()
        build.build(site)
        print(f"make site: {time.monotonic() - start:.1f} s, {folder_mib(site):.1f} MiB")
        for part in ("static/pyodide", "build", "files"):
            print(f"  {part}: {folder_mib(os.path.join(site, part)):.1f} MiB")
        sites = {against: against} if against else {}
        sites["this checkout"] = site
        results = {name: [] for name in sites}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            for run in range(1, runs + 1):
                # in turn, so that both meet the same machine; which goes first alternates
                order = list(sites.items()) if run % 2 else list(sites.items())[::-1]
                for name, folder in order:
                    results[name].append(one_learner(browser, folder, notebook))
                    said = ", ".join(f"{visit} {a:.1f} + {b:.1f} s" for visit, (a, b) in
                                     results[name][-1].items())  # fmt: skip
                    whose = f" ({name})" if against else ""
                    print(f"run {run} of {runs}{whose}: {said}", flush=True)
            browser.close()
        for name, figures in results.items():
            if against:
                print(f"\n{name}:")
            print("\n".join(table(figures)))


if __name__ == "__main__":
    main(sys.argv[1:])
