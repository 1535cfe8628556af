"""A hostile class graded like any other:
no attack gains, none is dropped, nothing escapes its folder.

One module-scoped run: the student edition, the hostile class of tests/fixtures/hostile.py plus
the two honest references, a loopback listener for the network attack, a snapshot of the
repository, then grading.classroom.autograde() over everyone and grading.classroom.grades().

    HOSTILE_ONLY=h-gr-judge,h-ref-gc pytest -m hostile -s    # a quick run on a few submissions
"""

import hashlib
import os
import re
import shutil
import socket
import threading
import time

import pytest

from grading import classroom
from grading.authoring import course
from grading.authoring.mistakes import BUGGY
from grading.parts import ASSIGNMENT
from grading.paths import ROOT
from tests.fixtures import hostile

pytestmark = [pytest.mark.nbgrader, pytest.mark.hostile]

CLASS = hostile.selected()
ATTACKS = [a for a in CLASS if a in hostile.ATTACKS]
NOISE = [a for a in CLASS if a in hostile.NOISE]
REFERENCES = {"correct": None, "wrong-softmax": {"softmax": BUGGY["softmax.divide_by_max"][1]}}
MAX_SCORE = 39.0

# What grading legitimately writes (or what is not the course's):
# left out of the repository snapshot.
NOT_SNAPSHOT = {
    "submitted",
    "autograded",
    "feedback",
    "judged",
    "exchange",
    "records",
    "gradebook.db",
    "grades.csv",
    "gradebook-export.csv",
    "intake.json",
    ".venv",
    ".git",
    "__pycache__",
    ".pytest_cache",
    ".nbgrader.log",
    "test-artifacts",
    "workspace",
}
HOME = os.path.expanduser("~")


def repository_files(root=ROOT):
    """{relative path: bytes} of every file under root, except NOT_SNAPSHOT and canaries
    (symlinks not followed).
    """
    files = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in NOT_SNAPSHOT]
        for name in names:
            path = os.path.join(folder, name)
            if (
                name not in NOT_SNAPSHOT
                and not name.startswith("HOSTILE-")
                and os.path.isfile(path)
                and not os.path.islink(path)
            ):
                with open(path, "rb") as f:
                    files[os.path.relpath(path, root)] = f.read()
    return files


def digests(files):
    return {path: hashlib.sha256(data).hexdigest() for path, data in files.items()}


def canaries(root):
    """Paths of every HOSTILE-* file or folder under root (not following symlinks,
    skipping .git and .venv).
    """
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".venv")]
        found += [os.path.join(folder, n) for n in names + dirs if n.startswith("HOSTILE-")]
    return found


def top_level_canaries(folder):
    """This class's canaries directly in folder
    (other HOSTILE-* names there are someone else's business).
    """
    mine = {hostile.canary(a.student) for a in CLASS}
    try:
        return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n in mine)
    except OSError:
        return []


def remove_canaries():
    """Delete this class's canaries in /tmp and $HOME, and HOSTILE-* files under the course root."""
    for path in top_level_canaries("/tmp") + top_level_canaries(HOME) + canaries(ROOT):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        elif os.path.lexists(path):
            os.remove(path)


class Watcher:
    """Polls /tmp and $HOME every 0.2 s for this class's canaries
    (caught even if something removes them later).
    """

    def __init__(self, folders=("/tmp", HOME)):
        self.folders, self.seen = folders, set()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def watch(self):
        while not self.stopping.wait(0.2):
            for folder in self.folders:
                self.seen.update(top_level_canaries(folder))

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=5)
        for folder in self.folders:
            self.seen.update(top_level_canaries(folder))
        return sorted(self.seen)


class Listener:
    """A loopback TCP server on a free port that records who connected and what they sent."""

    def __init__(self):
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections = []  # [(peer address, first bytes received)]
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while not self.stopping.is_set():
            try:
                conn, peer = self.server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    data = conn.recv(200)
                except OSError:
                    data = b""
            self.connections.append((peer, data))

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=5)
        self.server.close()


def gradebook_rows():
    """{student: (score, max score, [(grade id, auto score, max score)])}
    straight from nbgrader's Gradebook.
    """
    from nbgrader.api import Gradebook

    rows = {}
    with Gradebook(f"sqlite:///{os.path.join(ROOT, 'records', 'gradebook.db')}") as gb:
        for student in classroom.students():
            try:
                sub = gb.find_submission(ASSIGNMENT, student)
            except Exception:
                continue
            grades = [
                (g.name, g.auto_score, g.max_score) for nb in sub.notebooks for g in nb.grades
            ]
            rows[student] = (sub.score, sub.max_score, grades)
    return rows


