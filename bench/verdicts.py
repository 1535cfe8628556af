"""Every verdict the judges give, as one JSON file: to show that a change moved no score or word.

    python -m bench.verdicts OUT.json [--editions en,ko,ja]

For the reference and every catalogued mistake of both parts (each spelling of part one's), a
submission folder is written with the reference's artifacts, and each part's judge decides every
graded cell in each edition: passed, text, HTML and the instructor's record, plus the problems.
Run it on two commits and compare the files byte for byte (`cmp`); about 10 minutes on 2 cores.
"""

import argparse
import contextlib
import json
import os
import shutil
import tempfile

from checkpoints import i18n
from grading.authoring import mistakes
from grading.authoring.mistakes import part_two
from grading.judge import attention, xslm
from grading.parts import PARTS
from grading.paths import ROOT


def handed_in(part):
    """{file: text} of the reference submission of a part: what its masters write, as kept."""
    return {
        made: open(os.path.join(ROOT, kept), encoding="utf-8").read()
        for made, kept in PARTS[part].reference.items()
    }


def cases():
    """{case name: {file: text}}: the reference and every mistake of both parts, as submitted."""
    one, two = handed_in("attention"), handed_in("xslm")
    found = {"attention/reference": one}
    for name in sorted(mistakes.BUGGY):
        for k in range(1 + len(mistakes.SPELLINGS.get(name, []))):
            found[f"attention/{name}#{k}"] = one | {
                "model.py": mistakes.buggy_source(name, spelling=k)
            }
    found["xslm/reference"] = two
    for name in sorted(part_two.MISTAKES):
        found[f"xslm/{name}"] = two | part_two.buggy_texts(name)
    return found


@contextlib.contextmanager
def scratch(files):
    """A temporary folder holding files ({path: text}), removed afterwards."""
    folder = tempfile.mkdtemp(prefix="bench-")
    try:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(folder, rel)), exist_ok=True)
            with open(os.path.join(folder, rel), "w", encoding="utf-8") as f:
                f.write(text)
        yield folder
    finally:
        shutil.rmtree(folder)


def command_line(prog, doc):
    """The two benches' arguments: the JSON file to write, and the editions."""
    parser = argparse.ArgumentParser(
        prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", help="the JSON file to write")
    parser.add_argument("--editions", default="en,ko,ja", help="comma-separated (default all)")
    return parser.parse_args()


def judged(files, judge, edition):
    """{grade_id: [passed, text, html, record]} and the problems, for one submission."""
    with scratch(files) as folder, i18n.speaking(edition):
        verdicts, problems = judge.judge_folder(folder)
    return {g: [v.passed, v.text, v.html, v.record] for g, v in verdicts.items()} | {
        "problems": problems
    }


def main():
    """Judge every case in every edition; write the JSON file."""
    args = command_line("python -m bench.verdicts", __doc__)
    found = {}
    for case, files in cases().items():
        judge = attention if case.startswith("attention/") else xslm
        for edition in args.editions.split(","):
            found[f"{case}@{edition}"] = judged(files, judge, edition)
        print(case, flush=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(found, f, ensure_ascii=False, indent=0, sort_keys=True, default=str)
    print(
        f"{len(found)} judgements, {sum(len(v) - 1 for v in found.values())} verdicts: {args.out}"
    )


if __name__ == "__main__":
    main()
