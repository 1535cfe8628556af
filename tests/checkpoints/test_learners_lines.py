"""Saving a step never drops a line the learner typed (model.py, engine.py, gpt.py): a helper, an
import or a comment before, between or after the sections stays where it stands, in files
written today and in files written before sections had an end marker. A second definition of a
section's function is kept and named, with the one Python uses; a line elsewhere that does not
parse is said in one line, and the cell is saved all the same."""

import importlib.util
import linecache
import os
import re
import sys

import pytest

from checkpoints.attention import modelfile
from checkpoints.sections import read_parts, save_notes
from checkpoints.xslm import files

# Per file: how to save a step into it, its step numbers, two steps in file order with a cell each
MODEL = {"softmax": "def softmax(xs):\n    return [1.0 / len(xs)] * len(xs)\n",
         "multi_head": "def multi_head(x, h):\n    return x\n"}  # fmt: skip
ENGINE = {"Value": "class Value:\n    def __init__(self, data):\n        self.data = data\n",
          "norm": "def norm(xs):\n    return xs\n"}  # fmt: skip
GPT = {"GPT": "class GPT:\n    pass\n", "generate": "def generate(model, n):\n    return []\n"}
FILES = {
    "model.py": (lambda name, source, folder: modelfile.save_section(
        name, source, os.path.join(folder, "model.py")), modelfile.step_number, MODEL),
    "engine.py": (files.save_section, files.step_of, ENGINE),
    "gpt.py": (files.save_section, files.step_of, GPT),
}  # fmt: skip
HELPER = "def transpose(m):\n    return [list(row) for row in zip(*m)]\n"
END_MARKER = re.compile(r"^# ── end of step .*\n", re.MULTILINE)


def saved(filename, folder, name, source=None):
    """Save step name's cell (its own, or source) into filename in folder; the file's text."""
    save, _, cells = FILES[filename]
    save(name, source or cells[name], str(folder))
    return (folder / filename).read_text(encoding="utf-8")


def write(folder, filename, text):
    (folder / filename).write_text(text, encoding="utf-8")


