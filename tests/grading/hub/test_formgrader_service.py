"""The hub's formgrader service (grading/hub/formgrader.py, docs/hub.md): the instructors open it,
a learner gets 403, it runs as the course user, and its Autograde and Generate Feedback buttons,
pressed through its own API with an instructor's hub cookie, record the judge's points; nothing of
it outlives make hub-stop."""

import dbm
import os
import shutil

import pytest
from nbgrader.api import Gradebook

from grading import classroom, course_user, hub
from grading.authoring import course
from grading.authoring.mistakes import BUGGY
from grading.hub import control, formgrader
from grading.paths import AUTOGRADED, COURSE, FEEDBACK, SQLITE_GRADEBOOK, SUBMITTED
from tests.fixtures import hub_session
from tests.fixtures.helpers import master_points
from tests.fixtures.hub_session import (
    Formgrader,
    free_port,
    judge_points,
    logged_in,
    login_attempt,
    make,
    tree,
    uids,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="make hub makes accounts: it runs as root"),
]

STUDENT = "hub-formgrader"
MISTAKE = "attention.no_scaling"  # costs step 2's points: the judge's score is not the maximum
PART_TWO = ("hub-formgrader-xslm", "engine.overwrite_gradients")  # costs notebook 1's cells only
SECOND = "instructor2"  # ATTENTION_HUB_INSTRUCTORS adds them; they share the one formgrader
REMARK = "Seen on the hub"  # an instructor's comment, through manual grading


@pytest.fixture
def class_with_a_submission():
    """The student edition released and one learner's submission with a mistake in submitted/,
    written before make hub, which gives the class to the course user; no earlier grades of
    that learner. Refused while another hub's accounts have processes (make hub-stop would end
    them)."""
    hub_session.quiet_accounts(*hub.everyone(), "instructor1", SECOND)
    assert control.hub_pid() is None, "this checkout's hub runs: make hub-stop first"
    course.release()  # also registers the part in the gradebook
    course.release(assignment="xslm")
    for student in (STUDENT, PART_TWO[0]):
        course.nbgrader("db", "student", "remove", student, "--force")  # graded afresh
    with dbm.open(control.PASSWORDS, "c") as kept:  # SECOND is a new account, as in a new class
        if SECOND.encode() in kept:
            del kept[SECOND.encode()]
    function, code = BUGGY[MISTAKE]
    classroom.write_xslm_submission(*PART_TWO)
    yield classroom.write_submission(STUDENT, replace={function: code})
    for student in (STUDENT, PART_TWO[0]):
        for top in (SUBMITTED, AUTOGRADED, FEEDBACK):
            shutil.rmtree(os.path.join(top, student), ignore_errors=True)
        course.nbgrader("db", "student", "remove", student, "--force")


