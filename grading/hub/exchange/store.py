"""The exchange's store in paths.EXCHANGE: what the service and the instructor's commands keep.

Only the course user reads or writes here (the folder is 0700); nothing in it is a learner's to
name or place. Each function takes its names from the registry (a part) and the hub (a learner),
never from a path a learner gave.
"""

import datetime
import functools
import io
import os
import secrets
import shutil
import tempfile
import zipfile

from grading import paths
from grading.hub import exchange
from grading.nbgrader import hand_ins, unpack
from grading.parts import PARTS

FOLDER_MODE = 0o700
DISK_MARGIN = 256 * 2**20  # what the class's grading needs left on the disk, kept free


def now():
    """The service's clock, naive UTC (as nbgrader keeps times)."""
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


def folder(path):
    """path made (0700, with its parents) if missing; path."""
    os.makedirs(path, mode=FOLDER_MODE, exist_ok=True)
    return path


def write_new(path, data):
    """Write data to path through a temporary name beside it: a reader sees all of it or none."""
    part = f"{path}.{secrets.token_hex(4)}.part"
    with open(part, "xb") as f:
        f.write(data)
    os.replace(part, path)


# ── release ──
def folder_zip(top):
    """The bytes of a zip of every file under top, named relative to it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for where, dirs, files in os.walk(top):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(where, name)
                z.write(path, os.path.relpath(path, top))
    return buffer.getvalue()


def release(part, editions):
    """Zip part's student edition of each edition built (paths.release) into outbound; the
    editions released. The release folders are the instructor's, made by `make release`."""
    done = []
    for edition in editions:
        built = paths.release(part, edition)
        if os.path.isdir(built):
            write_new(os.path.join(folder(exchange.outbound(part)), f"{edition}.zip"),
                      folder_zip(built))  # fmt: skip
            done.append(edition)
    return done


def unrelease(part):
    """Take part's released zips away (the release folders stay the instructor's)."""
    if part in PARTS:
        shutil.rmtree(exchange.outbound(part), ignore_errors=True)


def released():
    """{part: [editions]} released to learners."""
    found = {}
    for part in PARTS:
        try:
            names = sorted(os.listdir(exchange.outbound(part)))
        except FileNotFoundError:
            continue
        editions = [n.removesuffix(".zip") for n in names if n.endswith(".zip")]
        if editions:
            found[part] = editions
    return found


def released_zip(part, edition):
    """The path of part's released zip in edition, or None when it was not released (a name
    that is not one of the released editions, a path say, is never joined to anything)."""
    if edition not in released().get(part, []):
        return None
    return os.path.join(exchange.outbound(part), f"{edition}.zip")


def zip_notebooks(path):
    """The notebooks at the top of a zip the course made or screened (read once per version of
    the file: the Assignments tab asks at every refresh, for every hand-in kept)."""
    st = os.stat(path)
    return list(notebooks_of(path, st.st_mtime_ns, st.st_size))


@functools.lru_cache(maxsize=4096)
def notebooks_of(path, mtime_ns, size):
    """zip_notebooks' answer for one version of a file (path, its time and size)."""
    with zipfile.ZipFile(path) as z:
        return tuple(sorted(n for n in z.namelist() if "/" not in n and n.endswith(".ipynb")))


# ── hand-ins ──
def receive(part, student, data, moment=None):
    """Keep a learner's hand-in of part as inbound/<part>/<student>/<arrival>.zip, its time the
    service's own; unpack.Refused (nothing kept) when the zip is one make collect would refuse."""
    moment = moment or now()
    mine = folder(exchange.inbound(part, student))
    kept = hand_ins_of(part, student)
    if len(data) > unpack.MAX_BYTES:
        raise unpack.Refused(f"it is larger than {unpack.MAX_BYTES // 2**20} MiB")
    kept_bytes = sum(os.path.getsize(path) for _, path in kept)
    if len(kept) >= exchange.MAX_HAND_INS or kept_bytes + len(data) > exchange.MAX_KEPT_BYTES:
        raise unpack.Refused("this part's earlier hand-ins fill your share of the exchange: "
                             "ask your instructor")  # fmt: skip
    if shutil.disk_usage(mine).free < len(data) + DISK_MARGIN:
        raise unpack.Refused("the exchange's disk is full: tell your instructor")
    arriving = os.path.join(mine, f".arriving-{secrets.token_hex(8)}")
    with open(arriving, "xb") as f:
        f.write(data)
    try:  # unpacked once, as make collect unpacks it, and thrown away: a zip refused there is
        with tempfile.TemporaryDirectory(dir=mine) as scratch:  # refused here, nothing kept
            unpack.unpack(arriving, os.path.join(scratch, "trial"))
        while os.path.exists(os.path.join(mine, exchange.arrival_name(moment))):
            moment += datetime.timedelta(microseconds=1)  # two in one microsecond: both kept
        kept = os.path.join(mine, exchange.arrival_name(moment))
        os.rename(arriving, kept)
    except BaseException:
        os.remove(arriving)
        raise
    os.utime(kept, ns=(nanoseconds(moment),) * 2)
    return moment


