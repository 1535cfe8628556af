"""What a learner can read must hold no line of any master's solution: shared by the release's and
the site's tests. A file is read as a learner's tools show it (a notebook's cells, a JSON file's
strings decoded), whitespace collapsed, so a solution line split or re-indented still counts."""

import json
import os
import re

import nbformat

from grading.authoring import course, masters
from grading.parts import PARTS


def normalised(text):
    """text with every run of whitespace as one space."""
    return " ".join(text.split())


def tokens(line):
    """The words, numbers and symbols of a line of code."""
    return re.findall(r"\w+|[^\w\s]", line)


def is_header(line):
    """A bare loop or branch header (`for _ in range(steps):`): any program has them."""
    return line.strip().endswith(":") and line.split()[0] in {"for", "if", "elif", "while", "with"}


def solution_lines():
    """Lines only a solution holds: those between BEGIN and END SOLUTION in both parts' master
    notebooks, at least six tokens long, but not signatures, docstrings, comments, bare loop
    headers or lines the notebooks show elsewhere (the learner is given those anyway)."""
    lines, shown = set(), ""
    for source in (part.masters for part in PARTS.values()):
        for code in course.solution_cells(source).values():
            hidden = re.findall(r"BEGIN SOLUTION(.*?)### END SOLUTION", code, re.S)
            lines |= {
                normalised(ln)
                for ln in "\n".join(hidden).splitlines()
                if len(tokens(ln)) >= 6
                and not ln.strip().startswith(("def ", "class ", '"""', "#", "import", "from "))
                and '"""' not in ln
                and not is_header(ln)
            }
        for name in masters.notebooks(source):
            book = nbformat.read(os.path.join(source, name), 4)
            shown += "\n".join(
                c.source for c in book.cells if not c.metadata.get("nbgrader", {}).get("solution")
            )
    return {line for line in lines if line not in normalised(shown)}


def strings(value):
    """Every string inside a decoded JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def readable_text(path):
    """A file's text as a learner reads it, whitespace collapsed; "" for a binary file."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError:
        return ""
    if path.endswith((".json", ".ipynb")):
        try:
            text = "\n".join(strings(json.loads(text)))
        except ValueError:
            pass
    return normalised(text)


def leaked_lines(folder, secrets):
    """{file below folder: the solution lines it holds}, for every file that holds one."""
    found = {}
    for here, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(here, name)
            text = readable_text(path)
            held = sorted(line for line in secrets if line in text)
            if held:
                found[os.path.relpath(path, folder)] = held
    return found