def all_grades():
    """[(student, grade id, auto score, max score)] for every grade row in the gradebook."""
    from nbgrader.api import Grade, Gradebook

    with Gradebook(f"sqlite:///{os.path.join(ROOT, 'records', 'gradebook.db')}") as gb:
        return [(g.student.id, g.name, g.auto_score, g.max_score) for g in gb.db.query(Grade).all()]


def summary(rows, attacks, problems, escaped):
    """A compact table of what each submission got, against its base's honest score
    (printed with -s).
    """
    lines = [
        "honest = min(HONEST[base], what that base's honest reference scored in this run)",
        f"{'student':28} {'base':13} {'honest':>6} {'score':>6}  notes",
    ]
    for student, attack in sorted(attacks.items()):
        score = rows.get(student, (None,))[0]
        limit = min(hostile.HONEST[attack.base], rows.get(attack.base, (99.0,))[0])
        notes = []
        if score is not None and score > limit + 1e-9:
            notes.append(f"GAINED {score - limit:+g}")
        elif score is not None and score < limit - 1e-9:
            notes.append(f"lost {limit - score:g}")
        if student not in rows:
            notes.append("DROPPED")
        if any(p.startswith("nbgrader could not grade") for p in problems.get(student, [])):
            notes.append("nbgrader failed")
        notes += escaped.get(student, [])
        lines.append(
            f"{student:28} {attack.base:13} {limit:6.1f} "
            f"{score if score is not None else float('nan'):6.1f}  {'; '.join(notes)}"
        )
    if "?" in escaped:
        lines.append(f"unattributed: {'; '.join(escaped['?'])}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def graded():
    """Release, write the class, snapshot, autograde everyone, export grades;
    restore the checkout after.
    """
    remove_canaries()
    for stale in ("gradebook.db", "intake.json", "grades.csv"):
        if os.path.exists(os.path.join(ROOT, stale)):
            os.remove(os.path.join(ROOT, stale))
    for stale in ("submitted", "autograded", "feedback", "judged", "records"):
        shutil.rmtree(os.path.join(ROOT, stale), ignore_errors=True)
    course.release()  # also registers the assignment in the new gradebook
    listener = Listener()
    attacks = hostile.write_hostile_class(ROOT, port=listener.port, only=[a.student for a in CLASS])
    for student, replace in REFERENCES.items():
        classroom.write_submission(student, replace=replace)
    before = repository_files()
    remove_canaries()
    watcher = Watcher()
    start = time.perf_counter()
    try:
        classroom.autograde()
        elapsed = time.perf_counter() - start
        print(
            f"\nautograded {len(attacks) + len(REFERENCES)} submissions in {elapsed:.0f} s",
            flush=True,
        )
        try:
            classroom.grades()
            export_error = None
        except Exception as err:  # an attack may break the export; the tests say so
            export_error = f"{type(err).__name__}: {err}"
        time.sleep(6)  # let a child that outlived its kernel do its worst
        after = repository_files()
        rows = gradebook_rows()
        problems = {student: classroom.problems_of(student) for student in classroom.students()}
        old, new = digests(before), digests(after)
        changed = sorted(p for p in set(old) | set(new) if old.get(p) != new.get(p))
        escaped_files = [p for p in canaries(ROOT) if not own_folder(p)] + watcher.stop()
        escaped = {}
        for path in escaped_files:
            escaped.setdefault(owner(path), []).append(f"wrote {path}")
        for peer, data in listener.connections:
            escaped.setdefault(data.decode(errors="replace") or "?", []).append(
                f"connected from {peer}"
            )
        for path in changed:  # a changed file names its writer if it holds a canary
            found = re.search(rb"HOSTILE-(\S+)-canary", after.get(path, b""))
            escaped.setdefault(found.group(1).decode() if found else "?", []).append(
                f"changed {path}"
            )
        print(
            summary(
                rows,
                {
                    **attacks,
                    **{
                        s: hostile.Attack(s, s, "reference", "honest reference") for s in REFERENCES
                    },
                },
                problems,
                escaped,
            )
        )
        if export_error:
            print(f"grades() failed: {export_error}")
        yield {
            "attacks": attacks,
            "rows": rows,
            "problems": problems,
            "changed": changed,
            "escaped_files": escaped_files,
            "connections": list(listener.connections),
            "export_error": export_error,
            "grades": all_grades(),
            "elapsed": elapsed,
        }
    finally:
        watcher.stop()
        listener.stop()
        remove_canaries()
        for path, data in before.items():  # undo whatever an attack changed in the checkout
            full = os.path.join(ROOT, path)
            if not os.path.exists(full) or open(full, "rb").read() != data:
                with open(full, "wb") as f:
                    f.write(data)


def own_folder(path):
    """True when a canary sits in its own student's submitted/ or autograded/ folder."""
    student = owner(path)
    rel = os.path.relpath(path, ROOT).split(os.sep)
    return len(rel) > 2 and rel[0] in ("submitted", "autograded") and rel[1] == student


def owner(path):
    """The student a canary names: HOSTILE-<student>-canary -> <student>."""
    name = os.path.basename(path)
    return (
        name[len("HOSTILE-") : -len("-canary")]
        if name.endswith("-canary")
        else name[len("HOSTILE-") :]
    )


def honest(graded, attack):
    """The base's honest score, or what its honest reference really scored here if that is lower."""
    measured = graded["rows"].get(attack.base, (hostile.honest_score(attack),))[0]
    return min(hostile.honest_score(attack), measured)


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.student)
def test_attack_gains_nothing(graded, attack):
    """No attack scores more than its base scores honestly
    (39 for correct, 33 for wrong-softmax).
    """
    assert attack.student in graded["rows"], f"{attack.student} has no submission in the gradebook"
    score, limit = graded["rows"][attack.student][0], honest(graded, attack)
    assert score <= limit + 1e-9, (
        f"{attack.student} ({attack.how}) scored {score}, honestly {limit}"
    )


