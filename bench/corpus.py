"""How the diagnosis does on code written the ways people write it: the named share, and never a
wrong name.

    make bench-corpus     (or: .venv/bin/python -m bench.corpus [--entries])

Three corpora, each measured apart, because they are not equally fair to the catalogue:

- course: part one's tests/fixtures/corpus.py and part two's catalogued mistakes, written beside
  the catalogue (optimistic: the fingerprints were made with these in view);
- patterns, part one and part two: bench/pattern_corpus.py, modelled on public repositories'
  code (each entry names its origin), kept apart so that nothing is tuned on it.

An entry's verdict was decided from the contract first: "correct", one catalogue name, several
joined by "+", or "unknown" (wrong in a way no name covers). A failing entry is *named* when the
checkpoint gives at least one name and every name it gives is one of the entry's; a name that is
not the entry's is *wrong*. A correct entry must pass and a wrong one must fail.
"""

import argparse
import ast
import sys
from dataclasses import dataclass

from bench.pattern_corpus import PART_ONE, PART_TWO
from checkpoints.attention.steps import CHECKS
from checkpoints.sections import read_sections
from checkpoints.xslm import files
from checkpoints.xslm.checks import MISTAKES as CATALOGUE_TWO
from checkpoints.xslm.checks import Local, checkpoint_report
from grading.authoring.mistakes import definition, part_two, replace_function
from grading.judge.reference import load_source_module, reference_source
from tests.fixtures.corpus import CORPUS

# The checkpoint that judges a part-two function a "gpt" entry replaces.
GPT_CHECKPOINT = {"GPT": "GPT", "loss": "loss", "train_step": "train_step", "generate": "generate"}
LAYERS = ("softmax", "linear", "norm")


@dataclass(frozen=True)
class Outcome:
    """What the checkpoints said of one entry, beside what it is."""

    entry: str
    what: str  # "correct", "unknown", or catalogue names joined by "+"
    passed: bool
    names: tuple  # every name the failing checkpoints gave

    @property
    def expected(self):
        """The names this entry may be given."""
        return set() if self.what in ("correct", "unknown") else set(self.what.split("+"))

    @property
    def wrong_names(self):
        """Names given that are not this entry's."""
        return sorted(set(self.names) - self.expected)

    @property
    def named(self):
        """A failing entry given at least one name, and only its own."""
        return not self.passed and bool(self.names) and not self.wrong_names

    @property
    def verdict_right(self):
        """Passes when correct, fails when wrong."""
        return self.passed == (self.what == "correct")


def given_names(report):
    """Every catalogue name a report's diagnosis gives (a pair gives two)."""
    return [n for m in report.diagnosis or [] for n in m.names]


def top_level(code):
    """[(name or None, text)] of code's top-level statements: a def's name, None for the rest."""
    code = code.strip("\n")
    lines = code.splitlines(keepends=True)
    return [
        (node.name if isinstance(node, ast.FunctionDef | ast.ClassDef) else None,
         "".join(lines[node.lineno - 1 - len(getattr(node, "decorator_list", [])):node.end_lineno]))
        for node in ast.parse(code).body
    ]  # fmt: skip


def with_code(source, code, targets=None):
    """source with each definition of code put in place of its namesake (a method when targets
    names it "Class.name"), and the rest of code (helpers, constants) added at the end."""
    rest = []
    for name, text in top_level(code):
        if name is None:
            rest.append(text)
            continue
        target = next((t for t in targets or [] if t.rpartition(".")[2] == name), name)
        try:
            definition(ast.parse(source), target)
        except KeyError:
            rest.append(text)
            continue
        source = replace_function(source, target, text)
    return source + "\n\n" + "\n\n".join(rest) + "\n"


def part_one(entry, checkpoint, what, code):
    """The Outcome of a part-one entry: its code in the reference's model.py, at its checkpoint."""
    model = load_source_module(with_code(reference_source(), code), "corpus", f"<{entry}>")
    report = CHECKS[checkpoint](model)
    return Outcome(entry, what, report.passed, tuple(given_names(report)))


