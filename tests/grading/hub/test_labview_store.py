"""The live lab view's parts that need no hub (grading/hub/labview/, checkpoints/labview.py): what a
report may hold, how often, what the history keeps and exports, the room read from it, a page that
shows every word as text, and a learner's side that sends ids only, and only on the hub."""

import io
import json
import os
import socket
import subprocess
import sys
import types

import pytest

from checkpoints import labview
from checkpoints.attention import catalogue
from checkpoints.attention.steps import CHECKS
from checkpoints.xslm import checks as part_two
from grading.authoring.mistakes import buggy_model
from grading.authoring.mistakes.part_two import buggy
from grading.hub.labview import page, store
from grading.judge.reference import reference
from grading.paths import ROOT
from tests.fixtures.listener import listening


def report_of(model, checkpoint):
    """A real checkpoint report, and what the learner's side would share of it."""
    report = CHECKS[checkpoint](model)
    return report, labview.payload("attention", report)


def body(sent):
    """A report as the learner's side sends it."""
    return json.dumps(sent).encode()


def test_a_real_report_is_kept_as_ids_and_names_only():
    """A failing checkpoint's report, made by the checkpoint itself, passes the service's check;
    it names the failing checks by id and the mistake by its catalogue name, nothing else."""
    report, sent = report_of(buggy_model("softmax.no_max_shift"), "softmax")
    assert not report.passed and set(sent) == {"part", "checkpoint", "passed", "failed", "mistakes"}
    assert sent["mistakes"] == ["softmax.no_max_shift"] and sent["failed"]
    assert len(set(sent["failed"])) == len(sent["failed"])  # each failing check's id once
    assert store.checked(body(sent)) == sent
    shared = json.dumps(sent)
    for check in report.checks:  # no words, values or evidence of the learner's
        for text in (check.what, check.got, check.expected):
            assert not text or text not in shared


@pytest.mark.parametrize(
    "change",
    [
        {"part": "nope"},
        {"checkpoint": "softmax<script>"},
        {"failed": ["not-a-check"]},
        {"mistakes": ["<b>mine</b>"]},
        {"learner": "learner2"},  # a report never names its sender
        {"passed": "yes"},
        {"passed": 1},
        {"part": ["attention"]},  # not a name: refused, not a 500
        {"checkpoint": {"softmax": 1}},
        {"passed": True, "mistakes": ["softmax.no_max_shift"]},  # holds, yet names a mistake
        {"failed": [sorted(store.vocabulary("attention")[1])[0]] * (store.MAX_LISTED + 1)},
    ],
)
def test_a_report_the_course_could_not_have_sent_is_refused(change):
    """Unknown parts, checkpoints, check ids or names, markup, an extra field, a wrong type, too
    long a list: refused, with the reason."""
    _, sent = report_of(reference(), "softmax")
    with pytest.raises(store.Refused):
        store.checked(body({**sent, **change}))


def test_json_nested_past_pythons_depth_is_refused():
    """A body within the size limit, nested deeper than Python's parser goes, is refused."""
    deep = b'{"part": ' + b"[" * 1010 + b"]" * 1010 + b"}"
    assert len(deep) <= store.MAX_BODY
    with pytest.raises(store.Refused, match="JSON"):
        store.checked(deep)


def test_the_room_kept_report_by_report_is_the_room_of_the_history(tmp_path):
    """The service keeps the room as reports arrive (a page never reads the history): report by
    report it is what the whole history gives, and the page shows a retired check by its id."""
    _, failing = report_of(buggy_model("softmax.no_max_shift"), "softmax")
    _, passing = report_of(reference(), "softmax")
    history = store.History(f"sqlite:///{tmp_path / 'lab-view.sqlite'}")
    kept = store.Room()
    for at, learner, report in [(60.0, "a", failing), (70.0, "b", passing), (90.0, "a", failing),
                                (95.0, "b", failing), (130.0, "a", passing)]:  # fmt: skip
        kept.add(history.add(learner, report, at=at))
        assert kept.at(200.0) == store.room(history.rows(), 200.0)
    retired = {**failing, "failed": ["softmax.retired_check"]}
    shown = page.render(store.room([{"at": 60.0, "learner": "c", **retired}], 90.0), now=90.0)
    assert "softmax.retired_check" in shown