def test_the_instructors_grade_on_the_hub_as_the_course_user(class_with_a_submission):
    """make hub with a second instructor: both open the formgrader and see the two parts,
    learner1 gets 403, the service runs as the course user and nothing of the hub but the hub and
    its proxy runs as root; Autograde records the judge's points (a part-two engine mistake costs
    only the engine's cells), manual grading saves a comment, Generate Feedback writes the pages
    with it; make hub-stop leaves none of it."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    # a named class: no demo account, every password a random one given by make hub
    env = dict(os.environ, ATTENTION_HUB_LEARNERS="learner1",
               ATTENTION_HUB_INSTRUCTORS=f"instructor1 {SECOND}")  # fmt: skip
    started = make("hub", f"HUB_PORT={port}", env=env)
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        assert control.INITIAL in started.stdout and "learner1-attention" not in started.stdout
        for name in ("instructor1", SECOND):  # neither the demo's password nor a first try
            for guess in (hub.demo_password(name), "chosen-by-whoever-comes-first"):
                tried = login_attempt(base, name, guess)
                assert "/hub/login" in tried.said.headers.get("location", "/hub/login"), name
        assert login_attempt(base, "learner2", "learner2-attention").said.status_code != 302
        assert f"{base}{formgrader.PREFIX}formgrader/" in started.stdout
        hub_pid, grader = control.hub_pid(), course_user.account()
        served = control.services(control.processes(), [formgrader.NAME])
        assert served and all(set(uids(pid)) == {grader.pw_uid} for pid in served), served

        given = {name: control.initial_password(name) for name in ("learner1", "instructor1",
                                                                   SECOND)}  # fmt: skip
        one = Formgrader(base, "instructor1", given["instructor1"])
        two = Formgrader(base, SECOND, given[SECOND])
        for instructor in (one, two):
            assert instructor.first_page.status_code == 200, instructor.first_page.text[-2000:]
            assert "Manage Assignments" in instructor.first_page.text
        assert sorted(a["name"] for a in one.get("api/assignments").json()) == ["attention", "xslm"]
        home = one.session.get(f"{base}/hub/home", timeout=30)
        assert formgrader.PREFIX in home.text  # listed on the instructor's home page
        for method, path in (
            ("POST", "api/kernels"),
            ("GET", "api/sessions"),
            ("POST", "api/terminals"),
            ("PUT", "api/contents/planted.py"),
        ):
            said = one.session.request(method, f"{base}{formgrader.PREFIX}{path}", timeout=30,
                                       headers={"X-XSRFToken": one.xsrf()}, json={})  # fmt: skip
            assert said.status_code in (403, 404), (path, said.status_code)  # no code, no write
        assert not os.path.exists(os.path.join(COURSE, "planted.py"))
        learner = logged_in(base, "learner1", given["learner1"])
        assert learner.get(f"{one.root}/", timeout=30).status_code == 403
        assert learner.get(f"{one.root}/api/assignments", timeout=30).status_code == 403

        graded = one.send("POST", f"submission/attention/{STUDENT}/autograde").json()
        assert graded["success"], graded.get("error", "")[-3000:]
        shown = two.get(f"api/submission/attention/{STUDENT}").json()  # the other instructor's
        judged = judge_points(class_with_a_submission)
        assert judged < sum(master_points().values())  # the mistake costs points
        assert shown["autograded"] and shown["score"] == pytest.approx(judged)
        with Gradebook(f"sqlite:///{SQLITE_GRADEBOOK}") as gb:
            assert gb.find_submission("attention", STUDENT).score == pytest.approx(judged)
        graded = one.send("POST", f"submission/xslm/{PART_TWO[0]}/autograde").json()
        assert graded["success"], graded.get("error", "")[-3000:]
        with Gradebook(f"sqlite:///{SQLITE_GRADEBOOK}") as gb:
            notebooks = gb.find_submission("xslm", PART_TWO[0]).notebooks
            scores = {g.name: g.score for nb in notebooks for g in nb.grades}
        lost = {g for g, most in master_points("xslm").items() if scores[g] < most}
        assert lost == {"xslm01-value-checks", "xslm01-value-hidden"}, lost  # the layers kept
        rooted = {pid: control.cmdline(pid) for pid in tree(hub_pid) if 0 in uids(pid)}
        proxies = [pid for pid, line in rooted.items() if "configurable-http-proxy" in line]
        assert len(proxies) == 1 and set(rooted) == {hub_pid, *proxies}, rooted
        service_tree = {pid for top in served for pid in tree(top)}
        assert service_tree == set(served)  # the judge's sandboxes ended with the Autograde

        notebook = two.get("api/submitted_notebooks/attention/01-softmax").json()
        page_id = next(n["id"] for n in notebook if n["student"] == STUDENT)
        page = two.get(f"submissions/{page_id}/")  # manual grading's page
        assert page.status_code == 200 and "course-mathjax/MathJax.js" in page.text
        comment = two.get(f"api/comments?submission_id={page_id}").json()[0]
        said = two.send("PUT", f"comment/{comment['id']}", json={"manual_comment": REMARK})
        assert said.status_code == 200 and said.json()["manual_comment"] == REMARK
        fed = one.send("POST", f"assignment/attention/{STUDENT}/generate_feedback").json()
        assert fed["success"], fed.get("error", "")[-3000:]
        pages = os.path.join(FEEDBACK, STUDENT, "attention", "01-softmax.html")
        assert os.stat(pages).st_uid == grader.pw_uid
        with open(pages, encoding="utf-8") as f:
            assert REMARK in f.read()
    finally:
        stopped = make("hub-stop")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert not control.services(control.processes(), [formgrader.NAME])
    assert not {pid for pid, _ in control.processes()} & service_tree  # its sandboxes too
