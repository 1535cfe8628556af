"""Every report a learner can see, as one JSON file: to show that a change moved no word.

    python -m bench.reports OUT.json [--editions en,ko,ja]

For the reference and every catalogued mistake of both parts (each spelling of part one's), the
submission is written into a scratch workspace and each checkpoint's report is made as the
learner's kernel makes it, at all three hint levels, with each artifact's report: its text and
its HTML, or the exception it raised. Run it on two commits and
compare the files byte for byte (`cmp`); about 3 minutes on 2 cores. bench.verdicts does the same
for the judge's verdicts.
"""

import contextlib
import json
import os

import checkpoints
import checkpoints.xslm as part_two
from bench.verdicts import cases, command_line, scratch
from checkpoints import i18n

LEVELS = range(3)  # the report, hint(name) once, hint(name) twice


def rendered(make, *args):
    """[text, html] of the report make(*args) returns, or ["raised", kind, message]."""
    try:
        report = make(*args)
        return [repr(report), report._repr_html_()]
    except Exception as err:  # a learner sees these as one line; their wording is compared too
        return ["raised", type(err).__name__, str(err)]


def part_one_report(name, level):
    """Part one's report of checkpoint name at a hint level, as check() and hint() make it."""
    return checkpoints._report(name).but(level=level)


def part_one_reports(prefix):
    """{key: rendered} of part one's checkpoints, artifacts and progress view, here."""
    found = {}
    for name in checkpoints.CHECKS:
        for level in LEVELS:
            found[f"{prefix}:{name}:{level}"] = rendered(part_one_report, name, level)
    for filename in checkpoints.ARTIFACT_CHECKS:
        found[f"{prefix}:{filename}"] = rendered(checkpoints._artifact_report, filename)
    return found


def part_two_reports(prefix):
    """{key: rendered} of part two's checkpoints and artifacts, here."""
    found = {}
    for name in part_two.CHECKS:
        for level in LEVELS:
            found[f"{prefix}:{name}:{level}"] = rendered(part_two._report, name, level)
    for filename in part_two.artifacts.ARTIFACTS:
        found[f"{prefix}:{filename}"] = rendered(part_two._artifact_report, filename)
    return found


@contextlib.contextmanager
def workspace(files):
    """A scratch folder holding files ({path: text}), the current directory while inside."""
    home = os.getcwd()
    with scratch(files) as folder:
        os.chdir(folder)
        try:
            yield folder
        finally:
            os.chdir(home)


def main():
    """Render every case's reports in every edition; write the JSON file."""
    args = command_line("python -m bench.reports", __doc__)
    found = {}
    for case, files in cases().items():
        reports = part_one_reports if case.startswith("attention/") else part_two_reports
        with workspace(files):
            for edition in args.editions.split(","):
                with i18n.speaking(edition):
                    found |= reports(f"{case}@{edition}")
        print(case, flush=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(found, f, ensure_ascii=False, indent=0, sort_keys=True)
    print(f"{len(found)} reports: {args.out}")


if __name__ == "__main__":
    main()
