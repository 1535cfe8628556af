"""The course's own unzipping for `nbgrader zip_collect` (make collect): a hand-in zip becomes plain
files and folders, or is refused whole.

nbgrader's default extractor (setuptools' unpacker) keeps each entry's mode and trusts the zip's
own account of itself: an `outputs/` entry of mode 0000 placed before its files stopped the whole
class's collection with PermissionError, an entry 2,100 folders deep with RecursionError, and a
`model.py` of mode 04777 arrived set-uid. Here a zip is read as untrusted bytes:

- every entry is checked before anything is written: a name that would land outside its folder,
  a link, another archive (nbgrader would unpack it too), more than MAX_ENTRIES entries, a path
  more than MAX_DEPTH deep, two entries that would be one file, a file where a folder must be;
- files are written 0644 and folders 0755, whatever the zip says, never over anything that exists;
- sizes are counted from the bytes actually decompressed, not from the zip's header: a zip that
  unpacks to more than MAX_BYTES (a real hand-in is under 1 MiB) is refused as it passes.

A refused zip leaves nothing in extracted/, is moved (never deleted) to downloaded/<part>/refused/
with a note of why beside it, and the others are collected.
"""

import os
import shutil
import stat
import struct
import unicodedata
import zipfile

from nbgrader.plugins import ExtractorPlugin

from grading.paths import STUDENT_ID, downloaded

MAX_BYTES = 8 * 2**20  # one submission unpacked; the same cap holds in submitted/ (intake)
MAX_ENTRIES = 400  # a part's hand-in has about 20
MAX_DEPTH = 8  # folders above a file: outputs/x.txt is 1
NAME_BYTES = 255  # the longest file name Linux takes
FILE_MODE, FOLDER_MODE = 0o644, 0o755
ARCHIVES = (".zip", ".gz")  # what nbgrader's own extractor would unpack again, nested
CHUNK = 1 << 16
METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)  # what every zip tool writes; both bounded
# The zip format's own records (APPNOTE 4.3.12, 4.3.16): the end of the central directory, and the
# fixed part of each entry's record in it; the largest directory and field a hand-in has
END_RECORD, END_SIGNATURE = struct.Struct("<4s4H2LH"), b"PK\x05\x06"
ENTRY_HEADER, ENTRY_SIGNATURE = 46, b"PK\x01\x02"
MAX_DIRECTORY = 256 * 1024  # MAX_ENTRIES records of a few hundred bytes each
MAX_FIELD = 1024  # an entry's extra fields, or its comment: zip tools write a few dozen bytes


class Refused(Exception):
    """A zip the course does not unpack; str() says why, in words for the instructor."""


def entry_parts(name):
    """The path parts an entry's name stands for (NFC, '/' only, no '.' or empty parts)."""
    text = unicodedata.normalize("NFC", name).replace("\\", "/")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if text.startswith("/") or ".." in parts or (parts and ":" in parts[0]):
        raise Refused(f"its entry {name!r} would land outside its folder")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise Refused(f"its entry {name!r} has a control character in its name")
    if any(len(p.encode()) > NAME_BYTES for p in parts):
        raise Refused(f"its entry {name[:60]!r}… has a name longer than {NAME_BYTES} bytes")
    if len(parts) - (0 if text.endswith("/") else 1) > MAX_DEPTH:
        raise Refused(f"its entry {name[:60]!r}… lies more than {MAX_DEPTH} folders deep")
    if parts and not name.endswith("/") and parts[-1].lower().endswith(ARCHIVES):
        raise Refused(f"it holds another archive, {name!r}")
    return parts


def kind(entry):
    """'folder', 'file' or 'link' (or another special file), from the entry's Unix mode if any."""
    kind_bits = stat.S_IFMT(entry.external_attr >> 16)  # 0 where the zip gives no Unix mode
    if entry.is_dir() or kind_bits == stat.S_IFDIR:
        return "folder"
    return "file" if kind_bits in (0, stat.S_IFREG) else "link"


