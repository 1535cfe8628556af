"""Similar submissions: pairs of learners whose files are unusually alike, for a person to review.

    python -m grading similar [--part xslm] [--threshold 0.9]      # make similar [PART=xslm]

Each function of a learner's files (model.py; engine.py and gpt.py) is reduced to the shape of its
syntax tree: names become their order of first use, docstrings and comments go, and the order of
functions no longer matters. Two learners are compared function by function; a function written
exactly as the reference writes it (or as the release's stub leaves it) is left out, and a form
that many learners share counts for less, so the same short textbook softmax in two submissions
is never a case on its own. A pair is listed when its weighted share of matching code reaches the
threshold over enough code. The list decides nothing: it writes records/similar.html (the
matching functions side by side) and records/similar.json, and never touches a score.
"""

import ast
import difflib
import functools
import html
import itertools
import json
import os

from grading.machine import files
from grading.parts import ASSIGNMENT, PARTS, registered, suffix
from grading.paths import RECORDS, ROOT, SUBMITTED

THRESHOLD = 0.9  # the weighted share of a pair's shared code that must match
MIN_TOKENS = 120  # and at least this much matching code: one short function is never enough
MAX_BYTES = 1_000_000  # a learner file larger than this is not read


class Names(ast.NodeTransformer):
    """Rename every name and argument to its order of first use (n0, n1, …); drop docstrings."""

    def __init__(self):
        self.seen = {}

    def rename(self, name):
        """The name's stand-in: the same for every use of it in one function."""
        return self.seen.setdefault(name, f"n{len(self.seen)}")

    def visit_Name(self, node):
        """A variable, renamed."""
        return ast.copy_location(ast.Name(self.rename(node.id), node.ctx), node)

    def visit_arg(self, node):
        """An argument, renamed."""
        return ast.copy_location(ast.arg(self.rename(node.arg)), node)

    def visit_FunctionDef(self, node):
        """The function without its docstring, decorators, annotation and name."""
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:] or [ast.Pass()]
        node.body, node.name, node.decorator_list, node.returns = body, "f", [], None
        return self.generic_visit(node)


def shape(function):
    """The tokens of a function's normalised tree: node kinds, operators, renamed names."""
    tree = Names().visit(ast.parse(ast.unparse(function)))
    return [
        type(node).__name__ + (f":{node.id}" if isinstance(node, ast.Name) else "")
        + (f":{node.value!r}" if isinstance(node, ast.Constant) else "")
        for node in ast.walk(tree)
    ]  # fmt: skip


def functions(text):
    """{qualified name: (source, tokens)} of a file's functions and methods; {} if unreadable."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    out = {}
    for node in tree.body:
        members = node.body if isinstance(node, ast.ClassDef) else [node]
        for member in members:
            if isinstance(member, ast.FunctionDef):
                name = f"{node.name}.{member.name}" if member is not node else member.name
                try:
                    out[name] = (ast.unparse(member), shape(member))
                except (RecursionError, ValueError):
                    continue
    return out


def read_plain(path):
    """A learner file's text, never through a link and never more than MAX_BYTES; "" otherwise."""
    return files.read_text_or(path, MAX_BYTES, "")


def learner_code(folder, assignment):
    """{file:function: (source, tokens)} of one learner's .py files of a part."""
    out = {}
    for name in registered(assignment).learner_files:
        if name.endswith(".py"):
            for function, found in functions(read_plain(os.path.join(folder, name))).items():
                out[f"{name}:{function}"] = found
    return out


def common_forms(assignment):
    """The normalised forms to leave out: the reference's functions and the release's stubs."""
    forms = set()
    for kept in registered(assignment).reference.values():
        if kept.endswith(".py"):
            with open(os.path.join(ROOT, kept), encoding="utf-8") as f:
                forms |= {tuple(tokens) for _, tokens in functions(f.read()).values()}
    return forms


@functools.lru_cache(maxsize=2**16)
def match(a, b):
    """The share of two token sequences (tuples) that lines up (difflib's ratio). Remembered: in
    a class, the same two forms meet in many pairs of learners."""
    return 1.0 if a == b else difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def compare(one, two, left_out, shared_by):
    """(score, matched tokens, [(function, similarity)]) of two learners' code: each function both
    wrote, weighted by its length and by how rare its form is in the class."""
    total = matched = 0.0
    pairs = []
    for name in sorted(one.keys() & two.keys()):
        a, b = one[name][1], two[name][1]
        if tuple(a) in left_out and tuple(b) in left_out:
            continue
        weight = (len(a) + len(b)) / 2 / max(1, shared_by.get(tuple(a), 1) - 1)
        similarity = match(tuple(a), tuple(b))
        total += weight
        matched += weight * similarity
        pairs.append((name, similarity))
    return (matched / total if total else 0.0), matched, pairs


