"""What the hub's tests share: make hub and make hub-stop on a free port, a login through the hub's
own form, calls with its _xsrf token, and the processes of the hub's accounts."""

import pwd
import socket
import subprocess

import requests

from grading import hub
from grading.hub import control
from grading.paths import ROOT


def free_port():
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make(*argv, env=None):
    """Run make in the checkout (with env, if given); its completed process."""
    return subprocess.run(["make", "--no-print-directory", *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env=env)  # fmt: skip


def logged_in(base, name):
    """A session of name's, logged in through the hub's login form (its _xsrf cookie included);
    an account's first login sets its password, here its demo password."""
    session = requests.Session()
    session.get(f"{base}/hub/login", timeout=10).raise_for_status()
    said = session.post(f"{base}/hub/login", allow_redirects=False, timeout=30, data={
        "username": name, "password": hub.demo_password(name),
        "_xsrf": session.cookies.get("_xsrf", path="/hub/")})  # fmt: skip
    assert said.status_code == 302 and "/hub/login" not in said.headers["location"], said.text
    return session


def hub_api(session, base, method, path):
    """A call to the hub's API with the session's cookie and its _xsrf token."""
    headers = {"X-XSRFToken": session.cookies.get("_xsrf", path="/hub/")}
    return session.request(method, f"{base}/hub/api/{path}", headers=headers, timeout=30)


def uids_of(*names):
    """The uids of the accounts names."""
    return {pwd.getpwnam(name).pw_uid for name in names}


def running_as(uids):
    """The pids of live processes whose real uid is one of uids."""
    return [pid for pid, uid in control.processes() if uid in uids]


def quiet_accounts(*names):
    """Fail unless no process of the accounts names (those that exist) runs: make hub-stop ends
    every process of the hub's accounts, so a test must not start a hub while another hub's
    learners work on this machine."""
    known = [name for name in names if control.course_user.account(name)]
    assert not running_as(uids_of(*known)), f"processes of {known} run: another hub is up"
