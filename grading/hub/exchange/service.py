"""The exchange's hub service: `python -m grading.hub.exchange.service`, started by the hub as the
course user (grading/hub/jupyterhub_config.py), at /services/exchange/.

Every call carries a hub token (a learner's server sends its own). The hub says whose it is, and
the service answers for that account alone; nothing a caller sends names a learner or a time.

    GET  api/assignments          what is released, and the caller's hand-ins and feedback
    GET  api/release/<part>       ?edition=ko: the released zip of a part
    POST api/submit/<part>        the body is the hand-in zip; answers the time it arrived
    GET  api/feedback/<part>      the caller's released feedback, a zip
"""

import json
import os

from jupyterhub.services.auth import HubAuth, HubAuthenticated
from tornado import web
from tornado.log import app_log

from grading import hub
from grading.hub import exchange
from grading.hub.exchange import store
from grading.hub.service import serve
from grading.nbgrader import unpack
from grading.parts import PARTS

PART = r"([a-z][a-z0-9_-]{0,31})"


class Api(HubAuthenticated, web.RequestHandler):
    """A call from a hub user whose token holds access to this service."""

    def initialize(self, hub_auth):
        """The service's one HubAuth, shared by every call."""
        self.hub_auth = hub_auth

    def account(self):
        """The caller's hub name; 403 unless a user of the class (not a service, not a stranger)."""
        model = self.current_user
        if not model or model.get("kind") != "user" or model.get("name") not in hub.everyone():
            raise web.HTTPError(403, "only the class's accounts use the exchange")
        return model["name"]

    def part(self, name):
        """A part of the registry, or 404."""
        if name not in PARTS:
            raise web.HTTPError(404, f"no part {name!r}")
        return name

    def answer(self, value, status=200):
        """Send value as JSON."""
        self.set_status(status)
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps(value))

    def send_zip(self, data, name):
        """Send a zip's bytes as a download named name."""
        self.set_header("Content-Type", "application/zip")
        self.set_header("Content-Disposition", f'attachment; filename="{name}"')
        self.finish(data)

    def write_error(self, status_code, **kwargs):
        """Errors as {"error": words}: the learner's client shows them."""
        error = kwargs.get("exc_info", (None, None))[1]
        said = getattr(error, "log_message", None) or self._reason
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps({"error": said}))


class Assignments(Api):
    """GET api/assignments: what is released, and the caller's hand-ins and feedback."""

    def get(self):
        """{released: {part: [editions, notebooks]}, submitted: {part: [arrivals]},
        feedback: {part: {for, pages}}} for the caller."""
        student = self.account()
        released = {
            part: {"editions": editions,
                   "notebooks": store.zip_notebooks(store.released_zip(part, editions[0]))}
            for part, editions in store.released().items()
        }  # fmt: skip
        submitted, feedback = {}, {}
        for part in PARTS:
            kept = store.hand_ins_of(part, student)
            if kept:
                submitted[part] = [
                    {"timestamp": moment.strftime(exchange.SHOWN),
                     "notebooks": store.zip_notebooks(path)} for moment, path in kept
                ]  # fmt: skip
            given = store.feedback_for(part, student)
            if given:
                moment, pages = given
                shown = moment.strftime(exchange.SHOWN) if moment else ""
                feedback[part] = {"for": shown, "pages": pages}
        self.answer({"released": released, "submitted": submitted, "feedback": feedback})


class Release(Api):
    """GET api/release/<part>: a released part's zip."""

    def get(self, part):
        """The released zip of a part in ?edition= (English when not given)."""
        self.account()
        edition = self.get_argument("edition", "en")
        path = store.released_zip(self.part(part), edition)
        if path is None:
            raise web.HTTPError(404, f"{part} is not released in the edition {edition!r}")
        with open(path, "rb") as f:
            self.send_zip(f.read(), f"{part}.zip")


class Submit(Api):
    """POST api/submit/<part>: the caller's hand-in."""

    def post(self, part):
        """Keep the body as the caller's hand-in of part; its arrival, as nbgrader shows times."""
        student = self.account()
        if student not in hub.learners():
            raise web.HTTPError(403, "only learners hand in")
        if self.part(part) not in store.released():
            raise web.HTTPError(409, f"{part} is not released: nothing to hand in yet")
        try:
            moment = store.receive(part, student, self.request.body)
        except unpack.Refused as why:
            raise web.HTTPError(422, f"this hand-in was not kept: {why}") from None
        app_log.info("%s handed in %s at %s", student, part, moment)
        self.answer({"timestamp": moment.strftime(exchange.SHOWN)})


class Feedback(Api):
    """GET api/feedback/<part>: the caller's released feedback."""

    def get(self, part):
        """The caller's released feedback of part, a zip."""
        data = store.feedback_zip(self.part(part), self.account())
        if data is None:
            raise web.HTTPError(404, f"no feedback of {part} is released for you yet")
        self.send_zip(data, f"feedback-{part}.zip")


def application():
    """The service's tornado application, under the prefix the hub gives it."""
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", f"/services/{exchange.SERVICE}/")
    auth = {"hub_auth": HubAuth()}
    routes = [("api/assignments", Assignments), (f"api/release/{PART}", Release),
              (f"api/submit/{PART}", Submit), (f"api/feedback/{PART}", Feedback)]  # fmt: skip
    return web.Application([(prefix + path, handler, auth) for path, handler in routes])


def main():
    """Serve at the address the hub gives, as the course user (grading/hub/service.py)."""
    serve(application(), "exchange", unpack.MAX_BYTES + 4096, body_timeout=120)


if __name__ == "__main__":
    main()
