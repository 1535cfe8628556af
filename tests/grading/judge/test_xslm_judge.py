"""Part two's judge (grading/judge/xslm.py): what its hidden training case asks, and how it asks
the learner's worker each question once."""

import os

import pytest

import xslm
from checkpoints.xslm import artifacts, checks, files, probes
from checkpoints.xslm.checks import CLAIMS, Probe
from grading.authoring.mistakes import part_two
from grading.judge import xslm as xslm_judge
from grading.judge import xslm_hidden
from grading.parts import PARTS
from grading.paths import ROOT

pytestmark = pytest.mark.xslm

LEARNING_CELL = "xslm04-learning-hidden"


def training_case():
    """The hidden learning group's training case: its arguments."""
    (args,) = [a for claim, _, a in xslm_hidden.cases("learning") if claim == "train_lowers"]
    return args


def test_the_reference_learns_by_the_stated_margin_in_the_hidden_training_case():
    """The reference's own train_step, run as the hidden case runs it, lowers the mean loss of
    its windows by at least TRAIN_FALL, one loss per step, each below the loss before training
    started; the judge's own test of an answer agrees."""
    answer = probes.as_lists(probes.training(xslm.engine, xslm.gpt, *training_case()))
    losses, before, after = answer
    assert len(losses) == xslm_hidden.TRAIN_STEPS
    assert after <= before - xslm_hidden.TRAIN_FALL
    assert xslm_judge.learned(answer)
    assert not xslm_judge.learned([losses, before, before - xslm_hidden.TRAIN_FALL / 2])


def handed_in(folder, name=None):
    """Part two's reference submission in folder, with one catalogued mistake if named."""
    for made, kept in PARTS["xslm"].reference.items():
        with open(os.path.join(ROOT, kept), encoding="utf-8") as f:
            text = f.read()
        target = folder / made
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    for made, text in (part_two.buggy_texts(name) if name else {}).items():
        (folder / made).write_text(text, encoding="utf-8")
    return str(folder)


@pytest.mark.parametrize("name", [None, "gpt.stale_gradients"])
def test_stale_gradients_fail_the_hidden_training_case_and_the_reference_passes(tmp_path, name):
    """Gradients kept from the step before make the hidden learning cell fail on the training
    case; the reference passes every case of it."""
    verdicts, _ = xslm_judge.judge_folder(handed_in(tmp_path, name), [LEARNING_CELL])
    verdict = verdicts[LEARNING_CELL]
    assert verdict.passed is (name is None), verdict.text
    assert verdict.record["cases"] == len(xslm_hidden.cases("learning"))
    if name:
        assert verdict.record["failed"] >= 1
        assert CLAIMS["train_lowers"] in verdict.text


class CountingWorker:
    """A worker that answers every probe with the number of questions asked so far."""

    def __init__(self):
        self.asked = []

    def call(self, name, args, kwargs, seconds=None):
        self.asked.append(args)
        return len(self.asked)


def test_a_probe_asked_again_unchanged_is_answered_once_and_a_new_id_always_asks():
    """The fresh pass's unchanged 20,000-step chain, or the diagnosis's second look at a visible
    probe, reuse the first answer; generate.again asks what generate.sample asked, and both go
    to the worker (the seed's effect is what it checks); new arguments ask again."""
    worker = CountingWorker()
    run = xslm_judge.RemoteRun(worker)
    chain = Probe("Value.deep", "chain", [20_000])
    assert [run(chain), run(Probe("Value.deep", "chain", [20_000]))] == [1, 1]
    sample = ["TINY", "state", [1, 2], 8, 1.0, 4]
    first = run(Probe("generate.sample", "sample", sample))
    again = run(Probe("generate.again", "sample", sample))
    assert (first, again) == (2, 3)
    assert run(Probe("Value.deep", "chain", [20_001])) == 4
    assert len(worker.asked) == 4


ENGINE_CELLS = [  # the cells of engine.py's checkpoints: notebook 1's and notebook 2's
    g
    for g, (kind, name) in xslm_judge.CELLS.items()
    if kind != "artifact"
    and all(files.file_of(c) == files.ENGINE_FILE for c in xslm_judge.CHECKPOINTS.get(name, [name]))
]


def test_a_hidden_checks_diagnosis_reuses_the_answers_its_groups_visible_cells_got(
    tmp_path, monkeypatch
):
    """Softmax without the max shift fails its cells; the hidden layers check's diagnosis asks
    the visible probes the softmax, linear and norm cells asked, of the same worker, so none
    goes to the worker twice, and the mistake is still named."""
    asked = []
    ask = xslm_judge.RemoteRun.ask

    def counted(run, probe):
        asked.append((probe.id, repr(probe.args)))
        return ask(run, probe)

    monkeypatch.setattr(xslm_judge.RemoteRun, "ask", counted)
    verdicts, _ = xslm_judge.judge_folder(
        handed_in(tmp_path, "engine.softmax_no_shift"), ENGINE_CELLS
    )
    assert not verdicts["xslm02-layers-hidden"].passed
    assert "engine.softmax_no_shift" in verdicts["xslm02-layers-hidden"].record["diagnosis"]
    assert len(asked) == len(set(asked))


