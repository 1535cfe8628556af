"""Language editions (authoring/editions.py, checkpoints/i18n.py): every edition complete, its code
and grading metadata the English masters' own, no English prose left, every message in every
language with the same fields; and the checks that say so can fail.
"""

import json
import os
import re
import shutil
import string

import nbformat
import pytest

from checkpoints import i18n
from grading.authoring import editions
from grading.authoring.masters import SOURCE, notebooks

TRANSLATED = [code for code in editions.languages() if code != editions.ENGLISH]
SEED_TERMS = {  # the lesson's own words (the seeds), as the issue names them
    "ko": ["스케일링", "순서", "제곱", "어텐션", "마스크"],
    "ja": ["スケーリング", "順序", "二乗"],
}


def test_there_are_korean_and_japanese_editions():
    """The issue's two editions exist beside English."""
    assert {"en", "ko", "ja"} <= set(editions.languages())
    assert set(editions.languages()) == set(i18n.editions())


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_edition_sets_jupyterlabs_language_to_an_installed_pack(code):
    """make lab EDITION=<code> reads notebooks/editions/<code>/lab/overrides.json: its locale is
    the edition's language, and its language pack is installed (requirements.txt)."""
    from jupyterlab_server.translation_utils import get_language_packs

    locale = editions.lab_locale(code)
    assert locale.split("_")[0] == code and locale in get_language_packs()[0]


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_edition_is_complete(code):
    """Every markdown cell translated, no unknown cell, every translated code cell the master's."""
    assert editions.problems(code) == []


@pytest.mark.parametrize("code", TRANSLATED)
@pytest.mark.parametrize("notebook", notebooks())
def test_code_and_grading_metadata_are_the_masters_own(code, notebook):
    """Same cells in the same order; graded and locked cells byte for byte; code, the same
    program (a solution that only writes words: the same once its strings' words are out)."""
    master = nbformat.read(os.path.join(SOURCE, notebook), as_version=4)
    edition = editions.translated(code, notebook)[0]
    assert [(c.id, c.cell_type) for c in edition.cells] == [
        (c.id, c.cell_type) for c in master.cells
    ]
    for mine, theirs in zip(edition.cells, master.cells):
        assert mine.metadata == theirs.metadata, mine.id
        if editions.words_cell(theirs):  # the notes, a conclusion: their words may be translated
            assert editions.same_code_but_words(mine.source, theirs.source), mine.id
        elif "nbgrader" in theirs.metadata:
            assert mine.source == theirs.source, mine.id
        elif theirs.cell_type == "code":
            assert editions.same_code_but_words(mine.source, theirs.source), mine.id
    assert edition.metadata["attention"] == {"edition": code}


@pytest.mark.parametrize("code", TRANSLATED)
def test_no_english_prose_is_left(code):
    """Markdown and comments are in the edition's language (code, maths and markup aside)."""
    assert editions.english_left(code) == []


def test_the_english_masters_are_what_the_prose_check_calls_english():
    """The same check finds plenty of English in the English masters: it is not blind."""
    assert len(editions.english_left("en")) > 100


@pytest.fixture
def scratch_editions(tmp_path, monkeypatch):
    """A copy of notebooks/editions that a test may damage."""
    copy = tmp_path / "editions"
    shutil.copytree(editions.EDITIONS, copy)
    monkeypatch.setattr(editions, "EDITIONS", str(copy))
    return copy


def test_the_checks_catch_a_missing_a_stale_and_a_changed_cell(scratch_editions):
    """Damage the Korean softmax notebook three ways: each is reported."""
    path = scratch_editions / "ko" / "01-softmax.md"
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"<!-- cell: cell-02 -->.*?(?=<!-- cell:)", "", text, count=1, flags=re.S)
    text += "\n<!-- cell: no-such-cell -->\nbonjour\n"
    text += "\n<!-- cell: cell-05 -->\n```python\nxs = [9.0]\n```\n"
    path.write_text(text, encoding="utf-8")
    found = "\n".join(editions.problems("ko"))
    assert "'cell-02' is not translated" in found
    assert "no cell 'no-such-cell'" in found
    assert "'cell-05' is not the master's code" in found


def test_the_checks_catch_english_left_behind(scratch_editions):
    """A Korean section left in English is found, with its notebook and cell."""
    path = scratch_editions / "ko" / "06-layer-norm.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.rstrip("\n") + "\nthis sentence was never translated\n", encoding="utf-8")
    assert [(n, w) for n, _, w in editions.english_left("ko")] == [
        ("06-layer-norm.ipynb", "this sentence was never translated")
    ]


def fields(text):
    """The {names} a message formats."""
    return sorted({name for _, name, _, _ in string.Formatter().parse(text) if name})


