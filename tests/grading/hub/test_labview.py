"""The live lab view on the course's hub (grading/hub/labview/, docs/hub.md): two learners run
notebook 1's checkpoint in their Labs, one passing and one with a catalogued mistake, and the
instructor's page shows both and the mistake within seconds; a learner cannot open the page, a
report cannot speak for another learner or carry markup, and the history keeps no code."""

import os
import pwd
import sqlite3
import time

import pytest
import requests

from grading import paths
from grading.authoring import course
from grading.authoring.mistakes import BUGGY
from grading.hub import control, labview
from grading.hub.exchange import store
from grading.parts import PARTS
from tests.fixtures import hub_pages, notebook_page
from tests.fixtures.hub_session import free_port, make, stop_hub, without_workspaces
from tests.test_browser import CHECKS, EXERCISE, NOTEBOOK, SOFTMAX

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="make hub makes accounts: it runs as root"),
]

MISTAKE = "softmax.no_max_shift"
WRONG = BUGGY[MISTAKE][1].strip() + "\n"
WORK = {"learner1": SOFTMAX, "learner2": WRONG}
SAID = {"learner1": "softmax: all 8 checks hold", "learner2": "looks like: "}
SHOWN_WITHIN = 5.0  # seconds from a learner's verdict to the instructor's page showing it
PAGE = "services/lab-view/"
MARKUP = "<script>alert(1)</script>"


def server_env(name):
    """The environment of name's server: what the learner's own kernel can read."""
    user = pwd.getpwnam(name)
    for pid, uid in control.processes():
        if uid == user.pw_uid and "jupyterhub-singleuser" in control.cmdline(pid):
            pairs = control.environ(pid).split(b"\0")
            return {k.decode(): v.decode() for k, _, v in (p.partition(b"=") for p in pairs) if k}
    raise AssertionError(f"no server of {name}'s runs")


def run_notebook_one(tab, code):
    """In the learner's Lab, opened on notebook 1: type the exercise, and once it is in the cell
    and the notebook has its kernel, Run All."""
    notebook_page.type_into(tab, NOTEBOOK, EXERCISE, code, timeout=hub_pages.WAIT_MS)
    notebook_page.run_all(tab, NOTEBOOK, timeout=hub_pages.WAIT_MS)


def shows(tab, url, words, within):
    """Reload url in tab until its text holds every one of words, or within seconds pass: the
    seconds it took, or None."""
    start = time.monotonic()
    while time.monotonic() - start < within:
        tab.goto(url)
        if all(w in tab.inner_text("body") for w in words):
            return time.monotonic() - start
        time.sleep(0.3)
    return None


@pytest.fixture(scope="module")
def lab():
    """A lab on the hub: part one released, two learners run notebook 1 in chromium, the
    instructor watches the lab view."""
    without_workspaces(list(WORK))
    course.release()
    done = course.nbgrader("release_assignment", "attention")
    assert done.returncode == 0, (done.stdout + done.stderr)[-2000:]
    kept = paths.LAB_VIEW + ".kept-by-test"
    if os.path.exists(paths.LAB_VIEW):
        os.rename(paths.LAB_VIEW, kept)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    started = make("hub", f"HUB_PORT={port}")
    browser, facts = None, {"base": base}
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        assert f"{base}/{PAGE}" in started.stdout
        browser = hub_pages.Browser(base)
        grader = browser.logged_in("instructor1")
        tabs = {name: browser.logged_in(name) for name in WORK}  # each lands on notebook 1
        for name, tab in tabs.items():
            run_notebook_one(tab, WORK[name])
        for name, tab in tabs.items():
            notebook_page.wait_for_output(tab, NOTEBOOK, CHECKS, SAID[name], hub_pages.WAIT_MS)
            # attached, not visible: the Lab skips drawing cells scrolled out of view
            # (windowingMode contentVisibility), and Run All scrolls to the last cell
            tab.get_by_text(SAID[name]).first.wait_for(state="attached")
            facts[f"notice-{name}"] = tab.get_by_text("shared with your instructor").count()
        facts["shown-after"] = shows(grader, f"{base}/{PAGE}", ["learner1", "learner2", MISTAKE],
                                     SHOWN_WITHIN)  # fmt: skip
        print(f"the lab view showed both runs {facts['shown-after']} s after their verdicts")
        facts["page"] = grader.inner_text("body")
        hub_pages.shot(grader, "lab-view")
        facts["learner-page"] = tabs["learner1"].goto(f"{base}/{PAGE}").status
        facts["export"] = grader.request.get(f"{base}/{PAGE}export.csv").text()
        facts["kept-before"] = len(read_history()[0])
        facts["said"] = send_as_learner2(server_env("learner2"))
        facts["history"] = read_history()  # records/: the course user's, no learner's to write
        yield facts
    finally:
        stop_hub(browser)
        if os.path.exists(paths.LAB_VIEW):
            os.remove(paths.LAB_VIEW)
        if os.path.exists(kept):
            os.rename(kept, paths.LAB_VIEW)
        for part in PARTS:
            store.unrelease(part)


