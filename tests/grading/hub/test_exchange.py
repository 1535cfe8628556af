"""nbgrader's file cycle on the course's hub (grading/hub/exchange/, docs/hub.md): two learners
write different work in their Labs and hand it in from the Assignments tab's API; the instructor
releases, collects, grades and releases feedback with nbgrader's own commands; each learner fetches
their own feedback, with the gradebook's points. The hand-in time is the exchange's, whatever the
learner sends; one learner reaches nothing of another's; an unsafe zip is refused at the door."""

import base64
import datetime
import io
import os
import pwd
import re
import shutil
import subprocess
import zipfile
from types import SimpleNamespace

import pytest
import requests

from grading import course_user, hub
from grading.authoring import course
from grading.authoring.masters import notebooks
from grading.hub import control, exchange
from grading.hub.exchange import store
from grading.nbgrader import deadlines
from grading.parts import PARTS
from grading.paths import AUTOGRADED, DEADLINES, EXCHANGE, FEEDBACK, SUBMITTED, downloaded
from tests.fixtures import hub_pages
from tests.fixtures.hub_session import (
    assignments_tab,
    free_port,
    judge_points,
    learner_files,
    logged_in,
    make,
    running_as,
    stop_hub,
    tree,
    uids_of,
    without_workspaces,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="make hub makes accounts: it runs as root"),
]

PART = "attention"
COURSE_ID = exchange.COURSE_ID
LEARNERS = ("learner1", "learner2")
MISTAKE = "attention.no_scaling"  # learner2's work: a catalogued mistake, so the points differ
FORGED = "2000-01-01 00:00:00"
SCORE = re.compile(r"<h4>[^<(]*\(Score: ([0-9.]+) / ([0-9.]+)\)</h4>")


def server_token(name):
    """The hub token in name's server's environment: what the learner's own code can read."""
    user = pwd.getpwnam(name)
    for pid, uid in control.processes():
        if uid == user.pw_uid and "jupyterhub-singleuser" in control.cmdline(pid):
            env = dict(v.split(b"=", 1) for v in control.environ(pid).split(b"\0") if b"=" in v)
            return env[b"JUPYTERHUB_API_TOKEN"].decode(), env[b"ATTENTION_EXCHANGE_URL"].decode()
    raise AssertionError(f"no server of {name}'s runs")


def to_service(token, url, method, path, body=None):
    """A call to the exchange service as a learner's own code would make it."""
    headers = {"Authorization": f"token {token}"} if token else {}
    return requests.request(method, url + "api/" + path, data=body, headers=headers, timeout=60)


def zip_of(files):
    """The bytes of a zip holding files ({name: bytes})."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buffer.getvalue()


def button(tab, base, cell, student=None):
    """Press one of the formgrader's buttons in the instructor's browser; the text of its
    answer, after asserting it says it succeeded."""
    title, said = hub_pages.formgrader_button(tab, base, PART, cell, student)
    assert title == "Success", said[-3000:]
    return said


def as_account(name, argv):
    """Run argv as the system account name; its completed process."""
    user = pwd.getpwnam(name)
    return subprocess.run(["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}",
                           "--init-groups", "--", *argv], capture_output=True, text=True,
                          timeout=60)  # fmt: skip


def gradebook_notebooks(student):
    """A student's notebooks of the part, as the gradebook holds them (read, then closed)."""
    from nbgrader.api import Gradebook

    from grading.paths import db_url

    with Gradebook(db_url()) as gb:
        found = gb.find_submission(PART, student).notebooks
        return [SimpleNamespace(name=nb.name, score=nb.score, penalty=nb.late_submission_penalty)
                for nb in found]  # fmt: skip


def gradebook_scores(student):
    """{notebook: score after the late penalty} of a student's part (what a feedback page shows)."""
    return {nb.name: nb.score - (nb.penalty or 0) for nb in gradebook_notebooks(student)}


def forget_class():
    """Remove what the cycle leaves of the hub's learners in the class, the store and the
    gradebook, and the part's due date the cycle's deadlines.csv put there."""
    from nbgrader.api import Gradebook

    from grading.paths import db_url

    with Gradebook(db_url()) as gb:
        gb.update_or_create_assignment(PART, duedate=None)
    for student in LEARNERS:
        for top in (SUBMITTED, AUTOGRADED, FEEDBACK):
            shutil.rmtree(os.path.join(top, student), ignore_errors=True)
        for folder in (exchange.inbound(PART, student), exchange.feedback(PART, student)):
            shutil.rmtree(folder, ignore_errors=True)
        course.nbgrader("db", "student", "remove", student, "--force")
        shutil.rmtree(os.path.join(downloaded(PART, "extracted"), student), ignore_errors=True)
        if os.path.exists(os.path.join(downloaded(PART), f"{student}.zip")):
            os.remove(os.path.join(downloaded(PART), f"{student}.zip"))
    for part in PARTS:
        store.unrelease(part)


