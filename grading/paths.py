"""Every path of the course in one place: the repository's, and the class's.

The repository (ROOT) holds the code, the master notebooks, the reference and what is built from
them. The class (COURSE: ROOT itself, or the folder ATTENTION_COURSE names, as `make demo` does
with demo/) holds what learners hand in and what grading makes of it:

    submitted/<student>/<part>/      what learners hand in   -> autograded/, feedback/
    judged/<student>/*.json          the judge's verdicts and the problems found
    records/gradebook.db             the SQLite gradebook (or DB_URL)
    records/grades.csv               the tables `make grades` writes (grades-<part>.csv after
                                     the first part); nbgrader/records.py moves older layouts'
    records/exports/<lms>.csv        grades in an LMS's import layout (`make export`)
    downloaded/<part>/archive/       the in-browser edition's hand-in zips (`make collect`)

Standard library only, and it imports nothing of the course: everything else imports it.
"""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COURSE = os.path.abspath(os.environ.get("ATTENTION_COURSE") or ROOT)

# ── the repository ──
NOTEBOOKS = os.path.join(ROOT, "notebooks")  # everything the course's notebooks are made from
# nbgrader's source folder: a folder of master notebooks per part, and nothing else, so that
# nbgrader (and its formgrader) sees the parts as its assignments and nothing more
MASTERS = os.path.join(NOTEBOOKS, "masters")
TEXT_FORMS = os.path.join(NOTEBOOKS, "text")  # the jupytext forms, one folder per part
EDITION_SOURCES = os.path.join(NOTEBOOKS, "editions")  # the translations
EDITIONS_BUILT = os.path.join(ROOT, "build", "editions")  # the notebooks they make
REFERENCE_MODEL = os.path.join(ROOT, "model.py")  # part one's reference
XSLM_REFERENCE = os.path.join(ROOT, "xslm")  # part two's reference files
OUTPUTS = os.path.join(ROOT, "outputs")  # the artifacts the masters write
LEARNER_PACKAGE = os.path.join(ROOT, "checkpoints")
GRADER_CONFIG = os.path.join(ROOT, "grader_config.py")  # nbgrader's configuration of the course
RELEASED = os.path.join(ROOT, "release")  # nbgrader's release folder: the English editions
WORKSPACE = os.path.join(ROOT, "workspace")  # `make lab`
SITE = os.path.join(ROOT, "site")  # `make site`
PYTHON_COPY = os.path.join(ROOT, ".python")  # the interpreter .venv is made from (interpreter.py)
LITE_CACHE = os.path.join(ROOT, ".venv", "lite")  # what the site's build fetched
MATHJAX = os.path.join(ROOT, ".venv", "mathjax")  # for feedback pages offline
POSTGRES = os.path.join(ROOT, ".postgres")  # `make postgres`: the local server's folder
DEMO = os.path.join(ROOT, "demo")  # `make demo`'s class folder


def masters(part):
    """The folder of a part's master notebooks: notebooks/masters/<part>."""
    return os.path.join(MASTERS, part)


def text_forms(part):
    """The folder of a part's jupytext text forms."""
    return os.path.join(TEXT_FORMS, part)


def release(part, edition="en"):
    """Where a part's student edition is released: release/<part>, or release-<edition>/<part>."""
    top = RELEASED if edition == "en" else f"{RELEASED}-{edition}"
    return os.path.join(top, part)


# ── the class ──
SUBMITTED = os.path.join(COURSE, "submitted")
AUTOGRADED = os.path.join(COURSE, "autograded")
FEEDBACK = os.path.join(COURSE, "feedback")
JUDGED = os.path.join(COURSE, "judged")
EXCHANGE = os.path.join(COURSE, "exchange")  # nbgrader's release/collect folder
RECORDS = os.path.join(
    COURSE, "records"
)  # the gradebook and the tables (grading/nbgrader/records.py)
SQLITE_GRADEBOOK = os.path.join(RECORDS, "gradebook.db")
GRADES_CSV = os.path.join(RECORDS, "grades.csv")  # part one's table; another part's: grades_csv()
EXPORTS = os.path.join(RECORDS, "exports")  # `make export`: grades in an LMS's import layout
EXPORT_CSV = "gradebook-export.csv"  # `nbgrader export`, relative to where it runs
# The hub's formgrader service (grading/hub/formgrader.py): the home of its Jupyter server, run as
# the course user, which has none; in records/, which only that account and root can enter
GRADER_HOME = os.path.join(RECORDS, "formgrader-home")
LAB_VIEW = os.path.join(RECORDS, "lab-view.sqlite")  # the hub's live lab view's history


def db_url():
    """The gradebook: DB_URL from the environment, else the SQLite file with a lock timeout.

    SQLite's writers wait up to 5 minutes for each other, so parallel grading never fails on a
    lock; DB_URL can be any SQLAlchemy URL, e.g. PostgreSQL (docs/large-classes.md).
    """
    return os.environ.get("DB_URL") or f"sqlite:///{SQLITE_GRADEBOOK}?timeout=300"


def grades_csv(part):
    """grades-<part>.csv beside grades.csv: the table of a part after the first."""
    return os.path.join(RECORDS, f"grades-{part}.csv")


DOWNLOADED = os.path.join(COURSE, "downloaded")
# A student id: their folder's name in submitted/ (and their zip's in downloaded/), never a path
STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}")
DEADLINES = os.path.join(COURSE, "deadlines.csv")  # the instructor's due dates and late policy
HAND_IN_TIMES = os.path.join(COURSE, "hand-in-times.csv")  # the instructor's, for hand-placed work


def collected_times(part):
    """records/collected-<part>.json: when each learner's zip arrived, as make collect found."""
    return os.path.join(RECORDS, f"collected-{part}.json")


def downloaded(part, kind="archive"):
    """downloaded/<part>/<kind>: the hand-in zips (archive), or the unsafe ones (refused)."""
    return os.path.join(DOWNLOADED, part, kind)
