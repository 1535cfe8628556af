"""make hub and make hub-stop: a learner logs in through the hub's own form, gets JupyterLab run as
their own account with the course's workspace, another learner cannot reach it, no learner reads
the instructor's files, and nothing of the hub outlives make hub-stop (grading/hub/,
docs/hub.md)."""

import os
import pwd

import pytest

from grading import course_user, hub, paths
from grading.authoring import course
from grading.hub import control, privacy
from grading.hub.exchange import store
from grading.parts import PARTS
from tests.fixtures.hub_session import (
    free_port,
    hub_api,
    logged_in,
    make,
    reads,
    running_as,
    server_ready,
    servers_of,
    uids_of,
    without_workspaces,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="make hub makes accounts: it runs as root"),
]

FIRST_NOTEBOOK = "01-softmax.ipynb"
# What is the instructor's alone: solutions, the hidden cases and their seed, the history
PRIVATE = [
    paths.REFERENCE_MODEL,
    os.path.join(paths.masters("attention"), FIRST_NOTEBOOK),
    os.path.join(paths.text_forms("xslm"), "03-gpt.py"),
    os.path.join(paths.XSLM_REFERENCE, "gpt.py"),
    os.path.join(paths.ROOT, "grading", "judge", "attention_hidden.py"),
    os.path.join(paths.ROOT, ".git", "HEAD"),
]


@pytest.fixture
def fresh_learner1():
    """learner1's home without the workspace a previous run made, so the hub's is what the test
    sees; part one released on the course's exchange (so the hub fills learner1's workspace with
    it), part two not; afterwards nothing is released."""
    without_workspaces(["learner1"])
    store.unrelease("xslm")
    course.release()
    done = course.nbgrader("release_assignment", "attention")  # as root: as the course user
    assert done.returncode == 0, (done.stdout + done.stderr)[-2000:]
    yield
    for part in PARTS:
        store.unrelease(part)


def test_hub_runs_each_learner_as_themselves_and_stops_clean(fresh_learner1):
    """make hub, learner1's Lab as learner1 with the course's notebook, learner2 refused, then
    make hub-stop leaves no hub, proxy or learner process."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    modes = {path: os.stat(path).st_mode for path in PRIVATE}  # as the instructor has them
    started = make("hub", f"HUB_PORT={port}")
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        assert f"{base}/" in started.stdout and hub.demo_password("learner1") in started.stdout
        again = make("hub", f"HUB_PORT={port}")
        assert again.returncode == 0 and "already running" in again.stdout
        hub_pid = control.hub_pid()
        learner1 = pwd.getpwnam("learner1")

        one = logged_in(base, "learner1")
        assert hub_api(one, base, "POST", "users/learner1/server").status_code in (201, 202)
        assert server_ready(one, base, "learner1")
        servers = servers_of(learner1.pw_dir)
        assert servers and all(
            (ruid, euid) == (learner1.pw_uid,) * 2 for _, ruid, euid in servers
        ), servers
        lab = one.get(f"{base}/user/learner1/lab", timeout=30)  # through the hub's OAuth
        assert lab.status_code == 200 and "JupyterLab" in lab.text
        listed = one.get(f"{base}/user/learner1/api/contents/part-1-attention", timeout=30)
        assert FIRST_NOTEBOOK in {item["name"] for item in listed.json()["content"]}
        top = one.get(f"{base}/user/learner1/api/contents/", timeout=30).json()["content"]
        assert PARTS["xslm"].folder not in {item["name"] for item in top}  # not released
        # make hub locked them: learner1 is refused, grading reads them (a worker's copy of the
        # checkout links .git to the checkout's: not this checkout's to lock)
        for path in filter(privacy.without_link, PRIVATE):
            assert os.path.isfile(path) and not reads("learner1", path), path
            assert reads(course_user.USER, path), path

        two = logged_in(base, "learner2")
        assert two.get(f"{base}/user/learner1/lab", timeout=30).status_code == 403
        taken = two.get(f"{base}/user/learner1/api/contents/part-1-attention", timeout=30)
        assert taken.status_code == 403 and FIRST_NOTEBOOK not in taken.text
    finally:
        stopped = make("hub-stop")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert {path: os.stat(path).st_mode for path in PRIVATE} == modes  # given back
    assert not running_as(uids_of("learner1", "learner2"))
    assert not control.cmdline(hub_pid) and control.hub_pid() is None
    notebook = os.path.join(learner1.pw_dir, hub.WORKSPACE, "part-1-attention", FIRST_NOTEBOOK)
    assert os.lstat(notebook).st_uid == learner1.pw_uid  # made by learner1's own account