@pytest.fixture(scope="module")
def cycle():
    """The whole cycle once, with learner1 given until tomorrow and learner2 due an hour ago."""
    without_workspaces(LEARNERS)
    forget_class()
    course.release()  # make release: release/attention, which the formgrader's Release releases
    now = datetime.datetime.now(datetime.UTC)
    kept = DEADLINES + ".kept-by-test"
    if os.path.exists(DEADLINES):
        os.rename(DEADLINES, kept)
    with open(DEADLINES, "w", encoding="utf-8") as f:
        f.write(
            "part,student,due,late_policy\n"
            f"{PART},,{(now - datetime.timedelta(hours=1)):%Y-%m-%dT%H:%M:%SZ},per-day 10\n"
            f"{PART},learner1,{(now + datetime.timedelta(days=1)):%Y-%m-%dT%H:%M:%SZ},\n"
        )
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    started = make("hub", f"HUB_PORT={port}")
    facts = {"base": base}
    browser = None
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        browser = hub_pages.Browser(base)
        # Each person in their own browser: the learners log in and open the Assignments tab
        # before anything is released (an empty workspace), the instructor the formgrader
        tabs = {name: browser.logged_in(name) for name in LEARNERS}
        for name, tab in tabs.items():
            hub_pages.assignments_tab(tab, base, name)
        sessions = {name: logged_in(base, name) for name in LEARNERS}  # what the tab's API says
        facts["sessions"] = sessions
        facts["before-release"] = assignments_tab(sessions["learner1"], base, "learner1")
        grader = browser.logged_in("instructor1")
        facts["released"] = button(grader, base, "release")
        facts["listed"] = assignments_tab(sessions["learner1"], base, "learner1")
        work = {"learner1": learner_files("learner1"),
                "learner2": learner_files("learner2", MISTAKE)}  # fmt: skip
        for name, tab in tabs.items():
            hub_pages.refresh(tab)
            hub_pages.press_in_tab(tab, "released", PART, "Fetch", then="fetched")
            facts[f"fetched-{name}"] = assignments_tab(sessions[name], base, name)
            files = {rel: base64.b64encode(data).decode() for rel, data in work[name].items()}
            hub_pages.save_files(tab, base, name, PARTS[PART].folder, files)
            hub_pages.press_in_tab(tab, "fetched", PART, "Submit", then="submitted")
            hub_pages.shot(tab, f"submitted-{name}")
        # learner2's own code hands in again, straight to the service, with an early time of its
        # own in timestamp.txt: the latest hand-in, the one collected
        token, url = server_token("learner2")
        facts["tokens"] = {"learner2": (token, url), "learner1": server_token("learner1")}
        with open(store.hand_ins_of(PART, "learner2")[-1][1], "rb") as f:
            handed = zipfile.ZipFile(io.BytesIO(f.read()))
        forged = {n: handed.read(n) for n in handed.namelist()} | {"timestamp.txt": FORGED}
        said = to_service(token, url, "POST", f"submit/{PART}", zip_of(forged))
        assert said.status_code == 200, said.text
        facts["forged-arrival"] = said.json()["timestamp"]
        facts["collected"] = button(grader, base, "collect")
        for name in LEARNERS:
            button(grader, base, "autograde", student=name)
            button(grader, base, "generate-feedback", student=name)
        hub_pages.formgrader_page(grader, base, f"manage_submissions/{PART}", "learner2")
        hub_pages.shot(grader, "formgrader-submissions")
        facts["judged"] = {n: judge_points(os.path.join(SUBMITTED, n, PART)) for n in LEARNERS}
        facts["feedback-released"] = button(grader, base, "release-feedback")
        for name, tab in tabs.items():
            hub_pages.fetch_feedback(tab, PART)
            hub_pages.shot(tab, f"feedback-{name}")
            facts[f"after-feedback-{name}"] = assignments_tab(sessions[name], base, name)
        # learner1 hands in once more; the instructor has a note in learner2's submission: the
        # next Collect takes learner1's new hand-in and leaves learner2's folder as it is
        note = os.path.join(SUBMITTED, "learner2", PART, "instructor-note.txt")
        with open(note, "w", encoding="utf-8") as f:
            f.write("seen\n")
        facts["again"] = assignments_tab(sessions["learner1"], base, "learner1", "submit")
        facts["recollected"] = button(grader, base, "collect")
        facts["note-kept"] = os.path.exists(note)
        stamp = os.path.join(SUBMITTED, "learner1", PART, "timestamp.txt")
        with open(stamp, encoding="utf-8") as f:
            facts["learner1-time"] = f.read().strip()
        facts["processes"] = [(pid, uid, control.cmdline(pid)) for pid, uid in control.processes()]
        facts["hub-pid"] = control.hub_pid()
        facts["hub-tree"] = tree(facts["hub-pid"])
        yield facts
    finally:
        stop_hub(browser)
        assert not control.services(control.processes(), [exchange.SERVICE])
        os.remove(DEADLINES)
        if os.path.exists(kept):
            os.rename(kept, DEADLINES)
        forget_class()


