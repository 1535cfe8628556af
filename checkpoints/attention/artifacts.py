"""The three artifacts: the experiments that make their numbers, and the checks that read them."""

import math
import os
import re

from .. import i18n
from ..compare import numbers_close
from ..report import Check, Report
from ..session import OUTPUTS
from .probes import seeded_matrix

SCALE_FILE, PERM_FILE, NOTES_FILE = "02-scale.txt", "05-perm.txt", "08-notes.md"


say = i18n.speaker("artifacts")  # locales/<edition>.json, section "artifacts"


def largest_weight(weights):
    """max over all weights: near 1/n when attention spreads, near 1 when it picks one key."""
    return max(max(row) for row in weights)


def scale_inputs(n=8, d=64, seed=0):
    """Seeded Q, K, V (n × d) and Q·√d_k, which cancels the division: the √d experiment's inputs."""
    Q, K, V = (seeded_matrix(n, d, seed + k) for k in range(3))
    return Q, K, V, [[x * math.sqrt(d) for x in row] for row in Q]


def scale_experiment(attention, n=8, d=64, seed=0):
    """(largest weight with the √d_k division, largest weight without it) on seeded n × d inputs."""
    Q, K, V, undo = scale_inputs(n, d, seed)
    return largest_weight(attention(Q, K, V)[1]), largest_weight(attention(undo, K, V)[1])


def scale_picture(attention, n=8, d=64, seed=0):
    """The √d experiment's two weight matrices side by side: spread out, and on one key."""
    from ..pictures import heatmaps, weight_colour

    Q, K, V, undo = scale_inputs(n, d, seed)
    return heatmaps(
        [attention(Q, K, V)[1], attention(undo, K, V)[1]],
        [say("picture_dividing"), say("picture_not_dividing")],
        weight_colour,
        say("picture_scale", n=n, d=d),
    )


def permute(rows, order):
    """P X: the rows of X in a new order."""
    return [rows[k] for k in order]


def largest_gap(A, B):
    """max |A - B| over all entries."""
    return max(abs(a - b) for ra, rb in zip(A, B) for a, b in zip(ra, rb))


def permutation_experiment(attention, pos_encoding, n=6, d=16, seed=5):
    """max |f(P X) - P f(X)| without and with positional encoding, f(X) = attention(X, X, X)[0]."""
    X = seeded_matrix(n, d, seed)
    order = list(range(n))[::-1]  # reversing is a permutation that moves every row

    def f(M):
        return attention(M, M, M)[0]

    def plus_pe(M):
        return [[x + p for x, p in zip(row, pe)] for row, pe in zip(M, pos_encoding(n, d))]

    without = largest_gap(f(permute(X, order)), permute(f(X), order))
    with_pe = largest_gap(f(plus_pe(permute(X, order))), permute(f(plus_pe(X)), order))
    return without, with_pe


def read_fields(text):
    """'key: value' lines into a dict (keys lower-cased); other lines are ignored."""
    fields = {}
    for line in text.splitlines():
        if ":" in line and not line.lstrip().startswith("#"):
            key, value = line.split(":", 1)
            fields[key.strip().lower()] = value.strip()
    return fields


def read_artifact(name, folder=OUTPUTS):
    """The text of outputs/<name>, or None when it does not exist."""
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return f.read()


def _number(fields, key):
    """The number on the `key:` line, or None when there is none."""
    try:
        return float(fields[key])
    except (KeyError, ValueError):
        return None


def agrees(got, want):
    """A number read from an artifact matches the experiment's (to 1e-6); None never does."""
    return got is not None and numbers_close(got, want)


def artifact_report(filename, folder, how_to_make, checks_of_text):
    """The report on one artifact: that it exists, then the checks its text must pass."""
    text = read_artifact(filename, folder)
    exists = Check(say("exists", path=f"{OUTPUTS}/{filename}"), text is not None, hint=how_to_make)
    checks = [exists, *([] if text is None else checks_of_text(text))]
    return Report(say("title", filename=filename), checks)


def check_scale(model, folder=OUTPUTS):
    """outputs/02-scale.txt: both numbers, as the learner's attention gives them, apart by ≥ 0.1."""
    how = say("make_scale")
    return artifact_report(SCALE_FILE, folder, how, lambda text: scale_checks(text, model))


