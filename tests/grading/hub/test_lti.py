"""LTI 1.3 logins (grading/hub/lti.py, docs/hub.md): the test plays the LMS, with an RSA key of its
own and its JWKS served on 127.0.0.1, through the whole launch against a real make hub: the OIDC
login initiation, the hub's redirect to the platform's authorize URL (its state and nonce), and a
signed id_token posted back. A launch logs in only as the class's account it names, as what the
class's list makes it; another key's token, a name not in the class, roles that do not match the
list, and the hub's own password form are refused. No network: everything is on 127.0.0.1."""

import http.server
import json
import os
import threading
import time
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

from grading import hub
from grading.hub import control, formgrader
from tests.fixtures import hub_session
from tests.fixtures.hub_session import free_port, hub_api, login_attempt, make

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="make hub makes accounts: it runs as root"),
]

CLIENT_ID = "10000000000042"  # what an LMS gives the registered tool
DEPLOYMENT = "1:course-attention"
KID = "platform-key-1"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
TEACHING_ASSISTANT = (
    "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
)
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
STUDENT_OF_INSTITUTION = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Student"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"


def rsa_key():
    """A new RSA key of the platform's (cryptography draws it; nothing else in the test is
    random)."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class Platform:
    """The LMS: its signing key, its JWKS served over HTTP on 127.0.0.1 from a thread, and the
    id_tokens it signs."""

    def __init__(self):
        self.key = rsa_key()
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        keys = json.dumps({"keys": [{**jwk, "kid": KID, "alg": "RS256", "use": "sig"}]}).encode()

        class JWKS(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                """The platform's public keys, at any path."""
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(keys)))
                self.end_headers()
                self.wfile.write(keys)

            def log_message(self, *args):
                """Quiet."""

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), JWKS)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.issuer = f"{self.url}/lms"  # the platform's issuer identifier
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def environment(self):
        """make hub's LTI variables for this platform."""
        return {
            "ATTENTION_HUB_LTI_ISSUER": self.issuer,
            "ATTENTION_HUB_LTI_CLIENT_ID": f"another-tool {CLIENT_ID}",
            "ATTENTION_HUB_LTI_AUTHORIZE_URL": f"{self.url}/authorize",
            "ATTENTION_HUB_LTI_JWKS_URL": f"{self.url}/jwks",
        }

    def id_token(self, nonce, custom, roles, key=None, **claims):
        """A resource-link launch's id_token, signed with key (default: the platform's)."""
        now = int(time.time())
        body = {
            "iss": self.issuer, "aud": CLIENT_ID, "sub": "lms-user-7f3a", "iat": now,
            "exp": now + 300, "nonce": nonce,
            f"{CLAIM}version": "1.3.0", f"{CLAIM}deployment_id": DEPLOYMENT,
            f"{CLAIM}message_type": "LtiResourceLinkRequest",
            f"{CLAIM}target_link_uri": "https://hub.example.edu/hub/",
            f"{CLAIM}resource_link": {"id": "attention-part-1"},
            f"{CLAIM}context": {"id": "course-1", "label": "ATTN", "title": "Attention by hand"},
            f"{CLAIM}roles": roles, f"{CLAIM}custom": custom, **claims,
        }  # fmt: skip
        return jwt.encode(body, key or self.key, algorithm="RS256", headers={"kid": KID})

    def stop(self):
        """End the JWKS server."""
        self.server.shutdown()
        self.server.server_close()


def launch(base, platform, custom, roles, key=None, **claims):
    """One LTI 1.3 launch as a browser goes through it: the platform's login initiation at the
    hub, the hub's redirect to the platform's authorize URL, and the platform's form post of a
    signed id_token with the state back to the hub. A session; the hub's last answer in .said."""
    session = requests.Session()
    started = session.get(f"{base}/hub/lti13/oauth_login", allow_redirects=False, timeout=30,
                          params={"iss": platform.issuer, "login_hint": "opaque-7f3a",
                                  "target_link_uri": f"{base}/hub/home", "client_id": CLIENT_ID,
                                  "lti_message_hint": "resource-link"})  # fmt: skip
    assert started.status_code == 302, started.text[-2000:]
    authorize = urlsplit(started.headers["location"])
    assert f"{authorize.scheme}://{authorize.netloc}{authorize.path}" == f"{platform.url}/authorize"
    asked = {name: values[0] for name, values in parse_qs(authorize.query).items()}
    assert asked["redirect_uri"] == f"{base}/hub/lti13/oauth_callback", asked
    assert (asked["client_id"], asked["response_type"], asked["scope"]) == (
        CLIENT_ID, "id_token", "openid")  # fmt: skip
    token = platform.id_token(asked["nonce"], custom, roles, key, **claims)
    session.said = session.post(asked["redirect_uri"], allow_redirects=False, timeout=30,
                                data={"id_token": token, "state": asked["state"]})  # fmt: skip
    return session


