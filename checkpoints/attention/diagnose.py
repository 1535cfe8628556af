"""Recognising a catalogued mistake from what the learner's functions return on the probes."""

import math
import os

from ..both import Both, both_at_once, merged
from ..compare import canonical, close, load_table
from . import detectors
from .catalogue import BY_NAME
from .probes import PROBES, call

FINGERPRINTS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fingerprints.json")


def pos_encoding_signature(value):
    """What the course asks of a positional encoding: [rows, cols, all in [-1, 1], rows differ]."""
    rows = canonical(value)
    if not (isinstance(rows, list) and rows and all(isinstance(r, list) for r in rows)):
        return {"not_a_matrix": True}
    flat = [v for r in rows for v in r if isinstance(v, float)]
    in_range = len(flat) == sum(len(r) for r in rows) and all(
        -1.0 - 1e-12 <= v <= 1.0 + 1e-12 for v in flat
    )
    distinct = all(  # any(): most pairs of rows differ in their first column already
        any(abs(a - b) > 1e-9 for a, b in zip(r, s))
        for i, r in enumerate(rows)
        for s in rows[i + 1 :]
    )
    return [float(len(rows)), float(len(rows[0])), in_range, distinct]


HIDDEN_SCORE = -1e8  # a mask score this low hides its key as surely as -inf does


def as_hidden(value):
    """value with every number at or below HIDDEN_SCORE read as -inf: -1e9 is -inf to a mask."""
    if isinstance(value, list):
        return [as_hidden(v) for v in value]
    if isinstance(value, float) and value <= HIDDEN_SCORE:
        return -math.inf
    return value


def signature(checkpoint, value):
    """The comparable trace of one call: its value, or which exception it raised."""
    if isinstance(value, BaseException):
        return {"raises": type(value).__name__}
    if checkpoint == "pos_encoding":
        return pos_encoding_signature(value)
    if checkpoint == "causal_mask":
        return canonical(as_hidden(canonical(value)))
    return canonical(value)


def same_signature(got, stored):
    """One probe's answer matches a stored one: any exception matches any exception, "any" any
    answer, and "not_raises" any answer but that exception (a missing error, however it fails)."""
    if isinstance(stored, dict) and "any" in stored:
        return True
    if isinstance(stored, dict) and "not_raises" in stored:
        return not (isinstance(got, dict) and got.get("raises") == stored["not_raises"])
    if isinstance(stored, dict) and "raises" in stored:
        return isinstance(got, dict) and "raises" in got  # any exception counts as the same failure
    return close(got, stored)


def load_fingerprints(path=FINGERPRINTS_FILE):
    """{checkpoint: {correct: answers, mistakes: {name: answers}}} from fingerprints.json."""
    return load_table(path)


def probe_signatures(checkpoint, module, probes=None):
    """{probe id: signature} of a module's answers on one checkpoint's probes (or on these)."""
    return {p.id: signature(checkpoint, call(module, p)) for p in probes or PROBES[checkpoint]}


def diagnose(checkpoint, signatures, fingerprints=None):
    """What fits these signatures, best first: the stored answers that match (by_fingerprint),
    less any name the mistakes' properties contradict, joined by the names the properties show
    besides (detectors.py): several mistakes at once are named separately."""
    found = by_fingerprint(checkpoint, signatures, fingerprints)
    return merged(found, detectors.detect(checkpoint, signatures), BY_NAME.__getitem__)


def by_fingerprint(checkpoint, signatures, fingerprints=None):
    """The catalogued mistakes whose stored answers match on every probe (a probe that serves one
    mistake adds it: Both); else two mistakes at once. Each is tried on every probe first, then
    on every probe but the edge cases (a guard, a constant written otherwise)."""
    table = (fingerprints or load_fingerprints())[checkpoint]
    edges = {p.id for p in PROBES[checkpoint] if p.edge}
    everywhere, but_edges = list(signatures), [pid for pid in signatures if pid not in edges]
    for ids in (everywhere, but_edges):
        found = [BY_NAME[name] for name, answers in table["mistakes"].items()
                 if matches(signatures, answers, ids)]  # fmt: skip
        if found:
            return with_served(checkpoint, found, table, signatures)
    for ids in (everywhere, but_edges):
        found = pairs(checkpoint, table, signatures, ids)
        if found:
            return found
    return []


def matches(signatures, answers, ids):
    """These signatures are one stored set of answers, on the given probes."""
    return all(same_signature(signatures[pid], answers[pid]) for pid in ids)


def with_served(checkpoint, found, table, signatures):
    """found, each joined by the mistake a probe serves when that probe shows it (a missing
    ValueError next to a wrong split: the served probe answers as its mistake, the rest as
    the other)."""
    for probe in PROBES[checkpoint]:
        served = probe.serves and table["mistakes"].get(probe.serves)
        if not served or probe.id not in signatures or BY_NAME[probe.serves] in found:
            continue
        got = signatures[probe.id]  # the right answer is an error: any other answer is the mistake
        if same_signature(got, served[probe.id]) and got != table["correct"][probe.id]:
            found = [Both(m, BY_NAME[probe.serves]) for m in found]
    return found


def pairs(checkpoint, table, signatures, ids):
    """Two mistakes at once: a stored pair's answers, or two that show on different probes."""
    stored = [
        Both(*(BY_NAME[n] for n in name.split("+")))
        for name, answers in table.get("pairs", {}).items()
        if matches(signatures, answers, ids)
    ]
    served = {p.id for p in PROBES[checkpoint] if p.serves}  # they name one mistake, not a pair
    apart = [pid for pid in ids if pid not in served]
    return stored + both_at_once(table["correct"], table["mistakes"], signatures, apart,
                                 same_signature, BY_NAME)  # fmt: skip


def expected(checkpoint, probe_id, fingerprints=None):
    """The correct answer stored for one probe."""
    return (fingerprints or load_fingerprints())[checkpoint]["correct"][probe_id]
