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
    monkeypatch.setattr(hand_ins, "SUBMITTED", str(tmp_path / "submitted"))
    folder = tmp_path / "submitted" / "ana" / "attention"
    (folder / "outputs").mkdir(parents=True)
    (folder / "model.py").write_text("import math\n")
    (folder / "outputs" / "02-scale.txt").write_text("0.125\n")
    (folder / "timestamp.txt").write_text(LEARNERS_TIME)
    return folder


def aside(folder):
    """The one folder intake set things aside in, beside the submission (None if none)."""
    made = sorted(folder.parent.glob("attention.set-aside-*"))
    assert len(made) <= 1, made
    return made[0] if made else None


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
    (submission / "timestamp.txt").write_text(ZIP_TIME.isoformat(" "))  # as nbgrader wrote it
    hand_ins.record_collected("attention", {"ana": ZIP_TIME})
    assert not [p for p in intake.intake(str(submission)) if "timestamp" in p or "time" in p]
    assert time_read_by_nbgrader(submission) == ZIP_TIME
    assert aside(submission) is None
    intake.intake(str(submission))  # graded again: intake's own changes keep the time
    assert time_read_by_nbgrader(submission) == ZIP_TIME


def test_a_later_version_placed_over_a_collected_one_has_no_time_of_its_own(submission):
    """The zip came on time; a later model.py copied over the collected folder is not dated by
    that zip."""
    (submission / "timestamp.txt").write_text(ZIP_TIME.isoformat(" "))
    hand_ins.record_collected("attention", {"ana": ZIP_TIME})
    (submission / "model.py").write_text("import math  # the version sent a week later\n")
    problems = intake.intake(str(submission))
    assert time_read_by_nbgrader(submission) is None
    assert any("no longer what make collect unpacked" in p for p in problems), problems


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
    assert stat.S_IMODE(aside(submission).stat().st_mode) == 0o700  # the course user's alone
    kept_deep = aside(submission).joinpath(*["d"] * (unpack.MAX_DEPTH + 1))
    assert (kept_deep / "d" / "d" / "notes.md").read_text() == "deep"
    assert (submission / "model.py").exists() and (submission / "outputs" / "02-scale.txt").exists()
    cap = f"past {unpack.MAX_BYTES // 2**20} MiB"
    assert any(cap in p and "outputs/bulk.bin" in p for p in problems)
    assert any(f"more than {unpack.MAX_DEPTH} folders deep" in p for p in problems)


def test_make_collect_records_each_zips_time_and_what_it_unpacked(submission, tmp_path):
    hand_ins.record_collected("attention", {"ana": ZIP_TIME})
    hand_ins.record_collected("attention", {"bo": ZIP_TIME})  # nothing of bo's unpacked
    recorded = hand_ins.collected("attention")
    assert {s: t for s, (t, _) in recorded.items()} == {"ana": ZIP_TIME, "bo": ZIP_TIME}
    assert len(recorded["ana"][1]) == 2 and recorded["bo"][1] == []  # model.py, 02-scale.txt
    kept = json.loads((tmp_path / "c-attention.json").read_text())
    assert kept["ana"]["time"].endswith("08:30:05.250000")


def test_a_locked_folder_too_deep_is_still_moved_aside(submission):
    """A folder nine deep of mode 0555 cannot be renamed until it is writable (its own '..'
    entry changes): intake makes it so, then moves it."""
    deep = submission.joinpath(*["d"] * (unpack.MAX_DEPTH + 1))
    deep.mkdir(parents=True)
    (deep / "run").write_text("x")
    os.chmod(deep, 0o555)
    os.chmod(deep.parent, 0o555)
    intake.intake(str(submission))
    assert not deep.exists()
    assert (aside(submission).joinpath(*["d"] * (unpack.MAX_DEPTH + 1)) / "run").exists()


def test_a_file_intake_may_not_change_is_moved_aside_not_graded(submission, monkeypatch):
    """A file root unpacked with its owner kept (a hard link the hand-over could not give the
    course user): its mode cannot be made plain, so it is not graded."""
    real_chmod = os.chmod
    (submission / "a-tool").write_text("x")

    def chmod(path, mode, **kw):
        if str(path).endswith("a-tool"):
            raise PermissionError(1, "Operation not permitted", str(path))
        return real_chmod(path, mode, **kw)

    monkeypatch.setattr(intake.os, "chmod", chmod)
    problems = intake.intake(str(submission))
    assert not (submission / "a-tool").exists() and (aside(submission) / "a-tool").exists()
    assert any("a-tool is not the course user's file" in p for p in problems)


def test_graded_twice_with_a_link_where_the_aside_folder_would_be(submission, tmp_path):
    """Set-aside folders are new each time: a link named like one, or an earlier one holding
    the same names, is never written through."""
    home = tmp_path / "home"
    home.mkdir()
    (submission.parent / "attention.set-aside").symlink_to(home)
    for _ in range(2):
        (submission / "timestamp.txt").write_text(LEARNERS_TIME)
        with open(submission / "bulk.bin", "wb") as f:
            f.truncate(unpack.MAX_BYTES + 1)
        intake.intake(str(submission))
    made = sorted(submission.parent.glob("attention.set-aside-*"))
    assert len(made) == 2 and all((m / "bulk.bin").exists() for m in made)
    assert list(home.iterdir()) == []


@pytest.mark.parametrize("linked", ["attention", "ana"])
def test_a_submission_folder_that_is_a_link_is_removed_not_followed(submission, tmp_path, linked):
    home = tmp_path / "home"
    (home / "attention").mkdir(parents=True)
    secret = home / "attention" / "id_key"
    secret.write_text("secret")
    os.chmod(secret, 0o600)
    place = submission if linked == "attention" else submission.parent
    os.rename(place, tmp_path / "moved")
    place.symlink_to(home / "attention" if linked == "attention" else home)
    problems = intake.intake(str(submission))
    assert not os.path.lexists(place) and stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert problems == [
        f"{linked} was a link, not a folder; it was removed, and nothing was graded"
    ]


def test_a_name_that_is_not_utf8_is_said_and_the_record_stays_readable(submission, monkeypatch):
    monkeypatch.setattr(intake, "JUDGED", str(submission.parent.parent.parent / "judged"))
    os.symlink("model.py", os.path.join(os.fsencode(submission), b"\xff.py"))
    intake.save("ana", intake.intake(str(submission)))
    assert any(p.startswith("\\xff.py was a link") for p in intake.load("ana")), intake.load("ana")


def test_a_folder_intake_cannot_make_safe_is_moved_away_and_nothing_graded(submission, monkeypatch):
    """nbgrader only logs what its pre-convert hook raises and grades on, so intake's hook never
    lets a failure through: the folder goes aside whole and nbgrader is given no notebook."""
    monkeypatch.setattr(intake, "JUDGED", str(submission.parent.parent.parent / "judged"))
    monkeypatch.setattr(intake.os, "geteuid", lambda: 1000)  # the course user, as in grading
    monkeypatch.setattr(intake, "plain_tree", lambda *a: 1 / 0)
    notebooks = [str(submission / "01-softmax.ipynb")]
    intake.nbgrader_hook("attention", "*", notebooks)
    assert notebooks == [] and not submission.exists()
    kept = sorted(submission.parent.glob("attention.not-graded-*"))
    assert not (kept[0] / "attention" / "timestamp.txt").exists()  # settled before the failure
    assert (kept[0] / "attention" / "model.py").read_text() == "import math\n"
    assert "moved whole to attention.not-graded-" in intake.load("ana")[0]


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
