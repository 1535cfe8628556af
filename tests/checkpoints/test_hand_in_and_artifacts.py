"""What the hand-in and artifact cells show. hand_in() zips the notebooks as saved on disk: when
the notebook that calls it was last saved before this run began (a headless run writes it back
only after its last cell), the cell says so and asks for a save first. An artifact of hundreds of
lines (part two's loss curve) is shown by its ends."""

import json
import os
import time
import zipfile

from checkpoints import handin, session


def notebook(path, grade_id, source):
    """A notebook with one graded cell (grade_id) and one code cell holding source."""
    graded = {"nbgrader": {"grade_id": grade_id}}
    cells = [{"cell_type": "markdown", "source": "x", "metadata": graded},
             {"cell_type": "code", "source": source, "metadata": {}, "outputs": []}]  # fmt: skip
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, f)


def test_a_notebook_saved_before_this_run_is_named(tmp_path):
    """Both notebooks saved before the run: only the one whose cell calls hand_in() is named; once
    it is saved again, nothing is."""
    notebook(tmp_path / "01-a.ipynb", "step01-a", "print(1)")
    notebook(
        tmp_path / "08-notes.ipynb", "step08-notes", "from checkpoints import hand_in\nhand_in()"
    )
    earlier = session.STARTED - 60
    for name in ("01-a.ipynb", "08-notes.ipynb"):
        os.utime(tmp_path / name, (earlier, earlier))
    report = handin.hand_in("attention", "step", [], [], folder=str(tmp_path))
    assert report.unsaved == ["08-notes.ipynb"]
    assert any("08-notes.ipynb" in line and "save" in line for line in report.lines()), report
    with zipfile.ZipFile(tmp_path / "hand-in-attention.zip") as z:
        assert sorted(z.namelist()) == ["01-a.ipynb", "08-notes.ipynb"]
    now = time.time()
    os.utime(tmp_path / "08-notes.ipynb", (now, now))
    report = handin.hand_in("attention", "step", [], [], folder=str(tmp_path))
    assert report.unsaved == [] and not any("08-notes.ipynb" in line for line in report.lines())


def test_a_long_artifact_is_shown_by_its_ends(tmp_path, monkeypatch, capsys):
    """write_artifact of 240 loss lines writes them all and shows the first and last five around
    one line saying how many are left out and where; a short artifact is shown whole."""
    monkeypatch.chdir(tmp_path)
    lines = [f"{k} {3.7 - k / 100:.6f}" for k in range(240)]
    session.write_artifact("xslm-loss.txt", "\n".join(lines))
    shown = capsys.readouterr().out.splitlines()
    assert (tmp_path / "outputs" / "xslm-loss.txt").read_text().splitlines() == lines
    assert shown[1:6] == lines[:5] and shown[-5:] == lines[-5:] and len(shown) == 12, shown
    assert "230" in shown[6] and "outputs/xslm-loss.txt" in shown[6], shown[6]
    session.write_artifact("02-scale.txt", "scaled: 0.2\nunscaled: 0.9")
    assert capsys.readouterr().out.splitlines()[1:] == ["scaled: 0.2", "unscaled: 0.9"]
