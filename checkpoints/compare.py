"""Comparing nested lists of numbers, and saying where two of them first part ways."""

import json
import math

from . import i18n

TOLERANCE = 1e-6


say = i18n.speaker("compare")  # locales/<edition>.json, section "compare"

# JSON has no NaN or infinity; Python writes them anyway, and a browser refuses such a file (the
# in-browser edition reads the answer tables through the browser). They are stored as this.
NONFINITE = "nonfinite"


def to_strict_json(value):
    """value with every nan/inf float replaced by {"nonfinite": "nan" | "inf" | "-inf"}."""
    if isinstance(value, dict):
        return {k: to_strict_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_strict_json(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return {NONFINITE: repr(value)}
    return value


def from_strict_json(obj):
    """json.load's object_hook undoing to_strict_json."""
    return float(obj[NONFINITE]) if list(obj) == [NONFINITE] else obj


def load_table(path):
    """A stored answer table (fingerprints.json, answers.json) with its nan/inf floats back."""
    with open(path, encoding="utf-8") as f:
        return json.load(f, object_hook=from_strict_json)


def canonical(value):
    """Tuples become lists, ints become floats, so learner values compare with stored JSON data."""
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, (str, dict)):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    return repr(value)  # anything else (a generator, numpy array…) compares as unequal text


def numbers_close(a, b, tol=TOLERANCE):
    """|a - b| <= tol · max(1, |b|); nan matches nan, inf matches the same inf."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tol * max(1.0, abs(b))


def first_difference(got, want, tol=TOLERANCE, path=()):
    """None when got matches want to tol, else (path, got_part, want_part, what differs)."""
    if isinstance(want, list):
        if not isinstance(got, list):
            return path, got, want, say("not_a_list", length=len(want), kind=type(got).__name__)
        if len(got) != len(want):
            return path, got, want, say("wrong_length", want=len(want), got=len(got))
        for i, (g, w) in enumerate(zip(got, want)):
            found = first_difference(g, w, tol, path + (i,))
            if found:
                return found
        return None
    if isinstance(want, bool) and not isinstance(got, bool) and got in (0, 1):
        # a mask of 1/0 works as a mask in Python: 1 and 0 count as True and False
        return None if got == want else (path, got, want, say("values_differ"))
    if isinstance(want, bool) or isinstance(got, bool):
        return None if got is want else (path, got, want, say("values_differ"))
    if isinstance(want, float):
        if not isinstance(got, float):
            return path, got, want, say("not_a_number", kind=type(got).__name__)
        return None if numbers_close(got, want, tol) else (path, got, want, say("values_differ"))
    return None if got == want else (path, got, want, say("values_differ"))


def close(got, want, tol=TOLERANCE):
    """True when got matches want everywhere, to tol."""
    return first_difference(got, want, tol) is None


def describe_path(path, names=("row", "column")):
    """(2, 1) -> 'row 2, column 1'; () -> 'the whole value'.

    names are keys of the "compare" words ("row", "column", "item"), one per level of nesting.
    """
    if not path:
        return say("whole_value")
    labels = list(names) + ["item"] * len(path)
    return ", ".join(say(label, index=i) for label, i in zip(labels, path))


def shape(value):
    """(rows, cols) of a matrix, (len,) of a vector, () of anything else."""
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(r, (list, tuple)) for r in value):
            widths = {len(r) for r in value}
            if len(widths) == 1:
                return (len(value), widths.pop())
            return (len(value), say("ragged"))  # a word where the width would be: never equal
        return (len(value),)
    return ()


def brief(value, width=6):
    """A short, readable rendering of a number, vector or matrix row."""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        items = [brief(v, width) for v in value[:width]]
        return "[" + ", ".join(items) + (", …" if len(value) > width else "") + "]"
    return repr(value)