def workspace(name):
    """name's folder of the part in their workspace."""
    home = pwd.getpwnam(name).pw_dir
    return os.path.join(home, hub.WORKSPACE, PARTS[PART].folder)


def test_each_learner_reads_their_own_feedback_with_the_gradebooks_points(cycle):
    """The released part is listed; both hand-ins arrive; each learner's fetched feedback pages
    are theirs (owned by their account) and show the gradebook's points for them."""
    assert cycle["before-release"] == []
    assert "Released attention to the hub's learners in: en" in cycle["released"]
    [released] = cycle["listed"]
    assert (released["assignment_id"], released["status"]) == (PART, "released")
    assert "2 new since the last collect: learner1, learner2" in cycle["collected"]
    released = re.search(
        r"Released attention's feedback to \d+ learners: (.*)", cycle["feedback-released"]
    )
    assert released and set(LEARNERS) <= set(released.group(1).split(", "))
    for name in LEARNERS:
        [fetched] = [a for a in cycle[f"fetched-{name}"] if a["status"] != "submitted"]
        assert (fetched["assignment_id"], fetched["status"]) == (PART, "fetched")
        assert [n["path"] for n in fetched["notebooks"]] == [
            f"{PARTS[PART].folder}/{n}" for n in notebooks(PARTS[PART].masters)
        ]
        for notebook in fetched["notebooks"]:  # in the workspace, the learner's own files
            path = os.path.join(pwd.getpwnam(name).pw_dir, hub.WORKSPACE, notebook["path"])
            assert os.stat(path).st_uid == pwd.getpwnam(name).pw_uid
    totals = {}
    for name in LEARNERS:
        [submitted] = [a for a in cycle[f"after-feedback-{name}"] if a["status"] == "submitted"]
        latest = submitted["submissions"][-1]
        assert latest["has_exchange_feedback"] and latest["has_local_feedback"], latest
        scores = gradebook_scores(name)
        home = pwd.getpwnam(name).pw_dir  # the tab's paths are the Lab's, from the workspace
        pages = os.path.join(home, hub.WORKSPACE, latest["local_feedback_path"])
        assert sorted(os.listdir(pages)) == sorted(f"{nb}.html" for nb in scores)
        for notebook, score in scores.items():
            page = os.path.join(pages, f"{notebook}.html")
            assert os.stat(page).st_uid == pwd.getpwnam(name).pw_uid
            with open(page, encoding="utf-8") as f:
                shown = SCORE.search(f.read())
            assert shown and float(shown.group(1)) == pytest.approx(score), (name, notebook)
        totals[name] = sum(scores.values())
        raw = sum(nb.score for nb in gradebook_notebooks(name))
        assert raw == pytest.approx(cycle["judged"][name])  # the judge's points, as make autograde
    assert totals["learner1"] > totals["learner2"] > 0, totals


def test_the_hand_in_time_is_the_exchanges_not_the_learners(cycle):
    """learner2's forged timestamp.txt is not the hand-in time: the service's arrival is, and
    learner2 is late; learner1, with until tomorrow, is not."""
    late = deadlines.lateness(PART)
    arrival = datetime.datetime.strptime(cycle["forged-arrival"], exchange.SHOWN)
    assert abs(late["learner2"].handed_in - arrival) < datetime.timedelta(milliseconds=1)
    assert late["learner2"].seconds_late > 3000 and late["learner2"].penalty > 0
    assert late["learner1"].seconds_late == 0 and late["learner1"].penalty == 0
    with open(os.path.join(SUBMITTED, "learner2", PART, "timestamp.txt"), encoding="utf-8") as f:
        assert FORGED not in f.read()


