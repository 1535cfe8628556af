"""The lab view's hub service: `python -m grading.hub.labview.service`, started by the hub as the
course user (grading/hub/jupyterhub_config.py), at /services/lab-view/.

    POST api/report   a learner's checkpoint result (checkpoints/labview.py), with their token
    GET  (the page)   the room, for the instructors: who is where, what fails, who is stuck
    GET  export.csv   every report kept, for the instructors' records

The hub says who calls (their token, or the page's login); nothing a caller sends names a learner
or a time. A report is checked against what the course can say and kept; a caller who sends more
than store.RATE in store.WINDOW seconds is refused for a while.
"""

import io
import os
import time

from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated
from tornado import web
from tornado.log import app_log

from grading import hub
from grading.hub.labview import SERVICE, page, store
from grading.hub.service import serve

# no script, no other page's frame around it
POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
MAX_AUTHORIZATION = 200  # "token " and a hub token (32 to 64 characters), with room to spare


class Caller(HubOAuthenticated, web.RequestHandler):
    """A call from a hub user whose token or login holds access to this service."""

    def initialize(self, history, room, limiter):
        """The service's one history, room and rate limiter, shared by every call."""
        self.history, self.room, self.limiter = history, room, limiter

    def prepare(self):
        """Refuse at once what no hub token looks like (each new one costs the hub a lookup)."""
        if len(self.request.headers.get("Authorization", "")) > MAX_AUTHORIZATION:
            raise web.HTTPError(400, "that is no hub token")
        super().prepare()

    def account(self):
        """The caller's hub name; 403 unless an account of the class."""
        model = self.current_user
        if not model or model.get("kind") != "user" or model.get("name") not in hub.everyone():
            raise web.HTTPError(403, "only the class's accounts reach the lab view")
        return model["name"]

    def instructor(self):
        """The caller, who must be one of the class's instructors (403 for a learner)."""
        name = self.account()
        if name not in hub.instructors():
            raise web.HTTPError(403, "the lab view is the instructors' page")
        return name


class Report(Caller):
    """POST api/report: one learner's checkpoint result."""

    @web.authenticated
    def post(self):
        """Keep the caller's checked report, or refuse it (400: not the course's; 429: too many)."""
        learner = self.account()
        if not self.limiter.allow(learner, time.monotonic()):
            raise web.HTTPError(429, "too many reports: a few per checkpoint run is plenty")
        try:
            report = store.checked(self.request.body)
        except store.Refused as why:
            raise web.HTTPError(400, str(why)) from None
        self.room.add(self.history.add(learner, report))
        app_log.info("%s: %s %s", learner, report["checkpoint"], report["passed"])
        self.set_status(204)


class Room(Caller):
    """GET: the room's page."""

    @web.authenticated
    def get(self):
        """The page, for an instructor."""
        self.instructor()
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Content-Security-Policy", POLICY)
        self.finish(page.render(self.room.at(time.time())))


class Export(Caller):
    """GET export.csv: the history."""

    @web.authenticated
    def get(self):
        """The history as CSV, for an instructor."""
        self.instructor()
        out = io.StringIO()
        self.history.write_csv(out)
        self.set_header("Content-Type", "text/csv; charset=utf-8")
        self.set_header("Content-Disposition", 'attachment; filename="lab-view.csv"')
        self.finish(out.getvalue())


def application(history_url=None):
    """The service's tornado application, under the prefix the hub gives it, keeping its history
    at history_url (default: store.history_url())."""
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", f"/services/{SERVICE}/")
    history = store.History(history_url or store.history_url())
    room = store.Room(history.rows())  # read once; each report then updates it
    shared = {"history": history, "room": room, "limiter": store.Limiter()}
    routes = [(prefix, Room, shared), (prefix + "export.csv", Export, shared),
              (prefix + "api/report", Report, shared), (prefix + "oauth_callback",
              HubOAuthCallbackHandler)]  # fmt: skip
    return web.Application(routes, cookie_secret=os.urandom(32))


def main():
    """Serve at the address the hub gives, as the course user (grading/hub/service.py)."""
    serve(application(), "lab-view", store.MAX_BODY + 1024, body_timeout=10, idle_timeout=10)


if __name__ == "__main__":
    main()