def scale_checks(text, model):
    """Both lines there, equal to the experiment on the learner's attention, apart by ≥ 0.1."""
    fields = read_fields(text)
    scaled, unscaled = _number(fields, "scaled"), _number(fields, "unscaled")
    want_scaled, want_unscaled = scale_experiment(model.attention)
    both = scaled is not None and unscaled is not None
    said = f"scaled {scaled}, unscaled {unscaled}"  # the file's own field names, in every edition
    return [
        Check(say("scale_lines"), both, got=repr(text[:120]), hint=say("scale_lines_hint")),
        Check(say("scale_numbers"),
              agrees(scaled, want_scaled) and agrees(unscaled, want_unscaled), got=said,
              expected=f"scaled {want_scaled:.6f}, unscaled {want_unscaled:.6f}",
              hint=say("scale_numbers_hint")),
        Check(say("scale_direction"), both and unscaled > scaled,
              got=said, hint=say("scale_direction_hint")),
        Check(say("scale_difference"),
              both and unscaled - scaled >= 0.1, got=said, hint=say("scale_too_close")),
    ]  # fmt: skip


def check_perm(model, folder=OUTPUTS):
    """outputs/05-perm.txt: ≈ 0 without positions, clearly not with them, as computed."""
    how = say("make_perm")
    return artifact_report(PERM_FILE, folder, how, lambda text: perm_checks(text, model))


# What a conclusion of step 5 must name, in any edition: the order, and the shuffle or the
# positions that make it visible (matched as parts of words: "permutation", "shuffles", "섞으면").
ORDER_WORDS = ["순서", "order", "順序", "順番"]
SHUFFLE_WORDS = ["permut", "shuffl", "reorder", "position",
                 "순열", "섞", "위치", "並べ替", "入れ替", "置換", "位置"]  # fmt: skip


def names_the_finding(conclusion):
    """Whether a conclusion speaks of the order and of the shuffle (or positions) that shows it."""
    said = conclusion.lower()
    return any(w in said for w in ORDER_WORDS) and any(w in said for w in SHUFFLE_WORDS)


def perm_checks(text, model):
    """Three lines there, equal to the experiment, ≈ 0 without positions and > 0.001 with them,
    and a conclusion that names what the numbers show."""
    fields = read_fields(text)
    without, with_pe = _number(fields, "without_pe"), _number(fields, "with_pe")
    want_without, want_with = permutation_experiment(model.attention, model.pos_encoding)
    both = without is not None and with_pe is not None
    tiny = both and max(without, with_pe) <= 1e-3
    return [
        Check(say("perm_lines"), both and bool(fields.get("conclusion")), got=repr(text[:120]),
              hint=say("perm_lines_hint")),
        Check(say("perm_numbers"),
              without is not None and abs(without - want_without) <= 1e-9
              and agrees(with_pe, want_with),
              got=f"without_pe {without}, with_pe {with_pe}",  # the file's field names
              expected=f"without_pe {want_without:.3g}, with_pe {want_with:.6f}",
              hint=say("perm_numbers_hint")),
        Check(say("perm_without"),
              without is not None and without <= 1e-9, got=str(without), expected="≤ 1e-9",
              hint=say("perm_without_hint")),
        Check(say("perm_with"),
              with_pe is not None and with_pe > 1e-3, got=str(with_pe), expected="> 0.001",
              hint=say("perm_both_tiny") if tiny else say("perm_with_hint")),
        Check(say("perm_conclusion"), names_the_finding(fields.get("conclusion", "")),
              got=repr(fields.get("conclusion", "")[:120]), hint=say("perm_conclusion_hint")),
    ]  # fmt: skip


