"""Figures for the in-browser edition: build time and size, and how long a learner waits.

make bench-site       (or, from the repository root: .venv/bin/python -m bench.site [--runs N])

Builds the site into a scratch folder, serves it with python -m http.server and drives Debian's
chromium: for each run, a fresh browser profile opens notebook 1 (Python starts cold in the page),
types a correct softmax and runs every cell at once; the clock stops when the checkpoint says it
holds. Then the same page is reloaded and run again (the browser's HTTP cache is warm). Then a
fresh profile again, where the softmax is typed and run only after READ_SECONDS, while Python
starts in the page as a learner reads: the seconds from "Run All" to the result.
"""

import os
import re
import sys
import tempfile
import time

from grading.authoring import course
from grading.parts import ASSIGNMENT, PARTS
from lite import build
from tests.fixtures.lab_server import serving
from tests.test_browser import CHROMIUM, CHROMIUM_FLAGS, SOFTMAX

PASSED = "softmax: all 8 checks hold"
READ_SECONDS = 25  # how long a learner reads notebook 1's opening before running it


def folder_mib(path):
    """MiB of the files under path."""
    return course.folder_size(path) / 2**20


def first_result(page, url, read=False):
    """(seconds until notebook 1 shows, until its checkpoint passes, and from "Run All" to that)
    for a correct softmax typed at once; read=True: typed after READ_SECONDS in the page,
    as after a learner has read the notebook's opening for a while."""
    start = time.monotonic()
    page.goto(url)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    shown = time.monotonic() - start
    if read:  # the notebook starts its kernel as it opens: Python loads while the learner reads
        time.sleep(READ_SECONDS)  # (the toolbar's kernel status says idle before Python is up)
    exercise = re.compile("NotImplementedError|def softmax")
    page.locator(".jp-CodeCell").filter(has_text=exercise).first.locator(".cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(SOFTMAX)
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    clicked = time.monotonic()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.get_by_text(PASSED).first.wait_for(timeout=180_000)
    end = time.monotonic()
    return shown, end - start, end - clicked


def main(argv):
    """Build, serve, and time `runs` cold and warm first results."""
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 3
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as scratch:
        site = os.path.join(scratch, "site")
        start = time.monotonic()
        build.build(site)
        print(f"make site: {time.monotonic() - start:.1f} s, {folder_mib(site):.1f} MiB")
        for part in ("static/pyodide", "build", "files"):
            print(f"  {part}: {folder_mib(os.path.join(site, part)):.1f} MiB")
        with serving(site) as base:
            url = f"{base}/lab/index.html?path=en/{PARTS[ASSIGNMENT].folder}/01-softmax.ipynb"
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
                for run in range(1, runs + 1):
                    context = browser.new_context(viewport={"width": 1280, "height": 1600})
                    page = context.new_page()
                    shown, cold, cold_run = first_result(page, url)
                    _, warm, warm_run = first_result(page, url)
                    context.close()
                    context = browser.new_context(viewport={"width": 1280, "height": 1600})
                    _, _, read_run = first_result(context.new_page(), url, read=True)
                    context.close()
                    print(
                        f"run {run}: notebook shown {shown:.1f} s; first checkpoint result "
                        f"{cold:.1f} s cold ({cold_run:.1f} s from Run All at once), "
                        f"{warm:.1f} s after a reload ({warm_run:.1f} s from Run All); "
                        f"{read_run:.1f} s from Run All after {READ_SECONDS} s of reading (cold)",
                        flush=True,
                    )
                browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