def leaves(words, path=()):
    """(path, text) of every string in a locale file."""
    if isinstance(words, dict):
        for key, value in words.items():
            yield from leaves(value, (*path, key))
    elif isinstance(words, list):
        for k, value in enumerate(words):
            yield from leaves(value, (*path, k))
    else:
        yield path, words


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_message_exists_in_every_language_with_the_same_fields(code):
    """Same keys at every level, same {fields} in each message; something actually translated."""
    english, other = dict(leaves(i18n.words("en"))), dict(leaves(i18n.words(code)))
    assert sorted(other, key=str) == sorted(english, key=str)
    for path, text in english.items():
        assert fields(other[path]) == fields(text), path
    changed = [p for p, text in english.items() if other[p] != text]
    assert len(changed) > 0.8 * len(english)


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_glossary_holds_the_lessons_terms_and_the_notebooks_use_them(code):
    """The seed lesson's words are in the glossary and in the edition's notebooks."""
    with open(os.path.join(editions.EDITIONS, code, "glossary.md"), encoding="utf-8") as f:
        glossary = f.read()
    rows = [line for line in glossary.splitlines() if line.startswith("|") and "---" not in line]
    assert len(rows) > 20
    prose = "".join(
        json.dumps(editions.sections(code, notebook), ensure_ascii=False)
        for notebook in notebooks()
    )
    for term in SEED_TERMS.get(code, []):
        assert term in glossary and term in prose, term


def test_a_notebook_can_switch_the_language_of_its_messages(monkeypatch):
    """use_edition wins over the environment; an unknown edition is refused with the list."""
    monkeypatch.setenv("ATTENTION_EDITION", "ja")
    monkeypatch.setattr(i18n, "_chosen", [])
    assert i18n.edition() == "ja"
    i18n.use_edition("ko")
    assert i18n.say("claims", "softmax.sum") == i18n.lookup("claims", "softmax.sum", "ko")
    with pytest.raises(ValueError, match="en, ja, ko"):
        i18n.use_edition("xx")
    with i18n.speaking("en"):
        assert i18n.say("claims", "softmax.sum") == "sums to 1"
    assert i18n.edition() == "ko"


def test_an_english_edit_makes_its_translations_stale_until_stamped(scratch_editions):
    """A section translated from older English is reported; stamping records today's English."""
    path = scratch_editions / "ja" / "translated-from.json"
    stamped = json.loads(path.read_text())
    stamped["03-causal-mask.ipynb"]["cell-00"] = "0" * 12  # as if cell-00 was translated earlier
    path.write_text(json.dumps(stamped))
    assert editions.problems("ja") == [
        "03-causal-mask.ipynb: the English of 'cell-00' changed since it was translated"
    ]
    editions.stamp("ja")
    assert editions.problems("ja") == []


def test_only_a_solution_that_writes_words_may_be_translated_and_only_its_words(scratch_editions):
    """The notes' strings may change; the notes' code may not; a function's cell never."""
    path = scratch_editions / "ko" / "08-notes.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("write_artifact(NOTES_FILE, notes)", "print(notes)"), "utf-8")
    assert "'step08-notes-solution' is not the master's code" in "\n".join(editions.problems("ko"))
    path.write_text(text, encoding="utf-8")
    master = nbformat.read(os.path.join(SOURCE, "01-softmax.ipynb"), as_version=4)
    [solution] = [c for c in master.cells if c.id == "step01-softmax-solution"]
    softmax = scratch_editions / "ko" / "01-softmax.md"
    softmax.write_text(
        softmax.read_text(encoding="utf-8")
        + f"\n<!-- cell: step01-softmax-solution -->\n```python\n{solution.source}\n```\n",
        encoding="utf-8",
    )
    assert editions.problems("ko") == [
        "01-softmax.ipynb: 'step01-softmax-solution' has grading metadata: never translated"
    ]


@pytest.mark.parametrize("code", editions.languages())
@pytest.mark.parametrize(
    "notebook, call, zip_name",
    [("08-notes.ipynb", "from checkpoints import hand_in", "hand-in-attention.zip"),
     ("05-generate.ipynb", "from checkpoints.xslm import hand_in", "hand-in-xslm.zip")],
)  # fmt: skip
def test_each_part_ends_with_its_hand_in_cell(code, notebook, call, zip_name):
    """The last notebook of each part ends, in every edition, with the learner's own words on how
    to hand in (the zip's name, how to download it) and then the cell that writes the zip: a plain
    cell nbgrader neither grades nor locks."""
    cells = editions.translated(code, notebook)[0].cells
    words, run = cells[-2], cells[-1]
    assert (words.id, words.cell_type, run.id, run.cell_type) == (
        "hand-in-intro", "markdown", "hand-in", "code")  # fmt: skip
    assert run.source.splitlines()[0] == call and run.source.rstrip().endswith("hand_in()")
    assert "nbgrader" not in run.metadata
    assert zip_name in words.source and "File ▸ Save All" in words.source
    assert "Download" in words.source and "make lab" in words.source
    if code != editions.ENGLISH:
        assert not editions.english_in(words.source), words.source