def engine_text(value_code):
    """The reference's engine.py with its Value section replaced by value_code."""
    _, sections = read_sections(part_two.source(files.ENGINE_FILE))
    sections["Value"] = value_code
    return files.header(files.ENGINE_FILE) + "\n\n".join(sections[n] for n in sections)


def part_two_texts(piece, code):
    """({file: text} of the learner's engine.py and gpt.py, [checkpoints to run]) for an entry."""
    texts = {name: part_two.source(name) for name in part_two.FILES}
    if piece == "engine":
        texts[files.ENGINE_FILE] = engine_text(code)
        return texts, ["Value"]
    if piece == "layers":
        texts[files.ENGINE_FILE] = with_code(texts[files.ENGINE_FILE], code)
        return texts, [n for n, _ in top_level(code) if n in LAYERS]
    namespace = {}
    exec(code, namespace)  # the entry's own REPLACES, a tuple of names
    targets = namespace["REPLACES"]
    texts[files.GPT_FILE] = with_code(texts[files.GPT_FILE], code, targets)
    return texts, sorted({GPT_CHECKPOINT[t.partition(".")[0]] for t in targets})


def part_two_outcome(entry, texts, checkpoints, what):
    """The Outcome of part-two files on their checkpoints."""
    try:
        engine, gpt = part_two.modules(texts, entry.replace(".", "_"))
    except Exception:  # the entry's file does not even load: every checkpoint fails unnamed
        return Outcome(entry, what, False, ())
    run = Local(engine, gpt)
    reports = [checkpoint_report(name, run) for name in checkpoints]
    names = tuple(n for r in reports if not r.passed for n in given_names(r))
    return Outcome(entry, what, all(r.passed for r in reports), names)


def corpora():
    """{corpus name: [Outcome]} of every corpus."""
    course_two = []
    for name in part_two.MISTAKES:
        checkpoint = next(m.checkpoint for m in CATALOGUE_TWO if m.name == name)
        course_two.append(part_two_outcome(name, part_two.buggy_texts(name), [checkpoint], name))
    patterns_two = []
    for entry, (piece, what, _, code) in sorted(PART_TWO.items()):
        texts, checkpoints = part_two_texts(piece, code)
        patterns_two.append(part_two_outcome(entry, texts, checkpoints, what))
    return {
        "course, part one": [part_one(e, c, w, code) for e, (c, w, code) in sorted(CORPUS.items())],
        "course, part two": course_two,
        "patterns, part one": [
            part_one(e, c, w, code) for e, (c, w, _, code) in sorted(PART_ONE.items())
        ],
        "patterns, part two": patterns_two,
    }


def summary(name, outcomes):
    """One line: entries, verdicts right, failing ones named (share), wrong names."""
    failing = [o for o in outcomes if o.what != "correct"]
    named = sum(o.named for o in failing)
    right = sum(o.verdict_right for o in outcomes)
    wrong = sum(bool(o.wrong_names) for o in outcomes)
    share = f"{named / len(failing):4.0%}" if failing else "   -"
    return (f"{name:20} {len(outcomes):3} entries, {right:3} verdicts right, "
            f"{named:3} of {len(failing):3} wrong named ({share}), {wrong} misnamed")  # fmt: skip


def entry_line(o):
    """One entry: ok or what differs, what it is, what was said."""
    if not o.verdict_right:
        mark = "PASSES" if o.passed else "FAILS"
    elif o.wrong_names:
        mark = "WRONG"
    elif o.what not in ("correct",) and not o.named:
        mark = "unnamed"
    else:
        mark = "ok"
    said = "passes" if o.passed else ("+".join(o.names) or "-")
    return f"  {mark:8} {o.entry:48} {o.what:40} {said}"


def main(argv):
    """Print each corpus's figures (and its entries with --entries)."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.corpus", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--entries", action="store_true", help="one line per entry as well")
    show = parser.parse_args(argv).entries
    for name, outcomes in corpora().items():
        print(summary(name, outcomes), flush=True)
        if show:
            print("\n".join(entry_line(o) for o in outcomes))


if __name__ == "__main__":
    main(sys.argv[1:])
