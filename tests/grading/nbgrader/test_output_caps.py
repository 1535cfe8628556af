"""The caps on a graded notebook's outputs (grading/nbgrader/output_caps.py), fed the messages a
kernel sends without a kernel: nbgrader's Execute as SandboxedExecute has it, its cells, and
iopub messages in nbclient's own handling (process_message). The hostile lanes grade two floods
through real kernels in every lane (tests/grading/test_hostile_lanes.py)."""

import nbformat
import pytest

from checkpoints import i18n
from grading.nbgrader import output_caps
from grading.nbgrader.preprocess import SandboxedExecute

CELL, NOTEBOOK = 3000, 8000  # small caps: a few messages pass them


def message(kind, **content):
    """One iopub message of kind, as jupyter_client hands it to nbclient, answering cell "p"."""
    return {"msg_type": kind, "header": {"msg_type": kind}, "parent_header": {"msg_id": "p"},
            "metadata": {}, "content": content}  # fmt: skip


def printed(text):
    """A stream message on stdout."""
    return message("stream", name="stdout", text=text)


@pytest.fixture
def client():
    """SandboxedExecute on a notebook of four code cells, as between two messages of a run."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass") for _ in range(4)])
    client = SandboxedExecute()
    client.nb = nb
    client.reset_execution_trackers()
    client.clear_before_next_output = False
    client.budget = output_caps.Budget(cell=CELL, notebook=NOTEBOOK)
    return client


def send(client, index, *messages):
    """Hand messages to nbclient as arriving for cell index; that cell's outputs."""
    cell = client.nb.cells[index]
    for msg in messages:
        client.process_message(msg, cell, index)
    return cell.outputs


def kept_bytes(outputs, note):
    """The bytes the outputs (the note left out) add to a notebook file, as nbformat writes it."""
    kept = [o for o in outputs if o.get("text") != note]
    cell = nbformat.v4.new_code_cell("pass")
    empty = len(nbformat.writes(nbformat.v4.new_notebook(cells=[cell])).encode())
    cell.outputs = kept
    return len(nbformat.writes(nbformat.v4.new_notebook(cells=[cell])).encode()) - empty


def note(client, which, edition="en"):
    """The line the notebook shows where a cap cut its output (the caps' own wording)."""
    limit = CELL if which == "cell" else NOTEBOOK
    words = i18n.lookup("judge", f"output_cut_{which}", edition)
    return words.format(limit=output_caps.mebibytes(limit)) + "\n"


@pytest.mark.parametrize(
    "line", ["x" * 99 + "\n", "가나다 かなカナ\n" * 10, "\n" * 60], ids=["long", "cjk", "empty"]
)
def test_a_flooding_cell_keeps_its_cap_and_says_where_it_was_cut(client, line):
    """Forty prints (long lines, Korean and Japanese, empty lines) into a cap of 3,000 bytes of
    the notebook's file: the first few are kept, the rest is dropped as it comes, and one line
    (not forty) says so, last."""
    outputs = send(client, 1, *[printed(line) for _ in range(40)])
    cut = note(client, "cell")
    assert outputs[-1]["text"] == cut
    assert [o["text"] for o in outputs].count(cut) == 1
    assert 0 < kept_bytes(outputs, cut) <= CELL
    assert len(outputs) < 40
    problem = client.budget.problem("01-softmax")
    assert problem.startswith("01-softmax: output capped") and "in cell 2 " in problem


def test_the_notebook_cap_counts_every_cell(client):
    """Cells each under their own cap, the notebook over its: the cell that passes it is cut,
    and so is every later cell, each saying it was the notebook's cap."""
    for index in range(4):
        send(client, index, *[printed("y" * 800) for _ in range(3)])
    kept = sum(kept_bytes(c.outputs, note(client, "notebook")) for c in client.nb.cells)
    assert kept <= NOTEBOOK
    assert client.nb.cells[0].outputs[-1]["text"] == "y" * 800  # under both caps: untouched
    assert client.nb.cells[3].outputs[-1]["text"] == note(client, "notebook")
    assert f"{output_caps.mebibytes(NOTEBOOK)} per notebook" in client.budget.problem("04-x")


def test_cleared_output_no_longer_counts(client):
    """A progress line redrawn with clear_output (at once, or when the next one comes) never
    passes the cap, however long it runs: what is cleared is not held."""
    for step in range(30):
        send(client, 0, message("clear_output", wait=step % 2 == 0), printed(f"step {step} " * 20))
    assert client.budget.cut == {}
    assert [o["text"] for o in client.nb.cells[0].outputs] == ["step 29 " * 20]


def test_a_display_update_counts_once_for_every_output_it_rewrites(client):
    """Twenty small outputs under one display id, ten in each of two cells, then one update of
    400 characters: it would add over 4,000 bytes to each of those cells, so it is dropped; a
    small one is not."""
    shown = message("display_data", data={"text/plain": "."}, metadata={},
                    transient={"display_id": "d"})  # fmt: skip
    for index in range(2):
        send(client, index, *[shown] * 10)
    big = message("update_display_data", data={"text/plain": "z" * 400}, metadata={},
                  transient={"display_id": "d"})  # fmt: skip
    outputs = send(client, 2, big)
    assert all(o["data"]["text/plain"] == "." for c in client.nb.cells[:2] for o in c.outputs)
    assert outputs[-1]["text"] == note(client, "cell")
    small = message("update_display_data", data={"text/plain": "ok"}, metadata={},
                    transient={"display_id": "d"})  # fmt: skip
    send(client, 3, small)
    assert all(o["data"]["text/plain"] == "ok" for c in client.nb.cells[:2] for o in c.outputs)


