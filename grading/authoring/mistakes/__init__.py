"""Every catalogued mistake of part one as real code: what a learner with that mistake writes.

One module per checkpoint (softmax, attention, mask, multi_head, pos_encoding, layer_norm,
block), named as the catalogue names them (checkpoints/attention/catalogue.py); each function
there is a mistake (@mistake) or another spelling of one (@spelling), registered in BUGGY and
SPELLINGS.
`buggy_model(name)` is the reference model.py with one function replaced by its buggy version.
It drives the fingerprints that ship with the checkpoints, the catalogue tests and the demo class.
"""

import ast
import textwrap

from checkpoints.attention.catalogue import BY_NAME, PAIRS, pair_name
from grading.authoring.mistakes import (  # noqa: F401 (each registers its mistakes on import)
    attention,
    block,
    layer_norm,
    mask,
    multi_head,
    pos_encoding,
    softmax,
)
from grading.authoring.mistakes.register import BOTH, BUGGY, SPELLINGS
from grading.judge.reference import load_source_module, reference_source


def definition(tree, target):
    """The ast node of a top-level function, or of a method ("Class.method"); KeyError if none."""
    owner, _, name = target.rpartition(".")
    body = tree.body
    if owner:
        body = next((n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner),
                    [])  # fmt: skip
    for node in body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise KeyError(f"the source has no function {target!r}")


def replace_function(source, function, new_code):
    """source with the definition of `function` (top-level, or "Class.method") swapped for
    new_code, written at the left margin and indented as the definition it replaces."""
    lines = source.splitlines(keepends=True)
    node = definition(ast.parse(source), function)
    start = node.lineno - 1 - len(node.decorator_list)
    code = textwrap.indent(new_code.strip("\n") + "\n", " " * node.col_offset)
    return "".join(lines[:start]) + code + "".join(lines[node.end_lineno :])


def replace_functions(source, code):
    """source with each top-level function that code defines swapped for code's version (code
    that changes two functions of model.py at once)."""
    lines = code.strip("\n").splitlines(keepends=True)
    for node in ast.parse(code.strip("\n")).body:
        if isinstance(node, ast.FunctionDef):
            text = "".join(lines[node.lineno - 1 : node.end_lineno])
            source = replace_function(source, node.name, text)
    return source


def buggy_source(name, base=None, spelling=0):
    """A whole model.py that carries exactly the named mistake, or pair ("first+second").

    Spelling 0 is BUGGY's version (BOTH's for a pair), 1… are SPELLINGS'.
    """
    first = BOTH[name] if name in BOTH else BUGGY[name]
    function, code = ([first] + SPELLINGS.get(name, []))[spelling]
    return replace_function(base if base is not None else reference_source(), function, code)


def buggy_model(name, spelling=0):
    """The model module with exactly the named mistake: buggy_source, loaded under its own name."""
    return load_source_module(
        buggy_source(name, spelling=spelling), f"buggy_{name.replace('.', '_')}", f"<{name}>"
    )


def check_catalogue_complete():
    """Raise AssertionError unless the code (BUGGY, BOTH) and the catalogue name exactly the same
    mistakes and pairs."""
    named, coded = set(BY_NAME) | {pair_name(a, b) for a, b in PAIRS}, set(BUGGY) | set(BOTH)
    missing, extra = sorted(named - coded), sorted(coded - named)
    if missing or extra:
        raise AssertionError(
            f"catalogue and code disagree: no code for {missing}, no entry for {extra}"
        )
