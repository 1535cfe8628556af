"""Build checkpoints/attention/fingerprints.json and, for part two, checkpoints/xslm/answers.json.

They record how the reference and every catalogued mistake answer each probe.

python -m grading fingerprints          # rewrite both files
python -m grading fingerprints --check  # exit 1 if a committed file is stale
"""

import json
import os

from checkpoints.attention.catalogue import at_checkpoint, pair_name, pairs_at
from checkpoints.attention.diagnose import FINGERPRINTS_FILE, probe_signatures
from checkpoints.attention.probes import CHECKPOINTS, PROBES
from checkpoints.compare import to_strict_json
from checkpoints.xslm import checks as xslm_checks
from grading.authoring.mistakes import buggy_model
from grading.judge.reference import reference
from grading.paths import ROOT


def build():
    """{checkpoint: {"correct": signatures, "mistakes": {name: signatures}, "pairs": {"a+b":
    signatures}}} from the real code."""
    table = {}
    for checkpoint in CHECKPOINTS:
        correct = probe_signatures(checkpoint, reference())
        table[checkpoint] = {
            "correct": correct,
            "mistakes": {m.name: answers(checkpoint, m.name, correct)
                         for m in at_checkpoint(checkpoint)},
            "pairs": {pair_name(*p): answers(checkpoint, pair_name(*p), correct)
                      for p in pairs_at(checkpoint)},
        }  # fmt: skip
    return table


def answers(checkpoint, name, correct):
    """The signatures of the model.py carrying the named mistake (or pair), probes served."""
    return served(checkpoint, name, probe_signatures(checkpoint, buggy_model(name)), correct)


def served(checkpoint, name, answers, correct):
    """A mistake's answers, with each probe that serves one mistake only made to count for it:
    for any other mistake it matches anything; for its own, where the right answer is an error,
    any answer but that error (the error can be left out in many ways, each answering otherwise)."""
    for probe in PROBES[checkpoint]:
        if not probe.serves:
            continue
        if probe.serves != name:
            answers[probe.id] = {"any": True}
        elif "raises" in correct[probe.id] and answers[probe.id] != correct[probe.id]:
            answers[probe.id] = {"not_raises": correct[probe.id]["raises"]}
    return answers


def xslm_answers(run, checkpoint):
    """{probe id: signature} of one run's answers on a part-two checkpoint's visible probes."""
    return {p.id: xslm_checks.signature(run(p)) for p in xslm_checks.VISIBLE[checkpoint]}


def build_xslm():
    """Part two's table: the reference's answers and each catalogued mistake's at its checkpoint."""
    import xslm
    from grading.authoring.mistakes.part_two import buggy

    table = {}
    for checkpoint in xslm_checks.CHECKS:
        table[checkpoint] = {
            "correct": xslm_answers(xslm_checks.Local(xslm.engine, xslm.gpt), checkpoint),
            "mistakes": {
                m.name: xslm_answers(xslm_checks.Local(*buggy(m.name)), checkpoint)
                for m in xslm_checks.MISTAKES
                if m.checkpoint == checkpoint
            },
        }
    return table


def render(table):
    """The table as the file's text: sorted keys, so the same table always gives the same bytes."""
    return json.dumps(to_strict_json(table), indent=1, sort_keys=True, allow_nan=False) + "\n"


def arguments(parser, command):
    """`python -m grading fingerprints [--check]`."""
    parser.add_argument("--check", action="store_true",
                        help="only compare: exit 1 if a committed file is stale")  # fmt: skip


def main(args):
    """Rewrite both files, or with --check only compare them; the exit status (1: stale)."""
    stale = []
    for path, table in [(FINGERPRINTS_FILE, build()), (xslm_checks.ANSWERS_FILE, build_xslm())]:
        text, name = render(table), os.path.relpath(path, ROOT)
        if args.check:
            with open(path, encoding="utf-8") as f:
                if f.read() != text:
                    stale.append(name)
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {name}")
    if args.check:
        print(
            f"{', '.join(stale)} stale: run `python -m grading fingerprints`"
            if stale
            else "the fingerprints and part two's answers are up to date"
        )
    return 1 if stale else 0
