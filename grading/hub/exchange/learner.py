"""nbgrader's exchange, the learner's side: the Assignments tab (and `nbgrader list`,
`fetch_assignment`, `submit`, `fetch_feedback` in a learner's terminal) talk to the exchange
service with the token the hub gave the learner's server.
grading/hub/learner-config/nbgrader_config.py names these classes.

A part is fetched into the learner's workspace folder of it (part-1-attention/), keeping every file
the learner already has there, as `make lab` fills a workspace. A hand-in is the zip the browser
edition's hand_in() makes: the part's notebooks and the files its steps save.
"""

import io
import json
import os
import tempfile
import urllib.error
import urllib.request
import zipfile

from nbgrader.exchange.abc import (
    Exchange,
    ExchangeFetchAssignment,
    ExchangeFetchFeedback,
    ExchangeList,
    ExchangeSubmit,
)

from grading.hub import exchange
from grading.parts import PARTS

TIMEOUT = 60


class ToService(Exchange):
    """An exchange step that asks the service, as the learner whose server this is."""

    def call(self, method, path, body=None):
        """The service's answer to one call, as bytes; ExchangeError with its words if it
        refuses."""
        base = os.environ.get("ATTENTION_EXCHANGE_URL")
        token = os.environ.get("JUPYTERHUB_API_TOKEN")
        if not base or not token:
            self.fail(
                "the course's exchange is reached from a learner's server on the course's hub"
            )
        request = urllib.request.Request(base.rstrip("/") + "/api/" + path, data=body,
                                         method=method,
                                         headers={"Authorization": f"token {token}"})  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                return answer.read()
        except urllib.error.HTTPError as err:
            try:
                said = json.loads(err.read()).get("error")
            except ValueError:
                said = None
            self.fail(said or f"the exchange answered {err.code}")
        except OSError as err:
            self.fail(f"the exchange did not answer ({err})")

    def listing(self):
        """The service's account of what is released, and of this learner's hand-ins and
        feedback."""
        return json.loads(self.call("GET", "assignments"))

    def part(self):
        """The part nbgrader was asked about, from the registry."""
        name = self.coursedir.assignment_id
        if name not in PARTS:
            self.fail(f"{name!r} is not a part of this course: {', '.join(PARTS)}")
        return name

    def local(self, part):
        """The learner's folder of a part: <workspace>/<its folder>."""
        return os.path.abspath(os.path.join(self.assignment_dir, PARTS[part].folder))

    def init_src(self):
        """No source folder: the service is the exchange."""

    def init_dest(self):
        """No destination folder: the service is the exchange."""


def unzip(data, into):
    """Unpack zip bytes from the service into a new folder into, as plain files."""
    with tempfile.NamedTemporaryFile(suffix=".zip") as f:
        f.write(data)
        f.flush()
        from grading.nbgrader import unpack  # nbgrader's plugin base: imported when used

        unpack.unpack(f.name, into)


class List(ToService, ExchangeList):
    """What the Assignments tab shows: released parts, and this learner's hand-ins."""

    def copy_files(self):
        """Nothing to copy: list_files asks the service."""

    def list_files(self):
        """nbgrader's list: released parts (status released or fetched), or with cached=True the
        learner's hand-ins, each with whether its feedback is released and fetched."""
        known = self.listing()
        if self.inbound:
            self.fail("the instructor lists hand-ins with nbgrader list --inbound on the course")
        if self.cached:
            return [self.submitted(part, kept, known["feedback"].get(part))
                    for part, kept in sorted(known["submitted"].items())]  # fmt: skip
        return [self.released(part, given) for part, given in sorted(known["released"].items())]

    def released(self, part, given):
        """One released part, as nbgrader lists it."""
        here = self.local(part)
        fetched = os.path.isdir(here)
        notebooks = [{"notebook_id": n.removesuffix(".ipynb"), "path": os.path.join(here, n)}
                     for n in given["notebooks"]]  # fmt: skip
        return {"course_id": exchange.COURSE_ID, "assignment_id": part, "notebooks": notebooks,
                "status": "fetched" if fetched else "released",
                "path": here if fetched else part}  # fmt: skip

    def submitted(self, part, kept, feedback):
        """A part's hand-ins, as nbgrader lists a learner's submissions."""
        student = os.environ.get("JUPYTERHUB_USER", "")
        here = self.local(part)
        shown = [self.submission(part, student, here, each, feedback) for each in kept]
        return {"course_id": exchange.COURSE_ID, "student_id": student, "assignment_id": part,
                "status": "submitted", "submissions": shown}  # fmt: skip

    def submission(self, part, student, here, each, feedback):
        """One hand-in: its arrival, its notebooks, and its feedback's state."""
        moment = each["timestamp"]
        pages = feedback["pages"] if feedback and feedback["for"] == moment else []
        fetched_to = os.path.join(here, "feedback", moment)
        notebooks = []
        for name in each["notebooks"]:
            page = os.path.join(fetched_to, name.removesuffix(".ipynb") + ".html")
            notebooks.append({
                "notebook_id": name.removesuffix(".ipynb"), "path": name,
                "has_exchange_feedback": os.path.basename(page) in pages,
                "has_local_feedback": os.path.isfile(page), "feedback_updated": False,
                "local_feedback_path": page if os.path.isfile(page) else None})  # fmt: skip
        local = bool(notebooks) and all(n["has_local_feedback"] for n in notebooks)
        return {"course_id": exchange.COURSE_ID, "student_id": student, "assignment_id": part,
                "timestamp": moment, "status": "submitted", "path": "", "notebooks": notebooks,
                "has_exchange_feedback": bool(pages), "has_local_feedback": local,
                "feedback_updated": False,
                "local_feedback_path": fetched_to if local else None}  # fmt: skip

    def remove_files(self):
        """Refused: every hand-in is kept."""
        self.fail("hand-ins are kept: the exchange removes none")


