"""The hostile class handed in through the hub's exchange gets the verdicts it gets through
submitted/ (docs/hub.md, "The hostile class through the exchange").

One hub of its own (`make hub`, a named class: one account per hostile submission, made for this
test and removed after it): each attacker logs in, makes a token of its own that reaches only the
exchange, and posts its whole submission folder zipped, as a learner's own code could from their
server. Then, as an instructor would, `nbgrader collect attention` through the exchange and
`make autograde JOBS=2`: the lane that graded the same class placed in submitted/
(tests/grading/conftest.py's run, which this file reads and compares with).

What must hold, student by student:
- the exchange refuses at its door exactly the zips make collect would refuse (its own unpacking
  of the same bytes says so), with make collect's reason in the answer, and keeps nothing of them;
- every other submission gets the same points, cell by cell, and the same sentences in grades.csv
  as through submitted/;
- its hand-in time is the exchange's clock while it posted, whatever its files say.

The class's races (tests/fixtures/hostile.py RACES) race the grader, not the door: the lanes test
grades them (test_hostile_lanes.py), and they are not handed in here.
"""

import datetime
import io
import os
import shutil
import stat
import subprocess
import tempfile
import zipfile

import pytest
import requests

from grading import classroom, course_user
from grading.authoring import course
from grading.hub import accounts, control, exchange
from grading.nbgrader import unpack
from grading.parts import ASSIGNMENT
from grading.paths import collected_times, downloaded
from tests.fixtures import hostile, hostile_watch
from tests.fixtures.hub_session import free_port, hub_api, logged_in, make

pytestmark = [pytest.mark.nbgrader, pytest.mark.hostile]

# The kernel escapes, packed as the submitted/ lane packs them (not when HOSTILE_ONLY picks a few)
RIDERS = [a for a in hostile_watch.LANE_CLASS if a not in hostile.RACES]
SCOPE = f"access:services!service={exchange.SERVICE}"  # all a hand-in's token needs


def hand_in_zip(folder):
    """The bytes of a zip of everything in folder, as it is: modes kept, a link as a link."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for top, dirs, files in os.walk(folder):
            dirs.sort()
            for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(top, d))]):
                path = os.path.join(top, name)
                rel = os.path.relpath(path, folder)
                if os.path.islink(path):
                    entry = zipfile.ZipInfo(rel)
                    entry.external_attr = (stat.S_IFLNK | 0o777) << 16
                    z.writestr(entry, os.readlink(path))
                elif os.path.isfile(path):
                    z.write(path, rel)
    return buffer.getvalue()


def door_of(data, scratch):
    """make collect's verdict on a zip: None when it unpacks, else why it is refused."""
    path = os.path.join(scratch, "trial.zip")
    with open(path, "wb") as f:
        f.write(data)
    try:
        unpack.unpack(path, os.path.join(scratch, "trial"))
        return None
    except unpack.Refused as why:
        return str(why)
    finally:
        subprocess.run(["rm", "-rf", "--one-file-system", path, os.path.join(scratch, "trial")],
                       check=True)  # fmt: skip


def hand_in(base, student, data):
    """Log student in, make a token reaching only the exchange, post data as their hand-in:
    (status, the exchange's answer)."""
    session = logged_in(base, student, control.initial_password(student))
    made = hub_api(session, base, "POST", f"users/{student}/tokens",
                   {"scopes": [SCOPE], "note": "a hand-in"})  # fmt: skip
    assert made.status_code == 201, made.text
    said = requests.post(f"{base}/services/{exchange.SERVICE}/api/submit/{ASSIGNMENT}", data=data,
                         headers={"Authorization": f"token {made.json()['token']}"},
                         timeout=120)  # fmt: skip
    return said.status_code, said.json()


def remove_accounts(names):
    """userdel the accounts names (their homes too), under the lock the account tools share."""
    with accounts.account_tools():
        for name in names:
            subprocess.run(["userdel", "--remove", name], capture_output=True, check=True)