def test_the_replys_error_is_capped_too(client):
    """nbgrader adds the execute reply's error when no output showed it (its own output was
    dropped, say): a traceback over the cap keeps its name and the note, not its lines."""
    cell = client.nb.cells[0]
    send(client, 0, printed("w" * (CELL - 300)))
    reply = {"content": {"status": "error", "ename": "ValueError", "evalue": "v" * 5000,
                         "traceback": ["line"] * 500}}  # fmt: skip
    client.on_cell_executed(cell=cell, cell_index=0, execute_reply=reply)
    error = cell.outputs[-1]
    assert error["output_type"] == "error" and error["ename"] == "ValueError"
    assert len(error["evalue"]) == output_caps.KEPT_CHARS
    assert error["traceback"] == [note(client, "cell").rstrip("\n")]


@pytest.mark.parametrize("edition", ["ko", "ja"])
def test_the_note_speaks_the_notebooks_edition(client, edition):
    """A Korean or Japanese notebook's cut says so in its own language."""
    client.edition = edition
    outputs = send(client, 0, *[printed("x" * 1200) for _ in range(3)])
    assert outputs[-1]["text"] == note(client, "cell", edition)
    assert outputs[-1]["text"] != note(client, "cell", "en")


def test_no_widget_is_mimicked(client):
    """A widget's state and an Output widget's outputs would bypass the caps: neither is kept."""
    assert client.store_widget_state is False
    state = {"_model_module": "@jupyter-widgets/output", "_model_name": "OutputModel"}
    opened = message("comm_open", comm_id="c", target_name="jupyter.widget",
                     data={"state": state, "buffer_paths": []})  # fmt: skip
    send(client, 0, opened)
    assert client.comm_objects == {} and client.widget_state == {}


def test_an_update_counts_in_the_cell_that_holds_the_output_whatever_clears_after(client):
    """An update sent from cell 2 grows an output of cell 0: cell 0 holds it, and cell 2
    clearing its own outputs takes nothing off (otherwise every cell could grow cell 0 again)."""
    send(client, 0, message("display_data", data={"text/plain": "."}, metadata={},
                            transient={"display_id": "d"}))  # fmt: skip
    send(client, 2, message("update_display_data", data={"text/plain": "u" * 2000}, metadata={},
                            transient={"display_id": "d"}),
         message("clear_output", wait=False))  # fmt: skip
    assert (
        client.budget.held[0] > 2000
        and client.nb.cells[0].outputs[0]["data"]["text/plain"][0] == "u"
    )


def test_a_delayed_clear_happens_even_when_the_next_output_is_dropped(client):
    """clear_output(wait=True), then an output over the cap: the old outputs go (nbclient would
    keep them while the budget counted them gone)."""
    outputs = send(client, 0, printed("o" * 2000), message("clear_output", wait=True),
                   printed("x" * (CELL + 100)))  # fmt: skip
    assert not any("o" * 100 in o.get("text", "") for o in outputs)
    assert [o["text"] for o in outputs] == [note(client, "cell")]


def test_the_note_is_written_once_a_cell_however_often_it_clears(client):
    send(client, 0, printed("w" * (CELL - 400)), printed("w" * (CELL - 400)))  # near the total
    send(client, 1, printed("w" * (CELL - 400)))
    for _ in range(50):
        outputs = send(client, 1, message("clear_output", wait=True), printed("y" * 3000))
    assert len(outputs) <= 1


@pytest.mark.parametrize("levels", [450, 5000])
def test_deeply_nested_metadata_is_dropped_without_recursion(client, levels):
    nested = []
    for _ in range(levels):
        nested = [nested]
    outputs = send(client, 0, message("display_data", data={"text/plain": "."},
                                      metadata={"m": nested}))  # fmt: skip
    assert [o.get("text") for o in outputs] == [note(client, "cell")]


def test_display_ids_too_long_or_too_many_are_not_kept(client):
    """nbclient keeps every display id it saw until the notebook ends: a long one, or one past
    MAX_IDS, is taken away (its output stays, counted like any other)."""
    long_id = "z" * (output_caps.ID_CHARS + 1)
    client.budget = output_caps.Budget()  # the course's own caps: many small outputs fit
    send(client, 0, message("display_data", data={"text/plain": "."}, metadata={},
                            transient={"display_id": long_id}))  # fmt: skip
    for k in range(output_caps.MAX_IDS + 5):
        shown = message("display_data", data={"text/plain": "."}, metadata={},
                        transient={"display_id": f"id{k}"})  # fmt: skip
        send(client, 1, shown, message("clear_output"))
    assert (
        long_id not in client._display_id_map and len(client._display_id_map) == output_caps.MAX_IDS
    )
    assert client.nb.cells[0].outputs[0]["data"]["text/plain"] == "."


def test_an_execution_count_that_is_not_a_number_is_not_kept(client):
    cell = client.nb.cells[0]
    cell.metadata["execution"] = {}  # where nbclient notes the time of a status
    send(client, 0, message("status", execution_state="busy", execution_count="9" * 10_000))
    assert cell.execution_count is None