def test_prepare_decides_the_artifact_cells_while_the_workers_start_and_as_without_it(tmp_path):
    """prepare() decides the cells checked in the judge's own process (the artifacts) before any
    verdict is asked for, and decides them as a judgement without prepare() does: a tampered
    samples file fails both ways, with the same words."""
    folder = handed_in(tmp_path)
    samples = os.path.join(folder, "outputs", artifacts.SAMPLES_FILE)
    with open(samples, "a", encoding="utf-8") as f:
        f.write("a line the model never wrote\n")
    ahead = xslm_judge.Judgement(folder)
    try:
        ahead.prepare(list(xslm_judge.CELLS))
        artifact_cells = {g for g, (kind, _) in xslm_judge.CELLS.items() if kind == "artifact"}
        assert set(ahead.verdicts) == artifact_cells
        decided = dict(ahead.verdicts)
    finally:
        ahead.close()
    plain = xslm_judge.Judgement(folder)
    try:
        for grade_id in artifact_cells:
            assert plain.verdict(grade_id) == decided[grade_id]
    finally:
        plain.close()
    assert not decided["xslm05-samples-artifact"].passed
    assert decided["xslm04-loss-artifact"].passed


def started_processes(judgement):
    """The sandboxed processes of a judgement's workers."""
    return [w.process for w in judgement.workers.values() if isinstance(w, xslm_judge.Worker)]


def test_prepare_starts_the_workers_gradable_cells_need_and_close_ends_even_unused_ones(tmp_path):
    """prepare() starts one worker per group of sections before any verdict; a group whose
    file was never saved gets none (without gpt.py: the engine's two, Value and the layers).
    close() ends them all, used or not."""
    folder = handed_in(tmp_path)
    judgement = xslm_judge.Judgement(folder)
    judgement.prepare(list(xslm_judge.CELLS))
    groups = {
        tuple(xslm_judge.OWN[name])
        for kind, name in xslm_judge.CELLS.values()
        if kind != "artifact"
    }
    assert set(judgement.workers) == groups
    processes = started_processes(judgement)
    assert len(processes) == len(groups) and all(p.poll() is None for p in processes)
    assert judgement.verdict("xslm03-gpt-checks").passed
    judgement.close()
    assert all(p.poll() is not None for p in processes)

    os.remove(os.path.join(folder, "gpt.py"))
    judgement = xslm_judge.Judgement(folder)
    judgement.prepare(list(xslm_judge.CELLS))
    assert set(judgement.workers) == {tuple(xslm_judge.OWN[g]) for g in ("Value", "layers")}
    processes = started_processes(judgement)
    judgement.close()
    assert all(p.poll() is not None for p in processes)


VALUE_CELLS = {"xslm01-value-checks", "xslm01-value-hidden"}


def cells_of(checkpoint):
    """The graded cells that judge a checkpoint: its own, and the hidden cell of its group."""
    return {
        g
        for g, (kind, name) in xslm_judge.CELLS.items()
        if kind != "artifact" and checkpoint in xslm_judge.CHECKPOINTS.get(name, [name])
    }


@pytest.mark.parametrize("name", [m.name for m in checks.MISTAKES])
def test_a_catalogued_mistake_costs_only_its_own_checkpoints_cells(tmp_path, name):
    """Isolation, for every catalogued mistake of part two: with the reference's code everywhere
    else, only the cells of the mistake's checkpoint fail, and the mistake is named there. An
    engine bug keeps every layer, GPT and training point (the layers are judged on the
    reference's Value)."""
    checkpoint = checks.BY_NAME[name].checkpoint
    verdicts, _ = xslm_judge.judge_folder(handed_in(tmp_path, name))
    failed = {g for g, v in verdicts.items() if not v.passed}
    assert failed and failed <= cells_of(checkpoint), {g: verdicts[g].text[:300] for g in failed}
    assert any(name in verdicts[g].record.get("diagnosis", []) for g in failed)


LAYER_CELLS = {g for g in xslm_judge.CELLS if g.startswith("xslm02")}
VALUE_END = "# ── end of step 1: Value"


def with_engine_edit(folder, *replacements):
    """The reference submission in folder, each (old, new) replaced once in its engine.py."""
    handed_in(folder)
    engine = folder / "engine.py"
    text = engine.read_text(encoding="utf-8")
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    engine.write_text(text, encoding="utf-8")
    return str(folder)


def test_a_layer_calls_a_helper_the_learner_wrote_with_their_value(tmp_path):
    """The layers run on the reference's Value, and still reach a helper of the learner's own
    written in their Value section (loaded beneath the reference's): every cell keeps its
    points."""
    helper = "def as_number(v):\n    return v.data if isinstance(v, Value) else v\n\n\n"
    folder = with_engine_edit(
        tmp_path,
        (VALUE_END, helper + VALUE_END),
        ("top = max(v.data for v in values)", "top = max(as_number(v) for v in values)"),
    )
    verdicts, _ = xslm_judge.judge_folder(folder, sorted(LAYER_CELLS))
    assert all(v.passed for v in verdicts.values()), {g: v.text for g, v in verdicts.items()}


def test_a_value_section_that_does_not_parse_costs_only_the_engines_cells(tmp_path):
    """A typo in the Value section fails notebook 1's cells; the layers, judged on the
    reference's Value, keep their points."""
    folder = with_engine_edit(tmp_path, (VALUE_END, "def (:\n" + VALUE_END))
    verdicts, _ = xslm_judge.judge_folder(folder, sorted(VALUE_CELLS | LAYER_CELLS))
    failed = {g for g, v in verdicts.items() if not v.passed}
    assert failed == VALUE_CELLS, {g: verdicts[g].text[:300] for g in failed}
