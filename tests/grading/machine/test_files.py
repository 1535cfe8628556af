"""read_regular: a regular file's bytes, and nothing a link, a FIFO or a huge file makes of it."""

import os
import threading

import pytest

from grading.machine import files


def test_a_regular_file_is_read_up_to_its_limit(tmp_path):
    plain = tmp_path / "model.py"
    plain.write_bytes(b"x = 1\n")
    assert files.read_regular(str(plain), 6) == b"x = 1\n"
    with pytest.raises(files.TooLarge):
        files.read_regular(str(plain), 5)


def test_links_fifos_and_folders_are_refused_without_blocking(tmp_path):
    target = tmp_path / "secret.txt"
    target.write_text("the reference")
    (tmp_path / "link.py").symlink_to(target)
    os.mkfifo(tmp_path / "fifo.py")
    with pytest.raises(OSError) as link:
        files.read_regular(str(tmp_path / "link.py"), 100)
    assert not isinstance(link.value, (files.NotPlainFile, files.TooLarge))  # ELOOP: not opened
    # Opening a FIFO for reading with no writer would block forever without O_NONBLOCK: a thread
    # that is still alive after 5 s means the reader hung.
    outcome = []
    reader = threading.Thread(
        target=lambda: outcome.append(pytest.raises(files.NotPlainFile, files.read_regular,
                                                    str(tmp_path / "fifo.py"), 100)),
        daemon=True,
    )  # fmt: skip
    reader.start()
    reader.join(5)
    assert not reader.is_alive() and outcome
    with pytest.raises(files.NotPlainFile):
        files.read_regular(str(tmp_path), 100)


def test_read_text_or_gives_the_default_for_anything_refused(tmp_path):
    (tmp_path / "bytes.py").write_bytes(b"caf\xe9\n")
    (tmp_path / "link.py").symlink_to(tmp_path / "bytes.py")
    assert files.read_text_or(str(tmp_path / "bytes.py"), 100, None) == "caf\ufffd\n"
    assert files.read_text_or(str(tmp_path / "link.py"), 100, None) is None
    assert files.read_text_or(str(tmp_path / "bytes.py"), 2, "") == ""
    assert files.read_text_or(str(tmp_path / "missing.py"), 100, "") == ""
