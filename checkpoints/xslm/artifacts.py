"""Part two's artifacts: the loss curve, the trained weights, and the samples, and their checks.

The checks read the files and recompute what they claim with a model they are handed: the
learner's own here; the reference in the grader, so the points never rest on the learner's code.
"""

import functools
import json
import math
import os
import re
import stat

from .. import i18n
from ..report import Check, Report
from .corpus import decode, encode, read_corpus, vocabulary, windows
from .probes import stated_shapes

LOSS_FILE, WEIGHTS_FILE, SAMPLES_FILE = "xslm-loss.txt", "xslm-weights.json", "xslm-samples.txt"
DIMS = [40, 8, 12]  # the lesson's vocabulary, width and context
STEPS_AT_LEAST = 200
FALL_AT_LEAST = 0.5  # the last 40 steps' mean loss under the first 40 steps' mean by this much
HELD_OUT_BELOW = 2.8  # ln 40 ≈ 3.69 is guessing; the notebook's 240 steps reach about 1.9
PROMPTS = [("the cat", 0.5), ("the dog", 0.5), ("the bird", 1.0)]  # the samples step 5 writes
SAMPLE_STEPS, SAMPLE_SEED = 12, 1

say = i18n.speaker("xslm_artifacts")


@functools.cache
def course_tokens():
    """(vocabulary, the corpus as ids), read once per process (the judge asks for every learner)."""
    text = read_corpus()
    vocab = vocabulary(text)
    return vocab, encode(text, vocab)


def held_out_pairs():
    """The last tenth of the corpus's 12-token windows: never trained on in step 4."""
    vocab, ids = course_tokens()
    pairs = windows(ids, DIMS[2])
    return pairs[-len(pairs) // 10 :]


def read_losses(text):
    """[(step, loss)] from the loss file's lines "<step> <loss>"; None if a line is not that."""
    rows = []
    for line in text.strip().splitlines():
        found = re.fullmatch(r"\s*(\d+)\s+([-+0-9.eE]+|nan|inf)\s*", line)
        if not found:
            return None
        rows.append((int(found.group(1)), float(found.group(2))))
    return rows


def read_state(text):
    """The weights file as {name: rows} when it holds the nine matrices of 40/8/12, else None."""
    try:
        state = json.loads(text)
        shapes = {n: [len(m), len(m[0])] for n, m in state.items()}
        numbers = all(isinstance(x, (int, float)) for m in state.values() for r in m for x in r)
    except (ValueError, TypeError, AttributeError, IndexError):
        return None
    return state if numbers and shapes == stated_shapes(*DIMS) else None


MAX_BYTES = 2 << 20


def read(folder, name):
    """A regular file's text from folder (a link is not followed; at most 2 MiB), or None."""
    try:
        fd = os.open(os.path.join(folder, name), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return None
        return f.read().decode("utf-8", "replace")


def loss_report(folder, held_out_loss):
    """The loss curve and the weights: enough steps, a falling curve, weights that learned.

    held_out_loss(state) is the mean loss of a 40/8/12 model with those weights on the held-out
    windows.
    """
    text, weights = read(folder, LOSS_FILE), read(folder, WEIGHTS_FILE)
    rows = read_losses(text) if text else None
    enough = rows is not None and len(rows) >= STEPS_AT_LEAST
    checks = [
        Check(say("loss_steps", steps=STEPS_AT_LEAST), enough,
              got=say("steps_found", steps=len(rows)) if rows else say("no_file", file=LOSS_FILE)),
    ]  # fmt: skip
    if enough:
        losses = [v for _, v in rows]
        first, last = sum(losses[:40]) / 40, sum(losses[-40:]) / 40
        falls = math.isfinite(last) and last <= first - FALL_AT_LEAST
        means = say("means", first=f"{first:.3f}", last=f"{last:.3f}")
        checks.append(Check(say("loss_falls", margin=FALL_AT_LEAST), falls, got=means))
    state = read_state(weights) if weights else None
    checks.append(Check(say("weights_shape"), state is not None,
                        got=None if weights else say("no_file", file=WEIGHTS_FILE)))  # fmt: skip
    if state is not None:
        value = held_out_loss(state)
        learned = isinstance(value, float) and value < HELD_OUT_BELOW
        got = f"{value:.3f}" if isinstance(value, float) else repr(value)
        checks.append(Check(say("weights_learned", below=HELD_OUT_BELOW), learned, got=got))
    return Report(LOSS_FILE, checks)


def expected_samples(state, generate_text):
    """The three lines step 5 writes, made with generate_text(state, prompt, temperature)."""
    return [f"T={t} | {generate_text(state, p, t)!r}" for p, t in PROMPTS]


def samples_report(folder, generate_text):
    """The samples: one line per prompt, and exactly what the trained weights generate.

    generate_text(state, prompt, temperature) -> text, with SAMPLE_STEPS steps and SAMPLE_SEED.
    """
    text = read(folder, SAMPLES_FILE)
    lines = text.strip().splitlines() if text else []
    found = say("lines_found", count=len(lines)) if text else say("no_file", file=SAMPLES_FILE)
    checks = [
        Check(say("samples_lines", count=len(PROMPTS)), len(lines) == len(PROMPTS), got=found)
    ]
    state = read_state(read(folder, WEIGHTS_FILE) or "")
    if len(lines) == len(PROMPTS) and state is not None:
        want = expected_samples(state, generate_text)
        differ = next((k for k, (a, b) in enumerate(zip(lines, want)) if a.strip() != b), None)
        checks.append(Check(say("samples_match"), differ is None,
                            got=None if differ is None else lines[differ],
                            expected=None if differ is None else want[differ]))  # fmt: skip
    return Report(SAMPLES_FILE, checks)


def model_functions(load, loss, generate):
    """held_out_loss(state) and generate_text(state, prompt, temperature) for one kind of model:
    load(state) -> a 40/8/12 model, loss(model, inputs, targets) -> a number, and
    generate(model, ids, steps, temperature, seed) -> ids, as gpt.py's step 4 and 5 have them."""

    def held_out_loss(state):
        m, pairs = load(state), held_out_pairs()
        return sum(float(loss(m, i, t)) for i, t in pairs) / len(pairs)

    def generate_text(state, prompt, temperature):
        vocab = course_tokens()[0]
        ids = generate(load(state), encode(prompt, vocab), SAMPLE_STEPS, temperature, SAMPLE_SEED)
        return decode(ids, vocab)

    return held_out_loss, generate_text


def learner_model(engine, gpt):
    """held_out_loss and generate_text made with the learner's own files."""

    def load(state):
        m = gpt.GPT(*DIMS)
        m.load(state)
        return m

    # looked up when called: in step 4, gpt.py has no generate yet
    return model_functions(load, lambda m, i, t: gpt.loss(m, i, t).data,
                           lambda *args: gpt.generate(*args))  # fmt: skip


ARTIFACTS = {LOSS_FILE: ["GPT", "loss"], SAMPLES_FILE: ["GPT", "generate"]}  # what each needs
