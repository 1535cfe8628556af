"""What a Dask task carries (grading/scale/remote.py), without a cluster: a submission's bytes and
names survive the trip, a path cannot lead out of the worker's class folder, and a package too
large, a worker of another course version or a grading too large to send back is refused."""

import os

import pytest

from grading.scale import remote, server

STUDENT, PART = "ana", "attention"


@pytest.fixture
def course(tmp_path, monkeypatch):
    """A class folder of its own, with one submission holding a name that is not UTF-8."""
    folder = tmp_path / "submitted" / STUDENT / PART
    (folder / "outputs").mkdir(parents=True)
    (folder / "model.py").write_bytes(b"def softmax(x):\n    return x\n")
    (folder / "outputs" / "scale.json").write_text('{"d": [1, 2]}')
    with open(os.path.join(os.fsencode(folder), b"caf\xe9.txt"), "wb") as f:  # Latin-1 name
        f.write(b"\x00\xffbytes")
    monkeypatch.setattr(server, "SUBMITTED", str(tmp_path / "submitted"))
    return tmp_path


def worker_copy(package, tmp_path):
    """The package unpacked into a worker's class folder of its own; that folder."""
    worker = tmp_path / "worker"
    worker.mkdir(exist_ok=True)
    return remote.unpack(package, str(worker))


def tree(folder):
    """{relative path as bytes: file bytes} of every file under folder."""
    found = {}
    for here, _, names in os.walk(os.fsencode(folder)):
        for name in names:
            with open(os.path.join(here, name), "rb") as f:
                found[os.path.relpath(os.path.join(here, name), os.fsencode(folder))] = f.read()
    return found


def test_every_byte_and_name_arrives_and_the_digest_agrees(course, tmp_path):
    package = remote.pack(STUDENT, PART)
    unpacked = worker_copy(package, tmp_path)
    assert tree(unpacked) == tree(course / "submitted" / STUDENT / PART)
    assert b"caf\xe9.txt" in tree(unpacked)
    assert package["digest"] == server.submission_digest(STUDENT, PART)
    listed = sorted(server.entries(STUDENT, PART))
    assert len(listed) == 3 and all(kind == "file" for _, kind, _ in listed)


def test_a_changed_byte_or_a_renamed_file_changes_the_digest(course):
    first = server.submission_digest(STUDENT, PART)
    folder = course / "submitted" / STUDENT / PART
    (folder / "model.py").write_bytes(b"def softmax(x):\n    return x \n")
    second = server.submission_digest(STUDENT, PART)
    os.rename(folder / "model.py", folder / "model2.py")
    assert len({first, second, server.submission_digest(STUDENT, PART)}) == 3


@pytest.mark.parametrize(
    "relative", ["../escape.py", "/etc/passwd", "a//b.py", "./a.py", "a/../../b.py", "a\0b", ""]
)
def test_no_path_in_a_package_leads_out_of_the_worker_class(relative, course, tmp_path):
    package = remote.pack(STUDENT, PART)
    package["files"].append([relative, b"planted"])
    with pytest.raises(ValueError, match="not a path inside a submission"):
        worker_copy(package, tmp_path)
    assert not (tmp_path / "escape.py").exists()


def test_a_package_names_a_real_student_and_part(course, tmp_path):
    for key, value in [("student", "../ana"), ("student", "ana/x"), ("assignment", "other")]:
        package = {**remote.pack(STUDENT, PART), key: value}
        with pytest.raises(ValueError):
            worker_copy(package, tmp_path)


def test_a_submission_larger_than_a_task_carries_stays_home(course, monkeypatch):
    size = sum(len(data) for _, data in remote.pack(STUDENT, PART)["files"])
    monkeypatch.setattr(remote, "MAX_PACKAGE_BYTES", size - 1)
    with pytest.raises(remote.CannotShip, match="more than a Dask task carries"):
        remote.pack(STUDENT, PART)
    monkeypatch.setattr(remote, "MAX_PACKAGE_BYTES", size)
    assert remote.pack(STUDENT, PART)["files"]


def test_a_worker_of_another_course_version_refuses_to_grade(course, monkeypatch):
    monkeypatch.setattr(remote.os, "geteuid", lambda: 4242)  # as a worker, never root, runs
    package = {**remote.pack(STUDENT, PART), "course": "0" * 64}
    with pytest.raises(RuntimeError, match="not the course machine's"):
        remote.grade_package(package)


def test_a_grading_too_large_to_send_back_is_reported_not_sent(course, tmp_path, monkeypatch):
    """A kernel that printed without end: the worker says so, and sends no notebook back."""
    worker = tmp_path / "worker"
    graded = worker / "autograded" / STUDENT / PART
    graded.mkdir(parents=True)
    (graded / "01-softmax.ipynb").write_text("x" * 4096)

    class Graded:
        """A grading server that has graded the submission (the real one is tested in
        test_farm.py); process.poll() says it is alive."""

        process = type("Alive", (), {"poll": staticmethod(lambda: None)})

        def __init__(self, env):
            pass

        def grade(self, student, assignment):
            return True, ""

    monkeypatch.setattr(remote, "Server", Graded)
    monkeypatch.setattr(remote, "_SERVERS", {})
    package = remote.pack(STUDENT, PART)
    sent = remote.graded_here(package, str(worker))
    assert sent["ok"] and "01-softmax.ipynb" in sent["notebooks"]
    monkeypatch.setattr(remote, "MAX_PACKAGE_BYTES", 4095)
    sent = remote.graded_here(package, str(worker))
    assert not sent["ok"] and "not sent back" in sent["error"]
    assert sent["notebooks"] == {} and sent["records"] == {}


def test_the_class_folders_folder_is_made_private_and_refused_when_it_is_not(tmp_path, monkeypatch):
    """Made 0700 the first time and kept; a folder at that name that others may enter, or a
    link there, is refused with what to do, and neither is changed."""
    monkeypatch.setattr(remote.tempfile, "tempdir", str(tmp_path))
    made = remote.classes_folder()
    assert os.path.dirname(made) == str(tmp_path) and str(os.geteuid()) in os.path.basename(made)
    assert os.stat(made).st_mode & 0o777 == 0o700 and remote.classes_folder() == made
    os.chmod(made, 0o755)
    with pytest.raises(RuntimeError, match="remove it"):
        remote.classes_folder()
    assert os.stat(made).st_mode & 0o777 == 0o755
    os.rmdir(made)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    os.symlink(elsewhere, made)
    with pytest.raises(RuntimeError, match="remove it"):
        remote.classes_folder()
    assert os.path.islink(made)