def send_as_learner2(env):
    """With learner2's own server token (read from their server's environment): a report naming
    learner1, one with markup in a mistake's name, and one with no token; the status of each."""
    url, token = env["ATTENTION_LAB_VIEW_URL"], env["JUPYTERHUB_API_TOKEN"]
    mine = {"part": "attention", "checkpoint": "softmax", "passed": True, "failed": [],
            "mistakes": []}  # fmt: skip
    headers = {"Authorization": f"token {token}"}
    sent = {
        "forged": ({**mine, "learner": "learner1"}, headers),
        "markup": ({**mine, "mistakes": [MARKUP]}, headers),
        "nobody": (mine, {}),
        "long": (mine, {"Authorization": "token " + "0" * 300}),  # no hub token is that long
    }
    return {
        what: requests.post(url, json=body, headers=given, timeout=30).status_code
        for what, (body, given) in sent.items()
    }


def read_history():
    """Every row and the raw bytes of the lab view's SQLite file."""
    with open(paths.LAB_VIEW, "rb") as f:
        raw = f.read()
    with sqlite3.connect(paths.LAB_VIEW) as db:
        return db.execute("SELECT learner, checkpoint FROM lab_view_reports").fetchall(), raw


def test_the_instructor_sees_both_learners_and_the_rooms_mistake_within_seconds(lab):
    """Both learners' checkpoint, passing and failing, and the catalogued mistake with the
    notebook that teaches it, on the instructor's page within SHOWN_WITHIN seconds of the run."""
    assert lab["shown-after"] is not None, lab["page"][-2000:]
    for words in ("learner1", "learner2", "✓ holds", "✗ fails", MISTAKE, "01-softmax.ipynb"):
        assert words in lab["page"], words
    assert "learner2" in lab["export"] and MISTAKE in lab["export"]


def test_each_learner_is_told_their_results_are_shared(lab):
    """One line, in the learner's page, says their results go to the instructor."""
    assert lab["notice-learner1"] >= 1 and lab["notice-learner2"] >= 1


def test_a_learner_cannot_open_the_lab_view(lab):
    """learner1 reaches the service (their checkpoints report there) but not its page."""
    assert lab["learner-page"] == 403


def test_a_report_cannot_speak_for_another_or_carry_markup(lab):
    """A report naming another learner, or with markup where a name goes, is refused; without a
    token, or with one no hub gives, nothing is taken; none reached the history."""
    said = lab["said"]
    assert (said["forged"], said["markup"]) == (400, 400)
    assert said["nobody"] in (401, 403) and said["long"] == 400
    rows, raw = lab["history"]
    assert MARKUP.encode() not in raw and len(rows) == lab["kept-before"]


def test_the_history_holds_ids_and_names_only(lab):
    """The stored reports hold the learners' names (the hub's), the course's ids and names, and
    not a line of either learner's code."""
    rows, raw = lab["history"]
    assert {row[0] for row in rows} == set(WORK)
    for code in WORK.values():
        for line in code.splitlines()[1:]:
            assert line.strip().encode() not in raw, line
    assert labview.SERVICE == "lab-view"