def similar_pairs(codes, assignment, threshold=THRESHOLD, min_tokens=MIN_TOKENS):
    """[{a, b, score, matched, functions}] of the pairs at or above the threshold, best first."""
    left_out = common_forms(assignment)
    shared_by = {}
    for code in codes.values():
        for form in {tuple(tokens) for _, tokens in code.values()}:
            shared_by[form] = shared_by.get(form, 0) + 1
    found = []
    for a, b in itertools.combinations(sorted(codes), 2):
        score, matched, functions_ = compare(codes[a], codes[b], left_out, shared_by)
        if score >= threshold and matched >= min_tokens:
            found.append({"a": a, "b": b, "score": round(score, 4), "matched": round(matched),
                          "functions": [[n, round(s, 4)] for n, s in functions_]})  # fmt: skip
    return sorted(found, key=lambda p: -p["score"])


def class_code(assignment):
    """{student: their code} of everyone who handed the part in."""
    if not os.path.isdir(SUBMITTED):
        return {}
    return {
        student: learner_code(os.path.join(SUBMITTED, student, assignment), assignment)
        for student in sorted(os.listdir(SUBMITTED))
        if os.path.isdir(os.path.join(SUBMITTED, student, assignment))
    }


def page(found, codes, threshold):
    """The review page: each pair, its score, and its matching functions side by side."""
    parts = [f"<h1>Similar submissions (threshold {threshold:.0%})</h1>",
             "<p>A list to review, never a penalty.</p>"]  # fmt: skip
    for pair in found:
        a, b = pair["a"], pair["b"]
        parts.append(f"<h2>{html.escape(a)} and {html.escape(b)}: {pair['score']:.0%}</h2>")
        for name, similarity in pair["functions"]:
            left, right = (html.escape(codes[s][name][0]) for s in (a, b))
            parts.append(f"<h3>{html.escape(name)}: {similarity:.0%}</h3><table><tr><td><pre>"
                         f"{left}</pre></td><td><pre>{right}</pre></td></tr></table>")  # fmt: skip
    if not found:
        parts.append("<p>No pair reaches the threshold.</p>")
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Similar "
            "submissions</title><style>td{vertical-align:top;padding:0 1em}</style></head>"
            f"<body>{''.join(parts)}</body></html>\n")  # fmt: skip


def write(assignment=ASSIGNMENT, threshold=THRESHOLD):
    """Compare the class's submissions of a part; write similar.html and similar.json; the pairs."""
    codes = class_code(assignment)
    found = similar_pairs(codes, assignment, threshold)
    stem = os.path.join(RECORDS, f"similar{suffix(assignment)}")
    os.makedirs(RECORDS, exist_ok=True)
    with open(stem + ".json", "w", encoding="utf-8") as f:
        json.dump({"threshold": threshold, "students": len(codes), "pairs": found}, f, indent=1)
    with open(stem + ".html", "w", encoding="utf-8") as f:
        f.write(page(found, codes, threshold))
    print(f"{len(codes)} submissions compared, {len(found)} pairs at {threshold:.0%} or more "
          f"(a list to review, not a verdict): {os.path.relpath(stem, ROOT)}.html")  # fmt: skip
    for pair in found:
        print(f"  {pair['a']} ~ {pair['b']}: {pair['score']:.0%} over {pair['matched']} tokens")
    return found


def arguments(parser, command):
    """`python -m grading similar [--part P] [--threshold T]`."""
    parser.add_argument("--part", choices=list(PARTS), default=ASSIGNMENT,
                        help="the part (nbgrader assignment; default attention)")  # fmt: skip
    parser.add_argument("--threshold", type=float, default=THRESHOLD,
                        help=f"share of matching code that lists a pair ({THRESHOLD})")  # fmt: skip


def main(args):
    """List the similar pairs of a part's class; as the course user (who owns records/)."""
    import sys

    from grading import course_user
    from grading.nbgrader import records

    if not 0 < args.threshold <= 1:
        raise SystemExit("similar: --threshold is a share between 0 and 1, such as 0.9")
    course_user.become([sys.executable, "-m", "grading", "similar", *args.argv])
    records.settle()
    write(args.part, args.threshold)
    return 0
