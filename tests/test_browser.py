"""The learner's path in a real browser:
Playwright drives Debian's chromium through JupyterLab (make lab).

Needs /usr/bin/chromium (Debian package `chromium`; .ci/run installs it). No browser is downloaded.
A screenshot of each stage is kept in test-artifacts/.
"""

import os
import time

import pytest
from playwright.sync_api import expect

from checkpoints import labview
from grading.authoring.mistakes import BUGGY
from grading.paths import ROOT
from tests.fixtures import notebook_page
from tests.fixtures.lab_server import running_lab
from tests.fixtures.listener import listening

pytestmark = [pytest.mark.nbgrader, pytest.mark.browser]
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = os.path.join(ROOT, "test-artifacts")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
    "--disable-background-networking",
    "--disable-component-update",
]
SOFTMAX = '''def softmax(xs):
    """softmax(x)_i = exp(x_i - max(x)) / sum_j exp(x_j - max(x))"""
    top = max(xs)
    exps = [math.exp(x - top) for x in xs]
    total = sum(exps)
    return [e / total for e in exps]
'''
NOTEBOOK = "part-1-attention/01-softmax.ipynb"
EXERCISE = "step01-softmax-solution"  # the exercise cell's grade id
CHECKS = "step01-softmax-checks"  # the grade id of notebook 1's checkpoint cell


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """`make lab` on a fresh workspace, serving on a free port; stopped afterwards."""
    assert os.path.exists(CHROMIUM), (
        "the browser test needs Debian's chromium: apt-get install chromium"
    )
    token = "browsertest"
    workspace = tmp_path_factory.mktemp("browser") / "workspace"
    # started as from a terminal on the course's hub, whose lab view listens here
    with listening() as (address, sent), running_lab(
        workspace, token, expose_app=True,
        env={labview.ADDRESS: address, labview.TOKEN: "a-hub-servers-token"},
    ) as (url, _):  # fmt: skip
        yield url, token, sent


@pytest.fixture(scope="module")
def page(lab):
    from playwright.sync_api import sync_playwright

    base, token, _ = lab
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        tab = browser.new_page(viewport={"width": 1280, "height": 1600})
        tab.goto(f"{base}/lab/tree/{NOTEBOOK}?token={token}")
        tab.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        yield tab
        browser.close()


def type_and_run_all(page, code):
    """Replace the exercise cell's source with code, then Run All."""
    notebook_page.type_into(page, NOTEBOOK, EXERCISE, code)
    notebook_page.run_all(page, NOTEBOOK)


def screenshot(page, name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, name)
    page.screenshot(path=path, full_page=True)
    return path


def test_a_correct_softmax_passes_its_checkpoint_with_a_picture(page):
    """Type a softmax, run all:
    the checkpoint shows 'all 8 checks hold' and the page has a rendered SVG.
    """
    start = time.monotonic()
    type_and_run_all(page, SOFTMAX)
    page.get_by_text("softmax: all 8 checks hold").first.wait_for(timeout=120_000)
    notebook_page.wait_for_run(page, NOTEBOOK)
    expect(page.locator(".jp-OutputArea svg rect").first).to_be_attached(
        timeout=notebook_page.TIMEOUT
    )
    assert (
        page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").count() == 0
    )  # no instructor tools
    assert page.get_by_text("Create Assignment").count() == 0
    path = screenshot(page, "browser-01-softmax-correct.png")
    print(f"first checkpoint result after {time.monotonic() - start:.1f} s; screenshot {path}")


def test_a_wrong_softmax_is_diagnosed_in_the_page(page):
    """Replace it with a softmax that divides by the max: the page names the mistake."""
    wrong = BUGGY["softmax.divide_by_max"][1].strip() + "\n"
    type_and_run_all(page, wrong)
    title = "looks like: the largest exp is 1: divided by it, or by nothing, instead of the sum"
    page.get_by_text(title).first.wait_for(timeout=120_000)
    notebook_page.wait_for_run(page, NOTEBOOK)
    page.get_by_text("The notebook goes on").first.wait_for(timeout=60_000)  # one short line
    assert page.get_by_text("CheckpointFailed").count() == 0  # no error: Run All goes on
    assert page.get_by_text("Traceback (most recent call last)").count() == 0
    screenshot(page, "browser-01-softmax-wrong.png")


def test_make_lab_shares_nothing_even_from_a_hub_terminal(lab, page):
    """make lab started with the hub's lab view address and a token in its environment: a
    checkpoint run sends nothing there (the listener hears no request) and says nothing of it."""
    _, _, sent = lab
    type_and_run_all(page, SOFTMAX)
    page.get_by_text("softmax: all 8 checks hold").first.wait_for(timeout=120_000)
    notebook_page.wait_for_run(page, NOTEBOOK)
    time.sleep(2)  # a report goes in the background, at once: it would have arrived by now
    assert sent == []
    assert page.get_by_text("shared with your instructor").count() == 0