def test_too_big_or_not_json_is_refused():
    """More than MAX_BODY bytes, or not JSON at all."""
    with pytest.raises(store.Refused):
        store.checked(b"x" * (store.MAX_BODY + 1))
    with pytest.raises(store.Refused):
        store.checked(b"not json")


def test_a_learner_may_send_rate_reports_a_window_and_no_more():
    """RATE reports in WINDOW seconds, then refused, then allowed again; each learner apart."""
    limiter = store.Limiter()
    assert all(limiter.allow("learner1", 100.0 + i * 0.01) for i in range(store.RATE))
    assert not limiter.allow("learner1", 101.0)
    assert limiter.allow("learner2", 101.0)
    assert limiter.allow("learner1", 100.0 + store.WINDOW + 1)


def test_the_history_keeps_each_report_and_exports_it(tmp_path):
    """Reports are kept in SQLite (records/lab-view.sqlite, made with its folder) across
    openings, each as it came, and exported as CSV, one row each."""
    _, failing = report_of(buggy_model("softmax.no_max_shift"), "softmax")
    _, passing = report_of(reference(), "softmax")
    url = f"sqlite:///{tmp_path / 'records' / 'lab-view.sqlite'}"
    history = store.History(url)
    history.add("learner1", failing, at=1000.0)
    history.add("learner2", passing, at=1001.0)
    again = store.History(url).rows()
    assert again == [{"at": 1000.0, "learner": "learner1", **failing},
                     {"at": 1001.0, "learner": "learner2", **passing}]  # fmt: skip
    out = io.StringIO()
    history.write_csv(out)
    lines = out.getvalue().splitlines()
    assert lines[0].split(",") == list(store.COLUMNS) and len(lines) == 3
    assert "softmax.no_max_shift" in lines[1]


def test_the_room_shows_where_each_learner_is_what_fails_and_who_is_stuck(tmp_path):
    """Latest report per learner; the failing checks and mistakes counted over those failing
    now; the learner failing one checkpoint longest first; passes per minute."""
    _, failing = report_of(buggy_model("softmax.no_max_shift"), "softmax")
    _, passing = report_of(reference(), "softmax")
    rows = [
        {"at": 60.0, "learner": "a", **failing},
        {"at": 90.0, "learner": "b", **failing},
        {"at": 120.0, "learner": "a", **failing},
        {"at": 130.0, "learner": "c", **passing},
    ]
    twice = {**failing, "failed": failing["failed"] * 2, "mistakes": failing["mistakes"] * 2}
    rows.append({"at": 140.0, "learner": "b", **twice})  # a forged repeat counts b once
    room = store.room(rows, now=200.0)
    assert [r["learner"] for r in room["learners"]] == ["a", "b", "c"]
    assert room["mistakes"] == [("softmax.no_max_shift", 2)]
    assert dict(room["checks"]) == {check: 2 for check in failing["failed"]}  # a and b
    assert [(round(s), r["learner"]) for s, r in room["stuck"]] == [(140, "a"), (110, "b")]
    assert room["timeline"] == [(2, 1)]


def test_the_page_shows_every_word_as_text():
    """A name with markup in it (the hub's, here made up) is shown escaped; the mistake's title
    and the notebook that teaches it are on the page."""
    _, failing = report_of(buggy_model("softmax.no_max_shift"), "softmax")
    rows = [{"at": 60.0, "learner": "<script>alert(1)</script>", **failing}]
    shown = page.render(store.room(rows, now=90.0), now=90.0)
    assert "<script>alert(1)" not in shown and "&lt;script&gt;alert(1)" in shown
    assert "01-softmax.ipynb" in shown and "softmax.no_max_shift" in shown


