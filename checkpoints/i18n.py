"""The language the checkpoints speak: one JSON file of words per edition, in locales/.

    from checkpoints import use_edition
    use_edition("ko")          # this notebook's checkpoints now answer in Korean

The edition is, first found: `use_edition(...)` in this kernel; ATTENTION_EDITION in the
environment (grading sets it from the notebook); the `edition` file of the student edition the
learner works in (locales/edition, one line); English. A translator edits only locales/<code>.json;
adding a language is adding that file (every key of en.json, the same {fields}).
"""

import contextlib
import json
import os
from collections.abc import Mapping

LOCALES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "locales")
EDITION_FILE = os.path.join(LOCALES, "edition")
DEFAULT = "en"
_chosen = []  # the edition use_edition() picked in this kernel, if any
_loaded = {}


def editions():
    """The edition codes there are words for: ['en', 'ja', 'ko', ...]."""
    return sorted(n[: -len(".json")] for n in os.listdir(LOCALES) if n.endswith(".json"))


def shipped_edition():
    """The edition the learner's copy of the course was built in (None when it does not say)."""
    try:
        with open(EDITION_FILE, encoding="utf-8") as f:
            return f.read().strip() or None
    except OSError:
        return None


def edition():
    """The edition in use now."""
    for code in (*_chosen[-1:], os.environ.get("ATTENTION_EDITION"), shipped_edition()):
        if code in editions():
            return code
    return DEFAULT


def use_edition(code):
    """Speak `code` ('en', 'ko', 'ja', ...) from now on in this kernel."""
    if code not in editions():
        raise ValueError(f"no edition {code!r}: there are {', '.join(editions())}")
    _chosen.append(code)
    return code


@contextlib.contextmanager
def speaking(code):
    """Within the block, the edition is code (the judge speaks each learner's language)."""
    _chosen.append(code if code in editions() else DEFAULT)
    try:
        yield
    finally:
        _chosen.pop()


def words(code=None):
    """All the words of one edition (the current one by default): locales/<code>.json."""
    code = code or edition()
    if code not in _loaded:
        with open(os.path.join(LOCALES, code + ".json"), encoding="utf-8") as f:
            _loaded[code] = json.load(f)
    return _loaded[code]


def lookup(section, name, /, code=None):
    """The words for one name in one section ("report", "yours"); English when this edition lacks
    them."""
    for source in (words(code), words(DEFAULT)):
        if name in source.get(section, {}):
            return source[section][name]
    raise KeyError(f"no words for {section}/{name}")


def say(section, name, /, **fields):
    """The sentence for name in section, in the current edition, its {fields} filled in."""
    text = lookup(section, name)
    return text.format(**fields) if fields else text


def speaker(section):
    """say() for one section: `say = i18n.speaker("report")`, then `say("yours")`."""

    def say_in_section(name, /, **fields):
        return say(section, name, **fields)

    return say_in_section


class Section(Mapping):
    """One section of the current edition's words, read at each look-up (the edition can change)."""

    def __init__(self, section, make=lambda entry: entry):
        self.section, self.make = section, make

    def __getitem__(self, name):
        return self.make(lookup(self.section, name))

    def __iter__(self):
        return iter(words(DEFAULT)[self.section])

    def __len__(self):
        return len(words(DEFAULT)[self.section])