def test_collect_again_takes_only_the_new_hand_in(cycle):
    """learner1's second hand-in replaces their collected one (its time is the exchange's, later
    than the first); learner2, who handed in nothing new, keeps the instructor's note."""
    assert "1 new since the last collect: learner1" in cycle["recollected"]
    assert cycle["note-kept"]
    [submitted] = [a for a in cycle["again"] if a["status"] == "submitted"]
    latest = datetime.datetime.strptime(submitted["submissions"][-1]["timestamp"], exchange.SHOWN)
    collected = datetime.datetime.fromisoformat(cycle["learner1-time"])
    assert abs(collected - latest) < datetime.timedelta(milliseconds=1)


def test_a_learner_reaches_nothing_of_anothers(cycle):
    """learner2's token fetches learner2's feedback only and cannot name anyone; no token, an
    instructor's hand-in and an unknown part are refused; learner2's Lab cannot open learner1's
    Assignments tab; learner2's account cannot enter the exchange's store."""
    token, url = cycle["tokens"]["learner2"]
    own = to_service(token, url, "GET", f"feedback/{PART}")
    assert own.status_code == 200
    with zipfile.ZipFile(io.BytesIO(own.content)) as z:
        for name in z.namelist():
            if name.endswith(".html"):
                with open(os.path.join(exchange.feedback(PART, "learner2"), name), "rb") as f:
                    assert z.read(name) == f.read()
    assert to_service(None, url, "GET", "assignments").status_code == 403
    assert to_service("not-a-token", url, "GET", "assignments").status_code == 403
    assert to_service(token, url, "GET", "release/nothing").status_code == 404
    sideways = f"release/{PART}?edition=../../../downloaded/{PART}/archive/learner1"
    assert to_service(token, url, "GET", sideways).status_code == 404  # not learner1's zip
    listing = to_service(token, url, "GET", "assignments").json()
    assert list(listing["submitted"]) == [PART] and list(listing["feedback"]) == [PART]
    mine = {s["timestamp"] for s in listing["submitted"][PART]}
    theirs = {m.strftime(exchange.SHOWN) for m, _ in store.hand_ins_of(PART, "learner1")}
    assert mine and not mine & theirs
    session = cycle["sessions"]["learner2"]
    other = session.get(f"{cycle['base']}/user/learner1/assignments",
                        params={"course_id": COURSE_ID}, timeout=30)  # fmt: skip
    assert other.status_code == 403
    peek = as_account("learner2", ["ls", exchange.inbound(PART, "learner1")])
    assert peek.returncode != 0 and "Permission denied" in peek.stderr
    assert os.stat(EXCHANGE).st_uid == course_user.account().pw_uid


def test_an_unsafe_zip_is_refused_at_the_door_and_nothing_is_kept(cycle):
    """A zip make collect would refuse (a link inside), sent by the learner's own code: refused
    with the reason, and no hand-in kept; a zip from a non-learner is refused too."""
    token, url = cycle["tokens"]["learner1"]
    before = store.hand_ins_of(PART, "learner1")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        link = zipfile.ZipInfo("model.py")
        link.external_attr = 0o120777 << 16  # a symbolic link, as zip -y stores one
        z.writestr(link, "/etc/passwd")
    said = to_service(token, url, "POST", f"submit/{PART}", buffer.getvalue())
    assert said.status_code == 422 and "link" in said.json()["error"], said.text
    assert to_service(token, url, "POST", f"submit/{PART}", b"not a zip").status_code == 422
    assert store.hand_ins_of(PART, "learner1") == before
    leftovers = [n for n in os.listdir(exchange.inbound(PART, "learner1")) if n.startswith(".")]
    assert not leftovers


def test_nothing_below_the_hub_runs_as_root(cycle):
    """While the cycle ran, the hub and its proxy were the only root processes of the hub's
    tree; the exchange service ran as the course user; after make hub-stop nothing of it is
    left (checked by the fixture's make hub-stop; here: the learners' processes)."""
    hub_pid, children = cycle["hub-pid"], cycle["hub-tree"]
    rooted = [(pid, line) for pid, uid, line in cycle["processes"]
              if pid in children and uid == 0 and pid != hub_pid]  # fmt: skip
    assert all("configurable-http-proxy" in line for _, line in rooted), rooted
    service = [uid for pid, uid, line in cycle["processes"]
               if pid in children and "hub.exchange.service" in line]  # fmt: skip
    assert service == [course_user.account().pw_uid]
    assert running_as(uids_of(*LEARNERS))  # still running here; the fixture stops them