class AtOnce:
    """A thread that runs its target when started, so the test sees its work done."""

    def __init__(self, target, args, daemon):
        self.target, self.args = target, args

    def start(self):
        """Run the target now."""
        self.target(*self.args)


def test_off_the_hub_a_checkpoint_sends_nothing(monkeypatch):
    """Without the hub's address (make lab, the site, a headless run), a checkpoint run opens no
    connection at all: the network is watched at the socket."""
    monkeypatch.delenv(labview.ADDRESS, raising=False)
    monkeypatch.setenv(labview.TOKEN, "a-token")
    connected = []
    monkeypatch.setattr(socket.socket, "connect", lambda self, where: connected.append(where))
    monkeypatch.setattr(labview, "threading", types.SimpleNamespace(Thread=AtOnce))
    run = CHECKS["softmax"]  # the checkpoint itself, as check("softmax") runs it
    report = run(reference())
    labview.share("attention", report)
    assert connected == [] and not labview.on_the_hub()


def test_the_learners_side_imports_no_http_client_until_it_sends(tmp_path):
    """The package as notebook 1's first cell imports it, and its checkpoints, leave urllib's
    client (http.client, ssl, email) unimported: the site's kernel, which never sends, starts
    without it (half the package's import time, measured in CPython)."""
    code = (
        "import sys\nfrom checkpoints import check, demo, ensure_model, save\n"
        "import checkpoints.labview, checkpoints.attention.steps, checkpoints.xslm.checks\n"
        "print(sorted({'urllib.request', 'http.client', 'ssl'} & set(sys.modules)))"
    )
    env = {**os.environ, "PYTHONPATH": ROOT}
    ran = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert ran.returncode == 0 and ran.stdout.strip() == "[]", (ran.stdout, ran.stderr)


def test_on_the_hub_a_checkpoint_sends_its_ids_with_the_servers_token(monkeypatch, capsys):
    """With the address and the token, the report's ids go to the lab view with the token, and
    the learner is told once."""
    monkeypatch.setenv(labview.TOKEN, "learner1-token")
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setattr(labview, "TOLD", [])
    monkeypatch.setattr(labview, "threading", types.SimpleNamespace(Thread=AtOnce))
    report, sent = report_of(buggy_model("softmax.no_max_shift"), "softmax")
    with listening() as (address, kept):
        monkeypatch.setenv(labview.ADDRESS, address)
        labview.share("attention", report)
        labview.share("attention", report)
    assert [(method, path) for method, path, _, _ in kept] == [
        ("POST", "/services/lab-view/api/report")
    ] * 2
    _, _, headers, received = kept[-1]
    assert headers["Authorization"] == "token learner1-token"
    assert json.loads(received) == sent
    assert capsys.readouterr().out.count("lab view") == 1


@pytest.mark.parametrize("name", sorted(catalogue.BY_NAME))
def test_every_part_one_mistake_is_shared_by_its_name(name):
    """Each catalogued mistake of part one, run by its checkpoint, is shared as a report the
    service keeps, naming it."""
    _, sent = report_of(buggy_model(name), catalogue.BY_NAME[name].checkpoint)
    assert store.checked(body(sent)) == sent and name in sent["mistakes"], sent


@pytest.mark.parametrize("name", sorted(part_two.BY_NAME))
def test_every_part_two_mistake_is_shared_by_its_name(name):
    """So is each of part two's, from its checkpoint on the learner's engine.py and gpt.py."""
    checkpoint = part_two.BY_NAME[name].checkpoint
    sent = labview.payload(
        "xslm", part_two.checkpoint_report(checkpoint, part_two.Local(*buggy(name)))
    )
    assert store.checked(body(sent)) == sent and name in sent["mistakes"], sent