def loaded(path):
    """The file imported as a module of its own (gpt.py with the engine.py beside it)."""
    spec = importlib.util.spec_from_file_location(f"probe_{os.path.basename(path)[:-3]}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))
    sys.modules.pop("engine", None)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(os.path.dirname(path))
        sys.modules.pop("engine", None)
    return module


def both_steps(filename, folder):
    """The file with its two steps saved, in file order; (text, first step, second step)."""
    first, second = list(FILES[filename][2])
    if filename == "gpt.py":  # the engine gpt.py imports from
        for name in ("Value", "softmax", "linear", "norm"):
            saved("engine.py", folder, name, f"def {name}(*args):\n    return args\n")
    saved(filename, folder, second)
    return saved(filename, folder, first), first, second


@pytest.mark.parametrize("filename", list(FILES))
def test_lines_before_between_and_after_the_sections_survive_every_save(tmp_path, filename):
    """An import and a comment in the header, a helper between the sections and one after the
    last (before engine.py's self-test, and after it) stay through saving both steps again."""
    text, first, second = both_steps(filename, tmp_path)
    mine = {
        "header": "import statistics  # mine, before the sections\n",
        "between": "# my note between the steps\n\n" + HELPER,
        "after": "\n\ndef my_last_helper():\n    return 'after every section'\n",
    }
    text = text.replace("\n\n\n", "\n" + mine["header"] + "\n\n", 1)  # after the header's imports
    opening = re.compile(rf"^# ── step \d+: {second} ", re.MULTILINE).search(text).start()
    text = text[:opening] + mine["between"] + "\n\n" + text[opening:]
    text = text.rstrip("\n") + "\n" + mine["after"]
    write(tmp_path, filename, text)
    for name in (first, second, first):
        text = saved(filename, tmp_path, name)
    for lines in mine.values():
        assert lines.strip() in text, (filename, lines)
    assert text.index(mine["between"].strip()) < text.index(f": {second} ")
    assert sum(text.count(lines.strip()) for lines in mine.values()) == len(mine)
    module = loaded(str(tmp_path / filename))
    assert module.transpose([[1, 2]]) == [[1], [2]] and module.my_last_helper()


@pytest.mark.parametrize("filename", list(FILES))
def test_a_helper_typed_after_an_older_section_survives_its_save(tmp_path, filename):
    """A file written before sections had an end marker: the helper typed after a section (which
    the old writer counted as part of it) stays when that section is saved again, even with the
    cell changed; the section's old function does not."""
    text, first, _ = both_steps(filename, tmp_path)
    older = END_MARKER.sub("", text)
    cut = re.compile(rf"^# ── step \d+: {first} .*\n", re.MULTILINE).search(older).end()
    section_end = older.index("\n\n\n# ── step", cut)
    write(tmp_path, filename, older[:section_end] + "\n\n\n" + HELPER + older[section_end:])
    changed = FILES[filename][2][first].replace("\n", "\n    # changed\n", 1)
    text = saved(filename, tmp_path, first, changed)
    assert text.count("def transpose") == 1, text
    assert text.count("# changed") == 1 and text.count(changed.splitlines()[0]) == 1, text
    assert loaded(str(tmp_path / filename)).transpose([[1, 2]]) == [[1], [2]]


def test_a_second_definition_is_kept_and_named_with_the_one_python_uses(tmp_path):
    """A learner's own multi_head typed after the last section: both copies stay, and the note
    names the learner's lines as the one Python uses, which is the one the file gives."""
    text, _, _ = both_steps("model.py", tmp_path)
    write(tmp_path, "model.py", text + "\n\ndef multi_head(x, h):\n    return 'mine'\n")
    text = saved("model.py", tmp_path, "multi_head")
    assert text.count("def multi_head") == 2
    notes = save_notes(text, "multi_head", modelfile.step_number, "model.py")
    assert len(notes) == 1 and "multi_head" in notes[0], notes
    used = notes[0].rsplit("Python uses the last one, in ", 1)[1]
    assert used == "your own lines after step 4"
    assert loaded(str(tmp_path / "model.py")).multi_head([], 1) == "mine"


def test_a_line_elsewhere_that_does_not_parse_is_said_and_the_cell_is_saved(tmp_path):
    """A typo in softmax's section by hand: saving multi_head writes it all the same (the file
    has the new multi_head) and says which line, in which section, does not parse."""
    text, _, _ = both_steps("model.py", tmp_path)
    write(tmp_path, "model.py", text.replace("* len(xs)\n", "* len(xs\n", 1))
    text = saved("model.py", tmp_path, "multi_head", "def multi_head(x, h):\n    return [x]\n")
    assert "return [x]" in text
    line = text.splitlines().index("    return [1.0 / len(xs)] * len(xs") + 1
    notes = save_notes(text, "multi_head", modelfile.step_number, "model.py")
    assert notes[0].startswith(f"model.py: line {line}, in step 1's section (softmax), "), notes


def test_the_save_cell_prints_its_notes_and_never_raises(tmp_path, monkeypatch, capsys):
    """checkpoints.save (the notebooks' cell) on a model.py with a typo in another section and a
    second softmax of the learner's: one line for the save, one for each note."""
    import checkpoints

    monkeypatch.chdir(tmp_path)
    text, _, _ = both_steps("model.py", tmp_path)
    text += "\n\ndef softmax(xs):\n    return xs\n"
    write(tmp_path, "model.py", text.replace("return x\n", "return (x\n", 1))
    module = tmp_path / "cell.py"
    module.write_text(MODEL["softmax"], encoding="utf-8")
    checkpoints.save(loaded(str(module)).softmax)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "model.py: step 1 (softmax) saved", out
    assert "in step 4's section (multi_head), does not parse" in out[1], out
    assert "softmax is defined more than once" in out[2], out
    assert (tmp_path / "model.py").read_text(encoding="utf-8").count("def softmax") == 2


def test_read_parts_tells_a_sections_own_lines_from_the_learners(tmp_path):
    """read_parts: what saving wrote, and the learner's lines after it (None for an older
    section, whose end is unknown)."""
    text, first, second = both_steps("model.py", tmp_path)
    header, parts = read_parts(text + "\n" + HELPER)
    assert parts[first] == (MODEL[first], "") and parts[second][1].strip() == HELPER.strip()
    _, older = read_parts(END_MARKER.sub("", text))
    assert older[first][1] is None and "import math" in header


def test_a_cell_the_save_refuses_is_one_line_and_the_file_stays(tmp_path, monkeypatch, capsys):
    """checkpoints.save of a cell importing numpy: one ✗ line naming numpy, model.py unchanged;
    part two's save of a cell that imports torch: the same for engine.py."""
    import checkpoints
    from checkpoints import xslm as part_two

    monkeypatch.chdir(tmp_path)
    text, _, _ = both_steps("model.py", tmp_path)
    checkpoints.save(
        cell_defining("import numpy\n\n\ndef softmax(xs):\n    return xs\n", "softmax")
    )
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("✗ ") and "'numpy'" in out[0], out
    assert (tmp_path / "model.py").read_text(encoding="utf-8") == text
    engine = saved("engine.py", tmp_path, "Value")
    part_two.save(cell_defining("import torch\n\n\n" + ENGINE["Value"], "Value"))
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("✗ ") and "'torch'" in out[0], out
    assert (tmp_path / "engine.py").read_text(encoding="utf-8") == engine


def cell_defining(source, name):
    """name as a notebook cell holding source defines it: the cell's text kept where IPython keeps
    it (linecache, under a name that is no file), its imports not run (numpy need not be here)."""
    filename = f"<cell defining {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    body = "\n".join("" if line.startswith("import ") else line for line in source.splitlines())
    namespace = {}
    exec(compile(body, filename, "exec"), namespace)
    return namespace[name]


def test_a_cell_carrying_the_files_markers_does_not_stack_them(tmp_path):
    """A cell copied from a saved file, its end marker included: saved twice, the file has one
    opening and one end marker for the step."""
    cell = MODEL["softmax"] + "# ── end of step 1: softmax " + "─" * 33 + "\n"
    saved("model.py", tmp_path, "softmax", cell)
    text = saved("model.py", tmp_path, "softmax", cell)
    assert text.count("# ── step 1: softmax") == 1 and text.count("end of step 1") == 1, text
