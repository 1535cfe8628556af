"""The course's own unzipping for make collect (grading/nbgrader/unpack.py): what a hostile zip
can and cannot do, one zip at a time. (The whole command, zips among honest ones:
test_collect.py.)"""

import os
import stat
import zipfile

import pytest

from grading.nbgrader import unpack


def make_zip(path, entries):
    """A zip of (name, bytes, Unix mode) entries, each with the mode the zip claims."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, mode in entries:
            entry = zipfile.ZipInfo(name)
            entry.external_attr = mode << 16 | (0x10 if name.endswith("/") else 0)
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
    return path


def tree(folder):
    """{relative path: permission bits} of everything under folder."""
    return {os.path.relpath(os.path.join(here, name), folder): stat.S_IMODE(
                os.lstat(os.path.join(here, name)).st_mode)
            for here, dirs, files in os.walk(folder) for name in dirs + files}  # fmt: skip


@pytest.mark.parametrize("folder_mode", [0o000, 0o500])
def test_a_locked_folder_entry_before_its_files_unpacks_as_plain_folders(tmp_path, folder_mode):
    """nbgrader's extractor kept an `outputs/` entry's mode 0000 or 0500 and then failed to write
    the files in it, stopping the whole class; the course writes every folder 0755."""
    path = make_zip(tmp_path / "learner.zip", [
        ("outputs/", b"", stat.S_IFDIR | folder_mode),
        ("outputs/02-scale.txt", b"0.125\n", stat.S_IFREG | 0o644),
        ("model.py", b"import math\n", stat.S_IFREG | 0o600),
    ])  # fmt: skip
    unpack.unpack(path, tmp_path / "out")
    assert tree(tmp_path / "out") == {"outputs": 0o755, "outputs/02-scale.txt": 0o644,
                                      "model.py": 0o644}  # fmt: skip
    assert (tmp_path / "out" / "outputs" / "02-scale.txt").read_bytes() == b"0.125\n"


def test_a_set_uid_entry_is_written_as_a_plain_file(tmp_path):
    path = make_zip(tmp_path / "learner.zip", [("model.py", b"x = 1\n", stat.S_IFREG | 0o6777)])
    unpack.unpack(path, tmp_path / "out")
    assert tree(tmp_path / "out") == {"model.py": 0o644}


def refused(tmp_path, entries):
    """The reason a zip of these entries is refused (and nothing of it is left)."""
    path = make_zip(tmp_path / "learner.zip", entries)
    with pytest.raises(unpack.Refused) as why:
        unpack.unpack(path, tmp_path / "out")
    assert not os.path.lexists(tmp_path / "out")
    return str(why.value)


def test_an_entry_thousands_of_folders_deep_is_refused_without_recursion(tmp_path):
    deep = "/".join(["d"] * 2100) + "/notes.md"
    assert f"more than {unpack.MAX_DEPTH} folders deep" in refused(tmp_path, [(deep, b"x", 0)])
    at_the_limit = "/".join(["d"] * unpack.MAX_DEPTH) + "/notes.md"
    unpack.unpack(make_zip(tmp_path / "ok.zip", [(at_the_limit, b"x", 0)]), tmp_path / "ok")
    assert (tmp_path / "ok" / at_the_limit).read_bytes() == b"x"


def test_a_zip_of_zeros_is_refused_by_the_bytes_it_unpacks_to(tmp_path):
    """190 MiB of zeros pack into a few hundred KB: the cap counts what decompression gives,
    and the first bytes past it stop the unpacking."""
    path = tmp_path / "zeros.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("model.py", b"import math\n")
        z.writestr("outputs/zeros.txt", bytes(190 * 2**20))
    assert os.path.getsize(path) < 2**20
    with pytest.raises(unpack.Refused, match=f"more than {unpack.MAX_BYTES // 2**20} MiB"):
        unpack.unpack(path, tmp_path / "out")
    assert not os.path.lexists(tmp_path / "out")


@pytest.mark.parametrize("entries, reason", [
    ([("model.py", b"/etc/passwd", stat.S_IFLNK | 0o777)], "is a link or special file"),
    ([("fifo", b"", stat.S_IFIFO | 0o644)], "is a link or special file"),
    ([("notes.md", b"1", 0), ("NOTES.md", b"2", 0)], "collides with another entry"),
    ([("notes.md", b"1", 0), ("notes.md/x", b"2", 0)], "collides with another entry"),
    ([("../notes.md", b"1", 0)], "would land outside its folder"),
    ([("/tmp/notes.md", b"1", 0)], "would land outside its folder"),
    ([("C:/notes.md", b"1", 0)], "would land outside its folder"),
    ([("a\\..\\..\\notes.md", b"1", 0)], "would land outside its folder"),
    ([("outputs/inner.zip", b"PK", 0)], "holds another archive"),
    ([("notes\x1b[2J.md", b"1", 0)], "control character"),
    ([("n" * 300 + ".md", b"1", 0)], "longer than 255 bytes"),
    ([(f"f{i}.md", b"", 0) for i in range(unpack.MAX_ENTRIES + 1)], "entries, more than"),
])  # fmt: skip
def test_an_unsafe_entry_refuses_the_whole_zip(tmp_path, entries, reason):
    assert reason in refused(tmp_path, entries + [("honest.py", b"import math\n", 0)])


def test_a_damaged_zip_is_refused_not_raised(tmp_path):
    """A zip whose data does not match its checksum is this zip's problem, never the class's."""
    path = make_zip(tmp_path / "learner.zip", [("model.py", b"import math\n" * 50, 0)])
    data = bytearray(path.read_bytes())
    data[30 + len("model.py") + 2] ^= 0xFF  # inside the compressed bytes, past the local header
    path.write_bytes(bytes(data))
    with pytest.raises(unpack.Refused, match="cannot be unpacked"):
        unpack.unpack(path, tmp_path / "out")
    assert not os.path.lexists(tmp_path / "out")


def test_a_method_that_decompresses_without_bound_is_refused(tmp_path):
    """bzip2 packs 1 GiB of zeros into under a kilobyte, and zipfile decompresses a bzip2 or
    lzma read without a limit: such entries are refused before any is read."""
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_BZIP2) as z:
        z.writestr("model.py", b"import math\n")
    with pytest.raises(unpack.Refused, match="compressed with method 12"):
        unpack.unpack(path, tmp_path / "out")


def test_an_entry_with_no_name_is_passed_over(tmp_path):
    """An empty name (or one that starts with NUL, which zipfile cuts there) names nothing."""
    path = make_zip(tmp_path / "learner.zip", [("model.py", b"import math\n", 0), ("", b"", 0)])
    unpack.unpack(path, tmp_path / "out")
    assert tree(tmp_path / "out") == {"model.py": 0o644}


def test_a_bad_lzma_header_is_refused_not_raised(tmp_path):
    """A 148-byte zip whose lzma properties are invalid raised LZMAError out of the extractor and
    stopped the class's collection; its method alone refuses it now."""
    path = tmp_path / "learner.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_LZMA) as z:
        z.writestr("model.py", b"import math\n")
    data = bytearray(path.read_bytes())
    data[30 + len("model.py") + 4] = 0xFF  # the lzma properties' first byte
    path.write_bytes(bytes(data))
    with pytest.raises(unpack.Refused):
        unpack.unpack(path, tmp_path / "out")
    assert not os.path.lexists(tmp_path / "out")