def plan(z):
    """[(entry, parts, kind)] of a zip, checked whole before anything is written."""
    entries = z.infolist()
    if len(entries) > MAX_ENTRIES:
        raise Refused(f"it has {len(entries)} entries, more than {MAX_ENTRIES}")
    planned, files, folders = [], set(), set()
    for entry in entries:
        parts = entry_parts(entry.filename)
        if not parts:  # "", or a name zipfile cut at a NUL: nothing to write
            continue
        if kind(entry) == "link":
            raise Refused(f"its entry {entry.filename!r} is a link or special file")
        if entry.compress_type not in METHODS:  # bzip2 and lzma decompress without a bound
            method = entry.compress_type
            raise Refused(f"its entry {entry.filename!r} is compressed with method {method}, "
                          "not stored or deflated as zip tools do")  # fmt: skip
        if entry.flag_bits & 0x1:
            raise Refused(f"its entry {entry.filename!r} is encrypted")
        what = kind(entry)
        key = tuple(unicodedata.normalize("NFKC", p).casefold() for p in parts)
        above = {key[:i] for i in range(1, len(key))}
        if key in files or (what == "file" and key in folders) or above & files:
            raise Refused(f"its entry {entry.filename!r} collides with another entry")
        (folders if what == "folder" else files).add(key)
        folders |= above
        planned.append((entry, parts, what))
    return planned


def make_folders(dest, parts):
    """dest/parts[0]/… as plain folders of FOLDER_MODE; the deepest one's path."""
    path = dest
    for part in parts:
        path = os.path.join(path, part)
        if not os.path.isdir(path):
            os.mkdir(path)
            os.chmod(path, FOLDER_MODE)  # whatever the umask
    return path


def pieces(z, entry):
    """An entry's decompressed bytes, CHUNK at a time; whatever goes wrong in reading them is
    the zip's fault (Refused), never the class's."""
    try:
        with z.open(entry) as data:
            while chunk := data.read(CHUNK):
                yield chunk
    except Exception as err:  # damaged data, a bad checksum, a header that lies
        raise Refused(f"it cannot be unpacked ({type(err).__name__}: {err})") from None


def write_file(z, entry, path, budget):
    """Decompress one entry into a new file of FILE_MODE; the bytes written (at most budget).
    An error writing is the disk's, and is raised as it is."""
    written = 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    with os.fdopen(fd, "wb") as out:
        os.fchmod(out.fileno(), FILE_MODE)
        for chunk in pieces(z, entry):
            written += len(chunk)
            if written > budget:
                raise Refused(f"it unpacks to more than {MAX_BYTES // 2**20} MiB")
            out.write(chunk)
    return written


def directory_bounds(zip_path):
    """Refused unless the zip's central directory is one a zip tool writes: read from its own
    fixed-size records before zipfile parses it, which costs time quadratic in an entry's extra
    field (a learner's 8 MiB zip of such fields took seconds, and the exchange serves everyone)."""
    with open(zip_path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - END_RECORD.size - 0xFFFF))  # the end record, and its comment at most
        tail = f.read()
        at = tail.rfind(END_SIGNATURE)
        if at < 0 or len(tail) - at < END_RECORD.size:
            raise Refused("it is not a zip file")
        _, _, _, _, entries, length, offset, _ = END_RECORD.unpack_from(tail, at)
        if entries > MAX_ENTRIES:
            raise Refused(f"it has {entries} entries, more than {MAX_ENTRIES}")
        if length > MAX_DIRECTORY:
            raise Refused(f"its directory of {length} bytes is larger than a hand-in's")
        f.seek(offset)
        directory = f.read(length)
    at = 0
    while at < len(directory):
        if directory[at : at + 4] != ENTRY_SIGNATURE or at + ENTRY_HEADER > len(directory):
            raise Refused("its directory is damaged")
        name, extra, comment = struct.unpack_from("<3H", directory, at + 28)
        if extra > MAX_FIELD or comment > MAX_FIELD:
            raise Refused(f"an entry carries {max(extra, comment)} bytes of extra fields or "
                          "comment, more than zip tools write")  # fmt: skip
        at += ENTRY_HEADER + name + extra + comment


