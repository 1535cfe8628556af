"""What a grading server reuses that nbgrader rebuilds (grading/scale/server.py,
grading/nbgrader/records.py): the same answers, built once."""

import os
import signal
import sys

import nbformat
import pytest
from nbgrader import api
from nbgrader.nbgraderformat import common
from nbgrader.nbgraderformat.v3 import MetadataValidatorV3

from grading.nbgrader import records
from grading.scale import server

GOOD = {"grade": True, "grade_id": "step01-softmax-checks", "locked": True, "points": 2,
        "schema_version": 3, "solution": False, "task": False}  # fmt: skip


def outcome(meta, validator=None):
    """None when nbgrader's own validator accepts a cell with this metadata, else its message
    (a new validator, with a schema object of its own, unless one is given)."""
    cell = nbformat.v4.new_code_cell("check()", metadata={"nbgrader": dict(meta)})
    try:
        (validator or MetadataValidatorV3()).validate_cell(cell)
    except Exception as err:  # jsonschema's ValidationError, or nbgrader's schema errors
        return f"{type(err).__name__}: {err}"
    return None


CASES = [GOOD, {**GOOD, "points": "two"}, {**GOOD, "grade": "yes"}, {**GOOD, "extra": 1},
         {k: v for k, v in GOOD.items() if k != "locked"}]  # fmt: skip


def test_one_validator_per_schema_says_what_nbgrader_says(monkeypatch):
    """Cell metadata, valid and not: the same verdict and message before and after."""
    monkeypatch.setattr(common, "jsonschema", common.jsonschema)  # put back after the test
    before = [outcome(meta) for meta in CASES]
    assert before[0] is None and all(before[1:3])  # the cases test something
    server.one_validator_per_schema()
    assert common.jsonschema.validate is not __import__("jsonschema").validate
    assert [outcome(meta) for meta in CASES] == before
    one = MetadataValidatorV3()  # as nbgrader checks a notebook: one schema object, many cells
    assert [outcome(meta, one) for meta in CASES + CASES[::-1]] == before + before[::-1]
    server.one_validator_per_schema()  # twice changes nothing
    assert [outcome(meta) for meta in CASES] == before


def test_one_engine_per_gradebook_shares_it_and_keeps_every_write(monkeypatch, tmp_path):
    """Two Gradebooks on one database share an engine; what one writes, the other reads, also
    after the first is closed (its close disposes of connections, not of the engine's use)."""
    monkeypatch.setattr(api, "create_engine", api.create_engine)  # put back after the test
    tools = os.path.dirname(sys.executable)  # a new gradebook runs alembic, as nbgrader does
    monkeypatch.setenv("PATH", tools + os.pathsep + os.environ.get("PATH", ""))
    records.one_engine_per_gradebook()
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    first = api.Gradebook(url)
    first.add_student("ada", first_name="Ada")
    second = api.Gradebook(url)
    assert second.engine is first.engine
    first.close()
    assert second.find_student("ada").first_name == "Ada"
    second.add_student("alan")
    second.close()
    with api.Gradebook(url) as third:
        assert {s.id for s in third.students} == {"ada", "alan"}
    with (
        api.Gradebook(f"sqlite:///{tmp_path / 'other.db'}") as other,
        pytest.raises(api.MissingEntry),
    ):
        other.find_student("ada")  # another database: another engine, its own rows


def test_a_server_told_to_stop_leaves_on_its_own_and_a_hung_one_is_killed():
    """stop(): stdin closed, the server ends its loop and exits 0 (so its exit handlers remove its
    temporary folders, which a kill would leave in /tmp); stop(grace=0), as for a server that hung
    on a submission: killed at once (SIGKILL). Either way nothing of its group is left."""
    ended = []
    for grace in (server.STOP_GRACE, 0):
        one = server.Server()
        one.stop(grace=grace)
        ended.append(one.process.returncode)
        with pytest.raises(ProcessLookupError):
            os.killpg(one.process.pid, 0)
    assert ended == [0, -9]


def test_stopping_a_server_that_died_and_was_waited_for_is_quiet():
    """As when a server dies on a submission (grade() waits for it to say its exit code), then
    the farm stops it before starting another: no error, and its group is gone."""
    dead = server.Server()
    os.killpg(dead.process.pid, signal.SIGKILL)
    assert dead.process.wait() == -9
    dead.stop()
    with pytest.raises(ProcessLookupError):
        os.killpg(dead.process.pid, 0)
