"""The in-browser edition's hand-ins in the course's class: `make collect` takes each learner's
zip from downloaded/<part>/archive/ into submitted/ (nbgrader zip_collect), sets unsafe zips
aside, and nbgrader grades what it collected. (The site itself: tests/lite/test_site.py.)
"""

import datetime
import os
import shutil
import stat
import subprocess
import zipfile

import nbformat
import pytest

from grading.authoring import course
from grading.paths import ROOT


def collect_and_grade(zip_path, student, where=ROOT):
    """Put a hand-in zip where docs/browser.md says in the class folder `where` (the course's
    own, or a class of a test's own), run `make collect` on that class, grade it with plain
    nbgrader; returns (files collected, score, max score). The zip is removed afterwards."""
    from nbgrader.api import Gradebook

    own = where != ROOT
    env = dict(os.environ, ATTENTION_COURSE=where) if own else None
    archive = os.path.join(where, "downloaded", "attention", "archive")
    os.makedirs(archive, exist_ok=True)
    placed = os.path.join(archive, f"{student}.zip")
    shutil.copy(zip_path, placed)
    os.utime(placed, (ZIP_TIME.timestamp(), ZIP_TIME.timestamp()))  # as the LMS's download left it
    try:
        done = subprocess.run(
            ["make", "collect", "FORCE=1"], cwd=ROOT, capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    finally:
        os.remove(placed)
    collected = os.path.join(where, "submitted", student, "attention")
    found = sorted(
        os.path.relpath(os.path.join(d, n), collected).replace(os.sep, "/")
        for d, _, names in os.walk(collected)
        for n in names
    )
    graded = course.nbgrader(
        "autograde", "attention", "--student", student, "--force", course=where if own else None
    )
    assert graded.returncode == 0, graded.stdout[-2000:] + graded.stderr[-2000:]
    with Gradebook(f"sqlite:///{os.path.join(where, 'records', 'gradebook.db')}") as gb:
        submission = gb.find_submission("attention", student)
        return found, submission.score, submission.max_score


ZIP_TIME = datetime.datetime(2026, 12, 9, 8, 30, tzinfo=datetime.UTC)  # a hand-in zip's time


def hand_in_time(student, part="attention"):
    """The time nbgrader's timestamp.txt gives a collected submission, in UTC."""
    from nbgrader.utils import parse_utc

    from grading import classroom

    with open(os.path.join(classroom.SUBMITTED, student, part, "timestamp.txt")) as f:
        return parse_utc(f.read()).replace(tzinfo=datetime.UTC)


def notebook_points(path):
    """The points of a master notebook's graded cells, from their nbgrader metadata."""
    cells = nbformat.read(path, 4).cells
    return sum(c.metadata.get("nbgrader", {}).get("points", 0) for c in cells)


@pytest.mark.nbgrader
def test_a_hand_in_zip_is_collected_and_graded(tmp_path, monkeypatch):
    """A learner's hand-in zip put in downloaded/attention/archive/<student>.zip: `make collect`
    (nbgrader zip_collect) fills submitted/<student>/attention/ with exactly its files, and
    nbgrader autograde gives it full marks."""
    import checkpoints
    from grading import classroom

    student = "zip-learner"
    course.release()
    browser = tmp_path / "browser-storage"
    shutil.move(classroom.write_submission(student), browser)
    shutil.rmtree(os.path.join(classroom.SUBMITTED, student))
    monkeypatch.chdir(browser)
    checkpoints.hand_in()
    with zipfile.ZipFile(browser / "hand-in-attention.zip") as z:
        handed_in = sorted(z.namelist())
    found, score, max_score = collect_and_grade(browser / "hand-in-attention.zip", student)
    assert found == sorted(handed_in + ["timestamp.txt"]) and len(handed_in) == 12
    assert hand_in_time(student) == ZIP_TIME  # nbgrader's timestamp.txt: the zip's own time
    assert max_score == pytest.approx(39) and score == pytest.approx(max_score)


def test_collect_without_zips_says_where_they_go(tmp_path, monkeypatch):
    """make collect with an empty (or no) archive folder names the folder, and runs nothing."""
    from grading import paths
    from grading.nbgrader import collect

    monkeypatch.setattr(paths, "COURSE", str(tmp_path))
    with pytest.raises(SystemExit, match=r"put them in downloaded/xslm/archive/<student>\.zip"):
        collect.collect("xslm")
    with pytest.raises(SystemExit, match="no part 'part3'"):
        collect.collect("part3")


@pytest.mark.nbgrader
def test_hostile_zips_are_set_aside_and_the_class_is_still_collected(tmp_path):
    """Zips whose entries climb out (../), start at /, hide another archive or are no zip at all
    are moved to downloaded/attention/refused/ with the reason printed; nothing lands outside
    the submissions, and the honest zip beside them is collected. A zip holding its own
    timestamp.txt (a file or a folder) is collected with the zip's time, not one it wrote, and
    a zip's "extracted/<someone>/" entries never reach another student's submission."""
    from grading import classroom

    course.release()
    canary = f"canary-{os.getpid()}.txt"
    zips = {
        "climber": {f"../../../../{canary}": "climbed out", "model.py": "import math\n"},
        "absolute": {f"/tmp/{canary}": "absolute"},
        "nested": {"inner.zip": "PK", "model.py": "import math\n"},
        "honest": {"model.py": "import math\n"},
        "forger": {"model.py": "import math\n", "timestamp.txt": "2000-01-01 00:00:00"},
        "stamper": {"model.py": "import math\n", "timestamp.txt/notes.md": "a folder"},
        "planter": {"model.py": "import math\n", "extracted/honest/model.py": "# planted\n",
                    "extracted/ghost/model.py": "# a student with no zip\n"},
        "deep": {"model.py": "import math\n", "/".join(["d"] * 2100) + "/notes.md": "deep"},
        "zeros": {"model.py": "import math\n", "outputs/zeros.txt": bytes(190 * 2**20)},
    }  # fmt: skip
    modes = {  # entries whose mode the zip sets: a locked outputs/ before its file, a set-uid file
        "locked": [("outputs/", stat.S_IFDIR | 0o000), ("outputs/02-scale.txt", 0o100644),
                   ("model.py", 0o100644)],
        "readonly": [("outputs/", stat.S_IFDIR | 0o500), ("outputs/02-scale.txt", 0o100644),
                     ("model.py", 0o100644)],
        "setuid": [("model.py", stat.S_IFREG | 0o4777)],
    }  # fmt: skip
    archive = os.path.join(ROOT, "downloaded", "attention", "archive")
    refused = os.path.join(ROOT, "downloaded", "attention", "refused")
    os.makedirs(archive, exist_ok=True)
    for student, entries in zips.items():
        with zipfile.ZipFile(
            os.path.join(archive, f"{student}.zip"), "w", zipfile.ZIP_DEFLATED
        ) as z:
            for name, text in entries.items():
                z.writestr(name, text)
        os.utime(os.path.join(archive, f"{student}.zip"), (ZIP_TIME.timestamp(),) * 2)
    for student, entries in modes.items():
        with zipfile.ZipFile(os.path.join(archive, f"{student}.zip"), "w") as z:
            for name, mode in entries:
                entry = zipfile.ZipInfo(name)
                entry.external_attr = mode << 16 | (0x10 if name.endswith("/") else 0)
                z.writestr(entry, "" if name.endswith("/") else "import math\n")
        os.utime(os.path.join(archive, f"{student}.zip"), (ZIP_TIME.timestamp(),) * 2)
    with open(os.path.join(archive, "not-a-zip.zip"), "w") as f:
        f.write("just text")
    try:
        done = subprocess.run(
            ["make", "collect", "FORCE=1"], cwd=ROOT, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        set_aside = ["absolute", "climber", "deep", "nested", "not-a-zip", "zeros"]
        assert sorted(os.listdir(refused)) == sorted(
            [f"{s}.zip" for s in set_aside] + [f"{s}.zip.why.txt" for s in set_aside]
        )
        assert "deep.zip set aside" in done.stdout and "folders deep" in done.stdout
        assert "zeros.zip set aside" in done.stdout and "unpacks to more than" in done.stdout
        for student in ("locked", "readonly", "setuid"):  # collected, with the course's modes
            folder = os.path.join(classroom.SUBMITTED, student, "attention")
            found = {os.path.relpath(os.path.join(d, n), folder): stat.S_IMODE(os.lstat(
                         os.path.join(d, n)).st_mode) for d, ds, fs in os.walk(folder)
                     for n in ds + fs}  # fmt: skip
            expected = {"model.py": 0o644, "timestamp.txt": 0o644}
            if student != "setuid":
                expected |= {"outputs": 0o755, "outputs/02-scale.txt": 0o644}
            assert found == expected, student
        assert "climber.zip set aside" in done.stdout and "would land outside" in done.stdout
        assert "it holds another archive, 'inner.zip'" in done.stdout
        assert "not-a-zip.zip set aside" in done.stdout and "it is not a zip file" in done.stdout
        honest = os.path.join(classroom.SUBMITTED, "honest", "attention")
        assert sorted(os.listdir(honest)) == ["model.py", "timestamp.txt"]
        assert hand_in_time("forger") == ZIP_TIME  # its own timestamp.txt was not collected
        assert hand_in_time("stamper") == ZIP_TIME  # nor a folder of that name
        assert open(os.path.join(honest, "model.py")).read() == "import math\n"  # not planted
        assert not os.path.exists(os.path.join(classroom.SUBMITTED, "ghost"))
        for student in ("climber", "absolute", "nested"):
            assert not os.path.exists(os.path.join(classroom.SUBMITTED, student))
        extracted = os.path.join(ROOT, "downloaded", "attention", "extracted", "climber")
        landings = [os.path.join(extracted, *[".."] * up, canary) for up in range(8)]
        assert not [p for p in landings + [f"/tmp/{canary}"] if os.path.exists(p)]
    finally:
        shutil.rmtree(refused, ignore_errors=True)
        for name in os.listdir(archive):
            os.remove(os.path.join(archive, name))
        for student in ("honest", "forger", "stamper", "planter", "locked", "readonly", "setuid"):
            shutil.rmtree(os.path.join(classroom.SUBMITTED, student), ignore_errors=True)