def hand_ins_of(part, student):
    """[(arrival, path)] of a learner's hand-ins of part, oldest first."""
    try:
        names = os.listdir(exchange.inbound(part, student))
    except FileNotFoundError:
        return []
    kept = [(exchange.arrival(n), os.path.join(exchange.inbound(part, student), n)) for n in names]
    return sorted((moment, path) for moment, path in kept if moment is not None)


def latest(part):
    """{student: (arrival, path)} of each learner's latest hand-in of part."""
    try:
        students = sorted(os.listdir(exchange.inbound(part)))
    except FileNotFoundError:
        return {}
    found = {s: hand_ins_of(part, s) for s in students if paths.STUDENT_ID.fullmatch(s)}
    return {s: kept[-1] for s, kept in found.items() if kept}


def archived(part, student):
    """downloaded/<part>/archive/<student>.zip: where make collect takes a learner's zip from."""
    return os.path.join(paths.downloaded(part), f"{student}.zip")


def is_placed(part, student, moment):
    """Whether the archive holds the learner's hand-in of that arrival already."""
    try:
        return os.lstat(archived(part, student)).st_mtime_ns == nanoseconds(moment)
    except FileNotFoundError:
        return False


def place_for_collect(part, student, moment, path):
    """Copy a hand-in to downloaded/<part>/archive/<student>.zip with its arrival as its time
    (what make collect takes as the hand-in time). A zip there that is none of the learner's
    hand-ins (one from an LMS, say) is moved to downloaded/<part>/replaced/ first: nothing lost."""
    target = archived(part, student)
    folder(os.path.dirname(target))
    arrivals = {nanoseconds(m) for m, _ in hand_ins_of(part, student)}
    try:
        foreign = os.lstat(target).st_mtime_ns not in arrivals
    except FileNotFoundError:
        foreign = False
    if foreign:
        aside = folder(paths.downloaded(part, "replaced"))
        os.rename(target, os.path.join(aside, f"{student}.{now().strftime(exchange.ARRIVAL)}.zip"))
    with open(path, "rb") as f:
        write_new(target, f.read())
    os.utime(target, ns=(nanoseconds(moment),) * 2)


def nanoseconds(moment):
    """A naive UTC moment as whole nanoseconds since the epoch (a file's exact time)."""
    since = moment - datetime.datetime(1970, 1, 1)
    return (since.days * 86400 + since.seconds) * 10**9 + since.microseconds * 1000


# ── feedback ──
def release_feedback(part, students=None):
    """Copy each learner's feedback pages of part (feedback/<student>/<part>/), or only those of
    students, into the store with the arrival of the hand-in they grade; whose were released."""
    collected = hand_ins.collected(part)
    done = []
    found = sorted(os.listdir(paths.FEEDBACK)) if os.path.isdir(paths.FEEDBACK) else []
    for student in [s for s in found if students is None or s in students]:
        pages = os.path.join(paths.FEEDBACK, student, part)
        if not paths.STUDENT_ID.fullmatch(student) or not os.path.isdir(pages):
            continue
        moment = collected.get(student, (None, None))[0]
        staged = folder(exchange.feedback(part, f".{student}.{secrets.token_hex(4)}"))
        for name in sorted(os.listdir(pages)):
            if name.endswith(".html") and os.path.isfile(os.path.join(pages, name)):
                shutil.copyfile(os.path.join(pages, name), os.path.join(staged, name))
        with open(os.path.join(staged, exchange.FEEDBACK_FOR), "w", encoding="utf-8") as f:
            f.write(moment.strftime(exchange.ARRIVAL) if moment else "")
        mine = exchange.feedback(part, student)
        if os.path.isdir(mine):
            shutil.rmtree(mine)
        os.rename(staged, mine)
        done.append(student)
    return done


def feedback_for(part, student):
    """(arrival of the hand-in it grades or None, [page names]) of a learner's released
    feedback, or None when none was released."""
    mine = exchange.feedback(part, student)
    if part not in PARTS or not os.path.isdir(mine):
        return None
    with open(os.path.join(mine, exchange.FEEDBACK_FOR), encoding="utf-8") as f:
        moment = exchange.arrival(f.read().strip())
    return moment, sorted(n for n in os.listdir(mine) if n.endswith(".html"))


def feedback_zip(part, student):
    """The bytes of a zip of a learner's released feedback pages and for.txt, or None."""
    mine = exchange.feedback(part, student)
    return folder_zip(mine) if feedback_for(part, student) else None