def who(session, base):
    """The hub's model of the session's user (name, groups), or None when it is logged out."""
    session.get(f"{base}/hub/home", allow_redirects=False, timeout=30)  # sets the _xsrf cookie
    said = hub_api(session, base, "GET", "user")
    return said.json() if said.status_code == 200 else None


@pytest.fixture
def platform():
    """The LMS, while the test runs; no hub of this checkout running, no other hub's accounts
    busy (make hub-stop would end their processes)."""
    hub_session.quiet_accounts(*hub.everyone())
    assert control.hub_pid() is None, "this checkout's hub runs: make hub-stop first"
    lms = Platform()
    yield lms
    lms.stop()


def test_lti_launches_log_in_only_the_class_as_what_its_list_makes_them(platform):
    """make hub with the LMS's registration: a learner's launch logs in learner1, in the learners
    group; an instructor's (a teaching assistant) logs in instructor1, who opens the formgrader;
    a token of another key, a name not in the class, a missing name claim, roles that disagree
    with the class's list and the hub's password form log nobody in."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    started = make("hub", f"HUB_PORT={port}", env=dict(os.environ, **platform.environment()))
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        assert f"{base}/hub/lti13/oauth_login" in started.stdout
        assert hub.demo_password("learner1") not in started.stdout  # no password logins

        one = launch(base, platform, {"username": "learner1"}, [LEARNER, STUDENT_OF_INSTITUTION])
        assert one.said.status_code == 302, one.said.text[-2000:]
        assert one.said.headers["location"] == "/hub/home"  # the target_link_uri's page
        user = who(one, base)
        assert user["name"] == "learner1" and user["groups"] == ["learners"], user
        assert one.get(f"{base}{formgrader.PREFIX}formgrader/", timeout=60).status_code == 403

        two = launch(base, platform, {"username": " Learner2 "}, [LEARNER])  # the LMS's spelling
        assert two.said.status_code == 302 and who(two, base)["name"] == "learner2"

        teacher = launch(base, platform, {"username": "instructor1"}, [TEACHING_ASSISTANT])
        assert teacher.said.status_code == 302, teacher.said.text[-2000:]
        user = who(teacher, base)
        assert user["name"] == "instructor1" and user["groups"] == ["instructors"], user
        page = teacher.get(f"{base}{formgrader.PREFIX}formgrader/", timeout=60)
        assert page.status_code == 200 and "Manage Assignments" in page.text, page.text[-2000:]

        refused = {
            "another key": (400, launch(base, platform, {"username": "learner1"}, [LEARNER],
                                        key=rsa_key())),
            "not in the class": (403, launch(base, platform, {"username": "mallory"}, [LEARNER])),
            "no name claim": (403, launch(base, platform, {}, [LEARNER], sub="learner1")),
            "a learner as instructor": (403, launch(base, platform, {"username": "learner1"},
                                                    [INSTRUCTOR])),
            "an instructor as learner": (403, launch(base, platform, {"username": "instructor1"},
                                                     [LEARNER])),
            "another audience": (401, launch(base, platform, {"username": "learner1"}, [LEARNER],
                                             aud="someone-else")),
        }  # fmt: skip
        for why, (status, session) in refused.items():
            assert session.said.status_code == status, (why, session.said.text[-1000:])
            assert who(session, base) is None, why
        assert "not an account of this class" in refused["not in the class"][1].said.text
        form = login_attempt(base, "learner1", hub.demo_password("learner1"))
        assert form.said.status_code == 403 and who(form, base) is None
    finally:
        stopped = make("hub-stop")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
