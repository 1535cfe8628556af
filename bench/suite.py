"""Where the suite's time goes: seconds and share per test file, from one run's JUnit XML, or two
runs side by side (before, after).

    PYTEST_ADDOPTS="--junitxml=/tmp/after.xml" bash .ci/run      # a run that writes its XML
    .venv/bin/python -m bench.suite /tmp/after.xml                 # its table (Markdown)
    .venv/bin/python -m bench.suite /tmp/before.xml /tmp/after.xml # both, file by file

A file's seconds are its tests' setup, call and teardown added up (pytest's JUnit "time"), so with
two workers they add up to more than the wall time; the share is of that sum. Every run of the
suite ends with its own wall time and ten slowest files (tests/conftest.py): this is the longer
form, for docs/developing.md.
"""

import argparse
import collections
import sys
import xml.etree.ElementTree as ET


def file_seconds(path):
    """{test file: seconds} of one JUnit XML, and the number of test cases in it."""
    seconds, cases = collections.Counter(), 0
    for case in ET.parse(path).iter("testcase"):
        cases += 1
        module = case.get("classname", "").split("@")[0]  # tests.grading.test_x[.Class]
        parts = module.split(".")
        while parts and not parts[-1].startswith("test_"):  # a test class's name
            parts.pop()
        seconds["/".join(parts) + ".py"] += float(case.get("time") or 0)
    return seconds, cases


def table(runs, names):
    """Markdown rows: each file's seconds and share in every run, slowest (in the last) first."""
    totals = [sum(seconds.values()) for seconds in runs]
    head = " | ".join(f"{n} s | {n} %" for n in names)
    lines = [f"| test file | {head} |", "|---" + "|---:" * (2 * len(runs)) + "|"]
    files = sorted(set().union(*runs), key=lambda f: -runs[-1].get(f, 0.0))
    for name in files:
        cells = [
            f"{seconds.get(name, 0):,.0f} | {100 * seconds.get(name, 0) / total:.1f}"
            for seconds, total in zip(runs, totals)
        ]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    lines.append("| **all** | " + " | ".join(f"**{t:,.0f}** | 100" for t in totals) + " |")
    return "\n".join(lines)


def main(argv):
    """The command line: one or two JUnit XML files."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.suite",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("xml", nargs="+", help="a run's --junitxml file (two: before, after)")
    args = parser.parse_args(argv)
    if len(args.xml) > 2:
        parser.error("one run, or two to compare")
    runs = [file_seconds(path) for path in args.xml]
    names = ["before", "after"] if len(runs) == 2 else ["run"]
    print(table([seconds for seconds, _ in runs], names))
    print("\n" + "; ".join(f"{n}: {c} tests" for n, (_, c) in zip(names, runs)))


if __name__ == "__main__":
    main(sys.argv[1:])