@pytest.fixture(scope="module")
def through_exchange(hostile_class_graded):
    """The class handed in through a hub's exchange, collected and graded: the record."""
    submitted_lane = hostile_class_graded  # read before this lane starts the class over
    hostile_watch.clean_slate()
    forget_the_exchange()  # an earlier hub's class in this checkout
    riders = RIDERS if hostile_watch.lanes_ride_along() else []
    listener = hostile_watch.Listener()
    scratch = tempfile.mkdtemp(prefix="attention-hostile-exchange-")  # root's, 0700
    hostile_watch.write_class(listener.port, riders, into=os.path.join(scratch, "submitted"))
    students = sorted(os.listdir(os.path.join(scratch, "submitted")))
    zips = {s: hand_in_zip(os.path.join(scratch, "submitted", s, ASSIGNMENT)) for s in students}
    door = {s: door_of(data, scratch) for s, data in zips.items()}
    new_accounts = [s for s in students if course_user.account(s) is None]
    env = {**os.environ, "ATTENTION_HUB_LEARNERS": " ".join(students)}
    env.pop("ATTENTION_HUB_INSTRUCTORS", None)
    port = free_port()
    answers = {}
    try:
        started = make("hub", f"HUB_PORT={port}", env=env)
        assert started.returncode == 0, started.stdout + started.stderr
        released = course.nbgrader("release_assignment", ASSIGNMENT)  # as root: the course user
        assert released.returncode == 0, released.stdout + released.stderr
        posting = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        for student in students:
            answers[student] = hand_in(f"http://127.0.0.1:{port}", student, zips[student])
        posted = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    finally:
        stopped = make("hub-stop", env=env)
        remove_accounts(new_accounts)
        subprocess.run(["rm", "-rf", "--one-file-system", scratch], check=True)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    kept = {s: exchange.store.hand_ins_of(ASSIGNMENT, s) for s in students}
    collected = course.nbgrader("collect", ASSIGNMENT)  # as root: the course user
    assert collected.returncode == 0, collected.stdout + collected.stderr
    watch = hostile_watch.Watch(listener)
    classroom.autograde(jobs=2)
    record = watch.finish(classroom.grades)
    refused = ", ".join(sorted(s for s, why in door.items() if why)) or "none"
    print(f"\nthrough the exchange: {len(classroom.students())} hand-ins graded in "
          f"{record['elapsed']:.0f} s; refused at the door: {refused}")  # fmt: skip
    record.update(
        submitted_lane=submitted_lane, students=students, door=door, answers=answers, kept=kept,
        posting=posting, posted=posted, rows=hostile_watch.gradebook_rows(),
        problems={s: classroom.problems_of(s) for s in classroom.students()},
        handed_in=hostile_watch.hand_in_times(),
    )  # fmt: skip
    yield record
    forget_the_exchange()


def forget_the_exchange():
    """What this lane leaves of the part: the exchange's release, hand-ins and feedback, the zips
    collect placed in downloaded/, and collect's record of their times (a later lane's intake
    would give a submission with the same files that time)."""
    folders = (exchange.outbound(ASSIGNMENT), exchange.inbound(ASSIGNMENT),
               exchange.feedback(ASSIGNMENT), downloaded(ASSIGNMENT))  # fmt: skip
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    if os.path.exists(collected_times(ASSIGNMENT)):
        os.remove(collected_times(ASSIGNMENT))


def test_the_door_refuses_what_make_collect_refuses_and_keeps_nothing(through_exchange):
    """A zip make collect would refuse is answered 422 with make collect's reason, and no hand-in
    of it is kept; every other is answered with its time and kept once."""
    refused = [s for s, why in through_exchange["door"].items() if why]
    for student in ("h-sub-by-hand", "h-sub-formula"):  # a folder too deep; a link: make
        if student in through_exchange["students"]:  # collect refuses such zips
            assert student in refused, refused
    for student, why in through_exchange["door"].items():
        status, said = through_exchange["answers"][student]
        if why:
            assert status == 422 and why in said["error"], (student, status, said)
            assert through_exchange["kept"][student] == [], student
        else:
            assert status == 200 and "timestamp" in said, (student, status, said)
            assert len(through_exchange["kept"][student]) == 1, student


def test_every_hand_in_gets_the_points_it_gets_through_submitted(through_exchange):
    """Each accepted hand-in's points, cell by cell, equal the submitted/ lane's."""
    before = through_exchange["submitted_lane"]["rows"]
    accepted = [s for s, why in through_exchange["door"].items() if not why]
    assert set(accepted) <= set(through_exchange["rows"]), "an accepted hand-in was not graded"
    for student in accepted:
        score, top, cells = through_exchange["rows"][student]
        score_before, top_before, cells_before = before[student]
        assert top == top_before and score == pytest.approx(score_before, abs=1e-9), student
        assert [(g, m) for g, _, m in cells] == [(g, m) for g, _, m in cells_before], student
        for (grade_id, auto, _), (_, auto_before, _) in zip(cells, cells_before, strict=True):
            assert auto == pytest.approx(auto_before, abs=1e-9), (student, grade_id)


def test_every_hand_in_is_said_about_as_through_submitted(through_exchange):
    """grades.csv's sentences on each accepted hand-in are the submitted/ lane's (a folder placed
    by hand is the only one with a time of its own to ignore, and it was refused at the door)."""
    before = through_exchange["submitted_lane"]["problems"]
    for student, why in through_exchange["door"].items():
        if not why:
            assert through_exchange["problems"][student] == before[student], student


def test_the_hand_in_time_is_the_exchanges(through_exchange):
    """Every accepted hand-in's time in the gradebook lies within the posting (UTC), whatever
    timestamp.txt its folder carried."""
    times = through_exchange["handed_in"]
    for student, why in through_exchange["door"].items():
        if not why:
            moment = times[student]
            assert through_exchange["posting"] <= moment <= through_exchange["posted"], student


def test_nothing_escapes_and_nothing_connects(through_exchange):
    """The class's kernel escapes, graded again after the exchange: no canary outside, no
    connection, no repository file changed."""
    assert through_exchange["escaped"] == []
    assert through_exchange["connections"] == []
    assert through_exchange["changed"] == {}