# The words that name each idea, in any edition (notes in any language count): matched, not shown
# alone; the check's label is the "artifacts" words' mentions_<idea>.
IDEAS = {
    "scaling": ["스케일링", "scaling", "scale", "スケーリング"],
    "order": ["순서", "order", "順序", "順番"],
    "square": ["제곱", "square", "quadratic", "n²", "n^2", "二乗", "2乗", "自乗"],
}
IDEA_STEP = {"scaling": 2, "order": 5, "square": 8}  # the step that showed each idea
# 4×, 4x, 4 times, four times, 4-fold, fourfold, a factor of 4, quadruples; 4배, 네 배; 4倍, 四倍
FOUR_TIMES = re.compile(
    r"(?<![\d.])(4|four)\s*(×|x\b|times|배|倍|-?fold)|factor of\s*(4|four)\b|quadrupl|네\s*배|四倍",
    re.IGNORECASE,
)


def numbers_in(text):
    """Every number written with a decimal point (0.25, 1.5e-07) in the text, as floats."""
    return [float(m) for m in re.findall(r"-?\d+\.\d+(?:[eE]-?\d+)?", text)]


def check_notes(model, folder=OUTPUTS):
    """outputs/08-notes.md: three ideas in the learner's words, the 4× growth, and step 2's numbers
    as the learner's own attention gives them."""
    how = say("make_notes")
    return artifact_report(NOTES_FILE, folder, how, lambda text: notes_checks(text, folder, model))


def notes_checks(text, folder, model):
    """Three lines or more, each idea named, the 4× growth, the two numbers of step 2 quoted.

    The two numbers count only as the experiment gives them on the learner's own attention (run
    here, or in the judge's worker): numbers copied from someone's outputs earn nothing without it.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    lowered, found = text.lower(), numbers_in(text)
    scale = read_fields(read_artifact(SCALE_FILE, folder) or "")
    measured = own_scale_numbers(model)
    return [
        Check(say("notes_lines"), len(lines) >= 3, got=say("line_count", count=len(lines)),
              expected=say("three_or_more")),
        *[Check(say(f"mentions_{idea}", words=" / ".join(words)), any(w in lowered for w in words),
                hint=say("mentions_hint", step=IDEA_STEP[idea]))
          for idea, words in IDEAS.items()],
        Check(say("notes_growth"), bool(FOUR_TIMES.search(text)), hint=say("notes_growth_hint")),
        *[quotes(key, _number(scale, key), measured.get(key), found, measured.get("error"))
          for key in ("scaled", "unscaled")],
    ]  # fmt: skip


def own_scale_numbers(model):
    """{"scaled": x, "unscaled": y}: the √d experiment on the learner's attention, or
    {"error": exception name} when it cannot give two finite numbers."""

    def own(*args):  # the judge's worker hands a learner's exception back as a value: raise it
        got = model.attention(*args)
        if isinstance(got, Exception):
            raise got
        return got

    try:
        got = scale_experiment(own)
        if not all(type(x) in (int, float) and math.isfinite(x) for x in got):
            raise TypeError("the largest weights are not numbers")
        return {"scaled": float(got[0]), "unscaled": float(got[1])}
    except Exception as err:  # missing, crashing or not returning weights: nothing to quote
        return {"error": type(err).__name__}


def quotes(key, value, want, found, error=None):
    """The notes quote one of step 2's numbers (to 0.005): the one in 02-scale.txt, which must also
    be what the learner's attention gives (want; None when the experiment could not run)."""
    current = want is not None and value is not None and abs(value - want) <= 0.005
    if value is None:
        expected = say("file_first", file=SCALE_FILE)
    elif want is None:
        expected = say("own_attention", error=error)
    else:
        expected = f"{want:.3f}"
    return Check(
        say(f"quotes_{key}", file=SCALE_FILE),
        current and any(abs(x - want) <= 0.005 for x in found),
        got=", ".join(f"{x:g}" for x in found) or say("no_decimals"),
        expected=expected,
        hint=say("quotes_hint") if current or value is None else say("scale_numbers_hint"),
    )


ARTIFACT_CHECKS = {SCALE_FILE: check_scale, PERM_FILE: check_perm, NOTES_FILE: check_notes}
# The functions each artifact is computed from: its check means something only once they exist.
ARTIFACT_NEEDS = {
    SCALE_FILE: ["attention"],
    PERM_FILE: ["attention", "pos_encoding"],
    NOTES_FILE: ["attention"],  # it quotes the √d experiment, run on the learner's attention
}
