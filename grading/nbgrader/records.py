"""The class records (gradebook.db, grades.csv, grades-<part>.csv) live in records/ of the class.

They used to sit at the top of the class folder, which is the repository itself unless
ATTENTION_COURSE names another: beside the course's code and on nbgrader's import path. In a
folder of their own they can be given to the account grading runs as, without giving it the code.
`settle()` moves the records an older version left at the top into records/, with no moment at
which any of them is lost:

1. each old record is hard-linked into a fresh folder beside records/ (the originals stay);
2. that folder is renamed to records/ in one step, so records/ is either absent or complete;
3. only then are the originals unlinked, and only those that are the very file in records/.

A process stopped at any point leaves every record readable in one place or the other, and the
next `settle()` finishes the move. Two processes settling at once are safe: one rename wins, the
other's folder is discarded. What it says goes to stderr: stdout is a grading server's reply
pipe (grading/scale/server.py). Standard library only.
"""

import glob
import os
import shutil
import stat
import sys
import tempfile
import warnings

from grading.paths import COURSE, RECORDS

# A gradebook's journal goes with it: a hot journal left behind would be a lost transaction.
GRADEBOOK_FILES = ("gradebook.db", "gradebook.db-journal", "gradebook.db-wal", "gradebook.db-shm")


def old_records(course=COURSE):
    """The records an older version left at the top of the class folder: their names.

    Only regular files: a link there is nobody's record, and is neither followed nor moved."""
    tables = sorted(os.path.basename(p) for p in glob.glob(os.path.join(course, "grades*.csv")))
    return [n for n in GRADEBOOK_FILES + tuple(tables) if is_file(os.path.join(course, n))]


def is_file(path):
    """Whether path is a regular file itself, not a link to one (False when it is gone)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def settle(course=COURSE, records=RECORDS):
    """Make records/ and move into it what old_records() finds; the names moved."""
    moving = old_records(course)
    if not moving:
        os.makedirs(records, mode=0o700, exist_ok=True)  # grades are the learners': private
        return []
    if not os.path.isdir(records):
        staging = tempfile.mkdtemp(prefix=".records-", dir=course)  # 0700, as makedirs above
        try:
            for name in moving:
                os.link(os.path.join(course, name), os.path.join(staging, name))
            os.rename(staging, records)
        except OSError as err:  # another process is moving them, or made records/ first
            shutil.rmtree(staging)
            if not os.path.isdir(records):  # nobody did: nothing was moved, and the reason is said
                raise SystemExit(f"could not move the class records into {records}: {err}") from err
    moved = []
    for name in moving:
        old, new = os.path.join(course, name), os.path.join(records, name)
        try:
            if not os.path.lexists(new):  # records/ was there already, without this one
                os.link(old, new)
            if os.path.samefile(old, new) and is_file(new):
                os.unlink(old)
                moved.append(name)
                continue
        except FileNotFoundError:
            if not os.path.lexists(old):  # another process's move unlinked it
                continue
        # records/ holds another file of that name: both are kept, and the instructor told
        print(f"{old} is left where it is: {new} is not the same file", file=sys.stderr)
    if moved:
        print(f"The class records moved into {records}: {', '.join(moved)}", file=sys.stderr)
    return moved


def quiet_first_submission_warning():
    """Silence the one SQLAlchemy warning nbgrader raises on every student's first grading.

    nbgrader's Gradebook.add_submission builds the submission from the assignment and then looks
    the student up; that lookup flushes the session while the new SubmittedAssignment (and its
    notebooks) is linked to the assignment but not yet added, and SQLAlchemy 2 says so
    ("Object of type <SubmittedAssignment> not in session, add operation along ... will not
    proceed"). nbgrader adds the submission whole right after, so nothing is lost (the gradebook
    holds every score; tests/grading/nbgrader/test_nbgrader_cli.py). Only that message, raised
    from nbgrader's api module, is silenced: every other warning still shows.
    """
    warnings.filterwarnings(
        "ignore",
        message=r"Object of type <Submitted(Assignment|Notebook)> not in session, add operation",
        module=r"nbgrader\.api",
    )


def one_engine_per_gradebook():
    """Let every nbgrader Gradebook of this process share one SQLAlchemy engine per database.

    nbgrader opens a Gradebook (a new engine) about 37 times per submission it grades, and a new
    engine compiles every query again: a grading server, which grades one submission after
    another, spent a third of its time there. Sharing keeps SQLAlchemy's compiled-query cache; a
    Gradebook's close() still disposes of its connections, as before (the next one reconnects).
    Only the grading servers (grading.scale.server) call this; plain nbgrader is left as it is.
    """
    import functools

    from nbgrader import api

    if not getattr(api.create_engine, "shared", False):
        shared = functools.cache(api.create_engine)
        shared.shared = True
        api.create_engine = shared
        api.Base.metadata.create_all = tables_checked_once(api.Base.metadata)


def tables_checked_once(metadata):
    """metadata.create_all, which asks the database about each of nbgrader's tables (about 20
    queries, every time a Gradebook opens), made one query once every table exists."""
    from sqlalchemy import inspect

    create_all = metadata.create_all

    def create_missing(bind=None, **options):
        if not set(metadata.tables) <= set(inspect(bind).get_table_names()):
            create_all(bind=bind, **options)

    return create_missing
