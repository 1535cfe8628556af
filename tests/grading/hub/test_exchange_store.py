"""The hub exchange's store (grading/hub/exchange/store.py), without a hub: a hand-in is kept with
the service's time or refused whole; a learner's share is bounded; an edition name is never a
path; collect's placing keeps an instructor's own zip; a zip with oversized directory fields is
refused before zipfile parses it (grading/nbgrader/unpack.py)."""

import datetime
import io
import os
import struct
import zipfile

import pytest

from grading import paths
from grading.hub import exchange
from grading.hub.exchange import store
from grading.nbgrader import unpack

PART = "attention"
WHEN = datetime.datetime(2026, 12, 6, 21, 0, 0, 123456)


@pytest.fixture
def class_folder(tmp_path, monkeypatch):
    """A class of its own: the store and downloaded/ under tmp_path."""
    monkeypatch.setattr(paths, "EXCHANGE", str(tmp_path / "exchange"))
    monkeypatch.setattr(paths, "DOWNLOADED", str(tmp_path / "downloaded"))
    return tmp_path


def zip_of(files, link=None):
    """The bytes of a zip of files ({name: bytes}), with one symbolic link named link if given."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
        if link:
            entry = zipfile.ZipInfo(link)
            entry.external_attr = 0o120777 << 16
            z.writestr(entry, "/etc/passwd")
    return buffer.getvalue()


HAND_IN = {"01-softmax.ipynb": b"{}", "model.py": b"def softmax(x):\n    return x\n"}


def test_a_hand_in_is_kept_with_the_services_time(class_folder):
    moment = store.receive(PART, "ana", zip_of(HAND_IN), WHEN)
    [(kept_at, path)] = store.hand_ins_of(PART, "ana")
    assert moment == kept_at == WHEN
    assert os.path.basename(path) == "20261206T210000.123456Z.zip"
    stamp = datetime.datetime(2026, 12, 6, 21, 0, 0, 123456, tzinfo=datetime.UTC).timestamp()
    assert os.stat(path).st_mtime == pytest.approx(stamp, abs=1e-6)
    again = store.receive(PART, "ana", zip_of(HAND_IN), WHEN)  # the same microsecond: both kept
    assert again > WHEN and len(store.hand_ins_of(PART, "ana")) == 2
    assert store.zip_notebooks(path) == ["01-softmax.ipynb"]


@pytest.mark.parametrize(
    "data, why",
    [
        (zip_of(HAND_IN, link="outputs/x.txt"), "link"),
        (b"not a zip at all", "not a zip"),
        (zip_of({"../escape.py": b"x"}), "outside"),
        (zip_of({"big.bin": b"\0" * (unpack.MAX_BYTES + 1)}), "MiB"),  # a bomb: 8 MiB of zeros
    ],
    ids=["link", "not-a-zip", "outside", "bomb"],
)
def test_an_unsafe_hand_in_is_refused_and_nothing_is_kept(class_folder, data, why):
    with pytest.raises(unpack.Refused, match=why):
        store.receive(PART, "ana", data, WHEN)
    assert store.hand_ins_of(PART, "ana") == []
    assert os.listdir(exchange.inbound(PART, "ana")) == []  # no scratch left either


def test_a_damaged_member_is_refused_at_the_door(class_folder):
    """A zip whose directory is fine but whose file does not decompress (a bad CRC) is refused
    when received, as make collect would refuse it, not kept to fail there."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
        z.writestr("model.py", b"x = 1\n" * 200)
    data = bytearray(buffer.getvalue())
    data[data.index(b"x = 1") + 3] ^= 0xFF  # one byte of the file: its CRC no longer holds
    with pytest.raises(unpack.Refused):
        store.receive(PART, "ana", bytes(data), WHEN)
    assert store.hand_ins_of(PART, "ana") == []