class FetchAssignment(ToService, ExchangeFetchAssignment):
    """Fetch a released part into the learner's workspace, keeping what is there."""

    def copy_files(self):
        """The released zip of the learner's edition, filled into their workspace."""
        part = self.part()
        edition = os.environ.get("ATTENTION_HUB_EDITION", "en")
        data = self.call("GET", f"release/{part}?edition={edition}")
        from grading.authoring.course import fill_workspace  # the course's own filling

        with tempfile.TemporaryDirectory(prefix="attention-fetch-") as own:
            released = os.path.join(own, part)
            unzip(data, released)
            fill_workspace(os.path.abspath(self.assignment_dir), released, part)
        self.log.info("Fetched %s into %s", part, self.local(part))


class Submit(ToService, ExchangeSubmit):
    """Hand in a part: its notebooks and the files its steps save, as one zip."""

    def copy_files(self):
        """The part's hand-in files, zipped and sent to the service."""
        part = self.part()
        here = self.local(part)
        if not os.path.isdir(here):
            self.fail(f"{PARTS[part].folder}/ is not in your workspace: fetch {part} first")
        given = self.listing()["released"].get(part)
        if not given:
            self.fail(f"{part} is not released: nothing to hand in yet")
        names = hand_in_files(here, part, given["notebooks"])
        if not any(n.endswith(".ipynb") for n in names):
            self.fail(f"{PARTS[part].folder}/ holds none of {part}'s notebooks: nothing to hand in")
        answer = json.loads(self.call("POST", f"submit/{part}", body=zipped(here, names)))
        self.timestamp = answer["timestamp"]
        self.log.info("Handed in %s: %d files, received at %s", part, len(names), self.timestamp)


def hand_in_files(here, part, notebooks):
    """The files of a part's hand-in that here holds: its notebooks (those released, as the
    service lists them), and the learner's files."""
    wanted = list(notebooks) + list(PARTS[part].learner_files)
    return [n for n in wanted if os.path.isfile(os.path.join(here, n))]


def zipped(here, names):
    """The bytes of a zip of those files of here."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name in names:
            z.write(os.path.join(here, name), name)
    return buffer.getvalue()


class FetchFeedback(ToService, ExchangeFetchFeedback):
    """Fetch the learner's released feedback into <part folder>/feedback/<arrival>/."""

    def copy_files(self):
        """The feedback zip from the service, unpacked beside the hand-in it is for."""
        part = self.part()
        data = self.call("GET", f"feedback/{part}")
        with tempfile.TemporaryDirectory(prefix="attention-feedback-") as own:
            unzip(data, os.path.join(own, "pages"))
            with open(os.path.join(own, "pages", exchange.FEEDBACK_FOR), encoding="utf-8") as f:
                moment = exchange.arrival(f.read().strip())
            shown = moment.strftime(exchange.SHOWN) if moment else "unknown"
            into = os.path.join(self.local(part), "feedback", shown)
            os.makedirs(into, exist_ok=True)
            for name in os.listdir(os.path.join(own, "pages")):
                if name.endswith(".html"):
                    os.replace(os.path.join(own, "pages", name), os.path.join(into, name))
        self.log.info("Feedback of %s is in %s", part, into)
