"""make clean (issue 21): what is built goes; a class — submissions, hand-ins, results, gradebook,
tables — stays unless FORCE=1, and make says in one line what it kept.

Run on a course folder of its own (make -C tmp -f Makefile), never on the checkout's."""

import os
import subprocess

from grading.paths import ROOT

CLASS = [
    "submitted/ana/attention/01-softmax.ipynb",
    "submitted/ana/xslm/engine.py",
    "downloaded/attention/archive/ana.zip",
    "exchange/inbound/attention/ana/20261206T000000.000000Z.zip",
    "autograded/ana/attention/01-softmax.ipynb",
    "judged/ana/graded.json",
    "feedback/ana/attention/01-softmax.html",
    "records/gradebook.db",
    "records/grades.csv",
    "gradebook.db",
    "grades.csv",
    "grades-xslm.csv",
    "gradebook-export.csv",
]
BUILT = [
    "release/attention/01-softmax.ipynb",
    "release-ko/attention/01-softmax.ipynb",
    "build/editions/ko/attention/01-softmax.ipynb",
    "site/index.html",
    "demo/submitted/correct/attention/model.py",
    "demo/records/gradebook.db",
    "demo/records/grades.csv",
    ".pytest_cache/v/cache/lastfailed",
]


def course(folder, paths):
    """Write each path under folder, its own path as its content; {path: bytes}."""
    written = {}
    for path in paths:
        os.makedirs(os.path.dirname(os.path.join(folder, path)) or folder, exist_ok=True)
        with open(os.path.join(folder, path), "wb") as f:
            f.write(path.encode() + b"\n")
        written[path] = path.encode() + b"\n"
    return written


def on_disk(folder, paths):
    """{path: bytes} of those paths that exist under folder."""
    found = {}
    for path in paths:
        if os.path.exists(os.path.join(folder, path)):
            with open(os.path.join(folder, path), "rb") as f:
                found[path] = f.read()
    return found


def make_clean(folder, *settings):
    done = subprocess.run(
        ["make", "-s", "--no-print-directory", "-C", str(folder), "-f",
         os.path.join(ROOT, "Makefile"), "clean", *settings],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_clean_keeps_the_class_and_says_so(tmp_path):
    kept = course(tmp_path, CLASS)
    course(tmp_path, BUILT)
    said = make_clean(tmp_path)
    assert on_disk(tmp_path, CLASS) == kept
    assert on_disk(tmp_path, BUILT) == {}
    assert not os.path.exists(tmp_path / "demo")  # the demo's class is built, not a class
    lines = said.strip().splitlines()
    assert len(lines) == 1 and "FORCE=1" in lines[0]
    for top in ("submitted", "downloaded", "records", "gradebook.db", "grades.csv"):
        assert top in lines[0].split()


def test_clean_force_removes_the_class_too(tmp_path):
    course(tmp_path, CLASS + BUILT)
    make_clean(tmp_path, "FORCE=1")
    assert on_disk(tmp_path, CLASS + BUILT) == {}
    assert sorted(os.listdir(tmp_path)) == []


def test_clean_without_a_class_says_nothing_of_one(tmp_path):
    course(tmp_path, BUILT)
    assert make_clean(tmp_path) == ""
    assert on_disk(tmp_path, BUILT) == {}
