"""Intake's hold on a submission folder placed in submitted/ by hand (grading/nbgrader/intake.py,
hand_ins.py): the caps a hand-in zip has, plain modes, and a hand-in time the learner did not
write. Folders of the test's own; the class-wide runs are test_classroom_intake.py and the
hostile class."""

import datetime
import json
import os
import stat

import pytest

from grading.nbgrader import hand_ins, intake, unpack

LEARNERS_TIME = "2026-12-01 09:00:00"  # what a learner's own timestamp.txt claims
ZIP_TIME = datetime.datetime(2026, 12, 9, 8, 30, 5, 250000)  # naive UTC, as make collect records


@pytest.fixture
def submission(tmp_path, monkeypatch):
    """submitted/ana/attention/ of a class of the test's own: a model.py, outputs/, and the
    learner's own timestamp.txt; no hand-in-times.csv and nothing collected yet."""
    monkeypatch.setattr(hand_ins, "HAND_IN_TIMES", str(tmp_path / "hand-in-times.csv"))
    monkeypatch.setattr(hand_ins, "collected_times", lambda part: str(tmp_path / f"c-{part}.json"))
    folder = tmp_path / "submitted" / "ana" / "attention"
    (folder / "outputs").mkdir(parents=True)
    (folder / "model.py").write_text("import math\n")
    (folder / "outputs" / "02-scale.txt").write_text("0.125\n")
    (folder / "timestamp.txt").write_text(LEARNERS_TIME)
    return folder


def aside(folder):
    return folder.parent / "attention.set-aside"


def time_read_by_nbgrader(folder):
    """The time nbgrader will take for the submission: its timestamp.txt, or None."""
    from nbgrader.utils import parse_utc

    path = folder / "timestamp.txt"
    return parse_utc(path.read_text()).replace(tzinfo=None) if path.exists() else None


def test_a_learners_own_timestamp_is_set_aside_and_the_time_is_unknown(submission):
    problems = intake.intake(str(submission))
    assert time_read_by_nbgrader(submission) is None
    assert (aside(submission) / "timestamp.txt").read_text() == LEARNERS_TIME  # kept
    assert any("timestamp.txt was not used" in p and "unknown" in p for p in problems)


def test_the_instructors_time_is_taken_over_the_learners(submission):
    with open(hand_ins.HAND_IN_TIMES, "w") as f:
        f.write("part,student,handed_in\nattention,ana,2026-12-10T18:00+09:00\n")
    problems = intake.intake(str(submission))
    assert time_read_by_nbgrader(submission) == datetime.datetime(2026, 12, 10, 9, 0)
    assert any("hand-in-times.csv's" in p for p in problems)


def test_the_time_make_collect_recorded_stands_without_a_problem(submission):
    hand_ins.record_collected("attention", {"ana": ZIP_TIME})
    (submission / "timestamp.txt").write_text(ZIP_TIME.isoformat(" "))  # as nbgrader wrote it
    assert not [p for p in intake.intake(str(submission)) if "timestamp" in p]
    assert time_read_by_nbgrader(submission) == ZIP_TIME
    assert not aside(submission).exists()


def test_a_broken_hand_in_times_file_still_keeps_the_learners_time_out(submission):
    with open(hand_ins.HAND_IN_TIMES, "w") as f:
        f.write("part,student,handed_in\nattention,ana,tomorrow\n")
    problems = intake.intake(str(submission))
    assert time_read_by_nbgrader(submission) is None
    assert any("not a time like" in p for p in problems)


def test_set_id_bits_and_locked_folders_are_made_plain(submission):
    os.chmod(submission / "model.py", 0o6777)
    os.chmod(submission / "outputs", 0o000)
    intake.intake(str(submission))
    assert stat.S_IMODE(os.lstat(submission / "model.py").st_mode) == 0o644
    assert stat.S_IMODE(os.lstat(submission / "outputs").st_mode) == 0o755
    assert (submission / "outputs" / "02-scale.txt").read_text() == "0.125\n"


def test_what_lies_too_deep_or_weighs_too_much_is_kept_aside_not_graded(submission):
    deep = submission.joinpath(*["d"] * (unpack.MAX_DEPTH + 3))
    deep.mkdir(parents=True)
    (deep / "notes.md").write_text("deep")
    (submission / "outputs" / "bulk.bin").write_bytes(bytes(unpack.MAX_BYTES + 1))
    problems = intake.intake(str(submission))
    assert not (submission / "outputs" / "bulk.bin").exists()
    assert (aside(submission) / "outputs" / "bulk.bin").stat().st_size == unpack.MAX_BYTES + 1
    kept_deep = aside(submission).joinpath(*["d"] * (unpack.MAX_DEPTH + 1))
    assert (kept_deep / "d" / "d" / "notes.md").read_text() == "deep"
    assert (submission / "model.py").exists() and (submission / "outputs" / "02-scale.txt").exists()
    cap = f"past {unpack.MAX_BYTES // 2**20} MiB"
    assert any(cap in p and "outputs/bulk.bin" in p for p in problems)
    assert any(f"more than {unpack.MAX_DEPTH} folders deep" in p for p in problems)


def test_make_collect_records_each_zips_time(tmp_path, monkeypatch):
    monkeypatch.setattr(hand_ins, "collected_times", lambda part: str(tmp_path / f"c-{part}.json"))
    hand_ins.record_collected("attention", {"ana": ZIP_TIME})
    hand_ins.record_collected("attention", {"bo": ZIP_TIME})
    assert hand_ins.collected("attention") == {"ana": ZIP_TIME, "bo": ZIP_TIME}
    assert json.loads((tmp_path / "c-attention.json").read_text())["ana"].endswith(
        "08:30:05.250000"
    )


def test_a_class_too_large_for_the_disk_stops_before_anyone_is_graded(tmp_path, monkeypatch):
    """Each submission counts for at most the cap (intake keeps it there), twice: autograded/
    and feedback/. A disk with less room than that is said before grading starts."""
    from grading import classroom

    monkeypatch.setattr(classroom, "SUBMITTED", str(tmp_path))
    for name, size in (("ana", 1000), ("bo", 10 * unpack.MAX_BYTES)):
        (tmp_path / name / "attention").mkdir(parents=True)
        with open(tmp_path / name / "attention" / "bulk.bin", "wb") as f:
            f.truncate(size)  # sparse: its size, not its bytes
    needed = 2 * (1000 + unpack.MAX_BYTES) + classroom.DISK_MARGIN
    assert classroom.disk_too_full(["ana", "bo"], free=needed) is None
    said = classroom.disk_too_full(["ana", "bo"], free=needed - 1)
    assert said.startswith("grading these 2 submissions takes about")
