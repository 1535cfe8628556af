"""hand_in() zips the notebooks as saved on disk: when the notebook that calls it was last saved
before this run began (a headless run writes it back only after its last cell), the cell says so
and asks for a save first."""

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