def opened(zip_path):
    """(ZipFile, plan) of a hand-in zip, read and checked whole; Refused if it cannot be."""
    if not zipfile.is_zipfile(zip_path):
        raise Refused("it is not a zip file")
    if os.path.getsize(zip_path) > MAX_BYTES:  # bounds what reading its directory costs
        raise Refused(f"it is larger than {MAX_BYTES // 2**20} MiB")
    directory_bounds(zip_path)
    try:
        z = zipfile.ZipFile(zip_path)
    except Exception as err:  # a directory that lies: this zip's fault, not the class's
        raise Refused(f"it cannot be read as a zip ({type(err).__name__}: {err})") from None
    try:
        return z, plan(z)
    except BaseException:
        z.close()
        raise


def unpack(zip_path, dest):
    """Unpack one hand-in zip into a new folder dest; if it is unsafe, Refused and no dest."""
    z, planned = opened(zip_path)
    with z:
        os.mkdir(dest, FOLDER_MODE)
        try:
            budget = MAX_BYTES
            for entry, parts, what in planned:
                if what == "folder":
                    make_folders(dest, parts)
                    continue
                folder = make_folders(dest, parts[:-1])
                budget -= write_file(z, entry, os.path.join(folder, parts[-1]), budget)
        except BaseException:
            shutil.rmtree(dest)
            raise


def set_aside(zip_path, part, reason):
    """Move a refused zip to downloaded/<part>/refused/ (a new name if one is there), with why."""
    folder = downloaded(part, "refused")
    os.makedirs(folder, exist_ok=True)
    stem, n = os.path.basename(zip_path)[: -len(".zip")], 1
    name = f"{stem}.zip"
    while os.path.lexists(os.path.join(folder, name)):
        n += 1
        name = f"{stem} ({n}).zip"
    shutil.move(zip_path, os.path.join(folder, name))
    with open(os.path.join(folder, name + ".why.txt"), "w", encoding="utf-8") as f:
        f.write(reason + "\n")
    return name


# The students whose zips one collection unpacks (spaces between), when not every zip: the
# hub's exchange collects only new hand-ins, and leaves everyone else's submission as it is
ONLY = "ATTENTION_COLLECT_ONLY"


class HandInExtractor(ExtractorPlugin):
    """ZipCollectApp.extractor_plugin: each downloaded/<part>/archive/<student>.zip unpacked into
    extracted/<student>/ by unpack(); anything else in archive/ is left where it is, said so."""

    def extract(self, archive_path, extracted_path):
        """Unpack every student's zip (or only those ONLY names); set the unsafe ones aside
        with the reason."""
        part = self.parent.coursedir.assignment_id
        only = set(os.environ.get(ONLY, "").split()) or None
        for name in sorted(os.listdir(archive_path)):
            path = os.path.join(archive_path, name)
            student = name.removesuffix(".zip") if name.endswith(".zip") else ""  # as collected
            if not stat.S_ISREG(os.lstat(path).st_mode) or not STUDENT_ID.fullmatch(student):
                self.log.warning("Left alone (not a <student>.zip file): %s", name)
                continue
            if only is not None and student not in only:
                continue  # collected before, and left as it is in submitted/
            try:
                unpack(path, os.path.join(extracted_path, student))
            except Refused as why:
                kept = set_aside(path, part, str(why))
                print(f"{name} set aside in downloaded/{part}/refused/{kept} (not unpacked): "
                      f"{why}", flush=True)  # fmt: skip