@pytest.mark.parametrize("attack", ATTACKS + NOISE, ids=lambda a: a.student)
def test_attack_is_graded(graded, attack):
    """Every submission, however hostile, has a gradebook submission worth the full 39 points."""
    assert attack.student in graded["rows"], f"{attack.student} was dropped from the gradebook"
    assert graded["rows"][attack.student][1] == MAX_SCORE


@pytest.mark.parametrize("attack", NOISE, ids=lambda a: a.student)
def test_honest_noise_keeps_full_marks(graded, attack):
    """Lots of output, a line on stderr, a chatty softmax: ordinary learner habits cost nothing."""
    assert graded["rows"][attack.student][0] == MAX_SCORE


def test_references_score_honestly(graded):
    """Graded beside the hostile class, the honest references still score 39 and 33."""
    assert graded["rows"]["correct"][0] == hostile.HONEST["correct"]
    assert graded["rows"]["wrong-softmax"][0] == hostile.HONEST["wrong-softmax"]


def test_nothing_written_outside(graded):
    """No repository file changed, no canary outside its own student's folders,
    /tmp or $HOME, no connection.
    """
    assert graded["changed"] == [], f"repository files changed while grading: {graded['changed']}"
    assert graded["escaped_files"] == [], (
        f"canaries outside their submission: {graded['escaped_files']}"
    )
    assert graded["connections"] == [], (
        f"connections reached the loopback listener: {graded['connections']}"
    )


def test_gradebook_intact(graded):
    """Every grade's auto score lies between 0 and its cell's maximum
    (no one wrote the gradebook).
    """
    bad = [g for g in graded["grades"] if g[2] is not None and not 0 <= g[2] <= g[3]]
    assert bad == [], f"grades outside [0, max]: {bad[:10]}"


def test_grades_export(graded):
    """grading.classroom.grades() still writes grades.csv after the hostile class was graded."""
    assert graded["export_error"] is None


def test_no_submission_is_refused_by_nbgrader(graded):
    """nbgrader itself graded every submission (intake and the repairs kept each one gradable)."""
    refused = {
        s: p
        for s, ps in graded["problems"].items()
        for p in ps
        if p.startswith("nbgrader could not grade")
    }
    assert refused == {}


def test_every_repair_and_zero_is_said_in_plain_words(graded):
    """The kernel deaths, the stray metadata and the imports beyond math
    each have a sentence for grades.csv.
    """
    expected = {
        "h-res-exit-cell": "the kernel stopped",
        "h-nb-extra-grade-id": "unknown grading id",
        "h-nb-extra-no-grade-id": "grading metadata",
        "h-nb-duplicated": "a second copy of",
        "h-imp-numpy": "import numpy",
        "h-res-systemexit-model": "raised SystemExit",
        "h-nb-invalid-json": "not a readable notebook",
    }
    for student, phrase in expected.items():
        if student in graded["problems"]:
            assert any(phrase in p for p in graded["problems"][student]), (
                student,
                graded["problems"][student],
            )
