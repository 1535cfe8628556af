"""nbgrader's exchange, the instructor's side: `nbgrader release_assignment`, `collect`,
`release_feedback` and `list` (and the formgrader's buttons for them), run as the course user on
the exchange's store. grader_config.py names these classes.

Collect takes each learner's latest hand-in as `make collect` takes a zip: it is placed in
downloaded/<part>/archive/<student>.zip with the time the service received it, and nbgrader
zip_collect unpacks it through the course's extractor and intake.
"""

import os

from nbgrader.exchange.abc import (
    ExchangeCollect,
    ExchangeList,
    ExchangeReleaseAssignment,
    ExchangeReleaseFeedback,
)

from grading import paths
from grading.hub import exchange
from grading.hub.exchange import store
from grading.parts import PARTS


class OnStore:
    """An instructor's exchange step: the part it names, and the store; never as root."""

    def part(self):
        """The part nbgrader was asked about, from the registry."""
        name = self.coursedir.assignment_id
        if name not in PARTS:
            self.fail(f"{name!r} is not a part of this course: {', '.join(PARTS)}")
        if os.geteuid() == 0:
            self.fail("the exchange's store is the course user's: run this as that user")
        return name

    def init_src(self):
        """No source folder: the store is the exchange."""

    def init_dest(self):
        """No destination folder: the store is the exchange."""


class ReleaseAssignment(OnStore, ExchangeReleaseAssignment):
    """Release a part in every edition whose student edition is built (make release)."""

    def copy_files(self):
        """Every built edition of the part into the store."""
        from grading.authoring.editions import languages

        part = self.part()
        done = store.release(part, languages())
        if "en" not in done:
            self.fail(f"release/{part} is not built: make release PART={part} first")
        self.log.info("Released %s to the hub's learners in: %s", part, ", ".join(done))


class Collect(OnStore, ExchangeCollect):
    """Each learner's latest hand-in, into submitted/ through make collect's own path."""

    def copy_files(self):
        """The learners' new hand-ins placed and unpacked into submitted/."""
        from grading.nbgrader import collect

        part = self.part()
        latest = store.latest(part)
        new = [s for s, (moment, _) in latest.items() if not store.is_placed(part, s, moment)]
        self.log.info("%d learners' hand-ins of %s; %d new since the last collect: %s",
                      len(latest), part, len(new), ", ".join(new) or "none")  # fmt: skip
        if not new:
            return
        earlier = [s for s in new if os.path.isdir(os.path.join(paths.SUBMITTED, s, part))]
        if earlier and not self.update:
            self.fail(f"{', '.join(earlier)} handed in again since the last collect; nbgrader "
                      f"collect --update {part} (the formgrader's Collect) puts their latest "
                      "hand-ins in place of the earlier ones")  # fmt: skip
        for student in new:
            store.place_for_collect(part, student, *latest[student])
        try:  # only the new hand-ins are unpacked: everyone else's submission stays as it is
            collect.collect(part, force=True, only=new)
        except SystemExit as failed:  # the formgrader's server must live on: nbgrader's error
            self.fail(str(failed))


class ReleaseFeedback(OnStore, ExchangeReleaseFeedback):
    """Release the feedback pages generate_feedback made, each to its own learner only."""

    def copy_files(self):
        """The feedback of the part (of one learner, when named) into the store."""
        part = self.part()
        one = self.coursedir.student_id  # the formgrader's per-learner button names one
        done = store.release_feedback(part, None if one in ("", "*") else {one})
        self.log.info("Released %s's feedback to %d learners: %s", part, len(done),
                      ", ".join(done) or "none (nbgrader generate_feedback first)")  # fmt: skip


class List(OnStore, ExchangeList):
    """The released parts, or with --inbound every learner's hand-ins and their arrivals."""

    def copy_files(self):
        """Nothing to copy: list_files reads the store."""

    def list_files(self):
        """nbgrader's list, from the store."""
        if self.inbound:
            found = []
            for part in PARTS:
                for student, (moment, _) in store.latest(part).items():
                    count = len(store.hand_ins_of(part, student))
                    self.log.info("%s %s %s (%d kept)", student, part,
                                  moment.strftime(exchange.SHOWN), count)  # fmt: skip
                    found.append({"course_id": exchange.COURSE_ID, "student_id": student,
                                  "assignment_id": part, "status": "submitted",
                                  "timestamp": moment.strftime(exchange.SHOWN)})  # fmt: skip
            return found
        released = store.released()
        for part, editions in released.items():
            self.log.info("%s %s (%s)", exchange.COURSE_ID, part, ", ".join(editions))
        return [{"course_id": exchange.COURSE_ID, "assignment_id": part, "status": "released"}
                for part in released]  # fmt: skip

    def remove_files(self):
        """Unrelease a part (the formgrader's Unrelease): its released zips go, learners' hand-ins
        stay (they are never removed)."""
        if self.inbound or self.cached:
            self.fail("the exchange keeps every hand-in: none is removed")
        part = self.part()
        store.unrelease(part)
        self.log.info("%s is no longer released; hand-ins already made are kept", part)
        return [{"course_id": exchange.COURSE_ID, "assignment_id": part, "status": "removed"}]