def test_a_learners_share_is_bounded(class_folder, monkeypatch):
    monkeypatch.setattr(exchange, "MAX_HAND_INS", 3)
    for k in range(3):
        store.receive(PART, "ana", zip_of(HAND_IN), WHEN + datetime.timedelta(seconds=k))
    with pytest.raises(unpack.Refused, match="share"):
        store.receive(PART, "ana", zip_of(HAND_IN), WHEN + datetime.timedelta(seconds=9))
    assert len(store.hand_ins_of(PART, "ana")) == 3
    store.receive(PART, "ben", zip_of(HAND_IN), WHEN)  # another learner's share is their own


def test_an_edition_is_a_released_one_never_a_path(class_folder):
    os.makedirs(exchange.outbound(PART))
    with open(os.path.join(exchange.outbound(PART), "en.zip"), "wb") as f:
        f.write(zip_of(HAND_IN))
    store.receive(PART, "ana", zip_of(HAND_IN), WHEN)
    assert store.released() == {PART: ["en"]}
    assert store.released_zip(PART, "en").endswith("en.zip")
    sideways = os.path.relpath(store.hand_ins_of(PART, "ana")[0][1], exchange.outbound(PART))
    assert store.released_zip(PART, sideways.removesuffix(".zip")) is None
    assert store.released_zip("nothing", "en") is None
    store.unrelease(PART)
    assert store.released() == {} and store.hand_ins_of(PART, "ana")  # hand-ins stay


def test_collect_places_a_hand_in_in_a_class_with_no_downloaded_folder_yet(class_folder):
    moment = store.receive(PART, "ana", zip_of(HAND_IN), WHEN)
    assert not os.path.exists(paths.DOWNLOADED)
    store.place_for_collect(PART, "ana", *store.latest(PART)["ana"])
    assert store.is_placed(PART, "ana", moment)
    with zipfile.ZipFile(store.archived(PART, "ana")) as z:
        assert sorted(z.namelist()) == sorted(HAND_IN)


def test_collect_places_the_latest_and_keeps_an_instructors_own_zip(class_folder):
    store.receive(PART, "ana", zip_of(HAND_IN), WHEN)
    latest = store.receive(PART, "ana", zip_of(HAND_IN), WHEN + datetime.timedelta(hours=1))
    os.makedirs(paths.downloaded(PART))
    own = os.path.join(paths.downloaded(PART), "ana.zip")
    with open(own, "wb") as f:
        f.write(b"the LMS's zip")
    assert not store.is_placed(PART, "ana", latest)
    store.place_for_collect(PART, "ana", *store.latest(PART)["ana"])
    assert store.is_placed(PART, "ana", latest)
    [moved] = os.listdir(paths.downloaded(PART, "replaced"))
    with open(os.path.join(paths.downloaded(PART, "replaced"), moved), "rb") as f:
        assert f.read() == b"the LMS's zip"
    store.place_for_collect(PART, "ana", *store.latest(PART)["ana"])  # again: nothing more moved
    assert os.listdir(paths.downloaded(PART, "replaced")) == [moved]


def heavy_zip(path, entries=3, extra=60_000):
    """A zip whose directory entries each carry `extra` bytes of empty extra-field blocks: zipfile
    parses those in time quadratic in their length."""
    blocks = struct.pack("<HH", 0xCAFE, 0) * (extra // 4)
    with zipfile.ZipFile(path, "w") as z:
        for k in range(entries):
            info = zipfile.ZipInfo(f"f{k}.txt")
            info.extra = blocks
            z.writestr(info, b"x")


def test_a_zip_with_oversized_directory_fields_is_refused_before_zipfile_parses_it(tmp_path):
    heavy = tmp_path / "heavy.zip"
    heavy_zip(heavy)
    with pytest.raises(unpack.Refused, match="extra fields"):  # said by the check, not zipfile
        unpack.opened(str(heavy))
    plain = tmp_path / "plain.zip"
    plain.write_bytes(zip_of(HAND_IN))
    z, planned = unpack.opened(str(plain))
    z.close()
    assert sorted(p[-1] for _, p, _ in planned) == sorted(HAND_IN)
