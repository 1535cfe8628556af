"""The course's nbgrader exchange on the hub: no shared folder, and no time a learner can choose.

nbgrader's own exchange is a folder every account writes. There a learner names their hand-in's
time (the inbound entry's name and its timestamp.txt), can write under another learner's name, and
leaves files the collecting account then copies by path. Here the exchange is a hub service
(`service.py`, run by the hub as the course user) and nbgrader's exchange plugins
(`learner.py` in each learner's server, `instructor.py` where the course is graded):

    learner's Assignments tab ──HTTP, the learner's own hub token──▶ service ──▶ EXCHANGE (0700)
    nbgrader release_assignment / collect / release_feedback  (the course user) ──▶ EXCHANGE

The service alone writes inbound/: it takes the learner's name from the hub's token and the time
from its own clock when the bytes arrive, and screens the zip as `make collect` screens one
(grading/nbgrader/unpack.py). `nbgrader collect` puts each learner's latest hand-in in
downloaded/<part>/archive/<student>.zip with that time, and collects it as any zip.

The store, all the course user's (paths.EXCHANGE, mode 0700):
    outbound/<part>/<edition>.zip              what release_assignment released
    inbound/<part>/<student>/<arrival>.zip     every hand-in, kept; the name is the service's time
    feedback/<part>/<student>/<notebook>.html  what release_feedback released, with for.txt: the
                                               arrival of the hand-in it grades
"""

import datetime
import os

from grading import paths

SERVICE = "exchange"  # its name on the hub: /services/exchange/
COURSE_ID = "attention-by-hand"  # nbgrader's course id (grader_config.py)
ARRIVAL = "%Y%m%dT%H%M%S.%fZ"  # an inbound zip's name: when it arrived, UTC
SHOWN = "%Y-%m-%d %H:%M:%S.%f UTC"  # nbgrader's timestamp format, as its Assignments tab shows
FEEDBACK_FOR = "for.txt"  # in a learner's released feedback: the arrival it grades
# Every hand-in is kept; per learner and part at most these many, and bytes, so that no loop of a
# learner's fills the disk (a real hand-in of part one is about 25 KiB zipped)
MAX_HAND_INS = 100
MAX_KEPT_BYTES = 64 * 2**20


def outbound(part):
    """EXCHANGE/outbound/<part>: one zip per released edition."""
    return os.path.join(paths.EXCHANGE, "outbound", part)


def inbound(part, student=""):
    """EXCHANGE/inbound/<part>[/<student>]: the hand-ins as they arrived."""
    return os.path.join(paths.EXCHANGE, "inbound", part, student)


def feedback(part, student=""):
    """EXCHANGE/feedback/<part>[/<student>]: released feedback pages."""
    return os.path.join(paths.EXCHANGE, "feedback", part, student)


def arrival_name(moment):
    """An inbound zip's name for a naive UTC moment."""
    return moment.strftime(ARRIVAL) + ".zip"


def arrival(name):
    """The naive UTC moment an inbound zip's name says, or None for any other name."""
    try:
        return datetime.datetime.strptime(name.removesuffix(".zip"), ARRIVAL)
    except ValueError:
        return None
