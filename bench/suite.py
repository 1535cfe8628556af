"""Where the suite's time goes: seconds and share per test file, from one run's JUnit XML, or two
runs side by side (before, after).

    PYTEST_ADDOPTS="--junitxml=/tmp/after.xml" bash .ci/run      # a run that writes its XML
    .venv/bin/python -m bench.suite /tmp/after.xml                 # its table (Markdown)
    .venv/bin/python -m bench.suite /tmp/before.xml /tmp/after.xml # both, file by file

A file's seconds are its tests' setup, call and teardown added up (pytest's JUnit "time"), so with
two workers they add up to more than the wall time; the share is of that sum. Its cores are how
many of the machine's were busy meanwhile on average (each test's machine_cpu_s property, from
tests/conftest.py): about 1 of 2 in one process means the file mostly waits. Its CPU seconds are
what its own processes spent (own_cpu_s, where root could count them): with two workers, the cost
that does not depend on what ran beside it. Every run of the
suite ends with its own wall time and ten slowest files (tests/conftest.py): this is the longer
form, for docs/developing.md.
"""

import argparse
import collections
import sys
import xml.etree.ElementTree as ET


def file_seconds(path):
    """{test file: seconds} of one JUnit XML, {test file: the machine's busy CPU seconds
    meanwhile}, {test file: its own CPU seconds}, and the number of test cases in it."""
    seconds, cpu, own = collections.Counter(), collections.Counter(), collections.Counter()
    cases = 0
    for case in ET.parse(path).iter("testcase"):
        cases += 1
        module = case.get("classname", "").split("@")[0]  # tests.grading.test_x[.Class]
        parts = module.split(".")
        while parts and not parts[-1].startswith("test_"):  # a test class's name
            parts.pop()
        name = "/".join(parts) + ".py"
        seconds[name] += float(case.get("time") or 0)
        for prop in case.iter("property"):
            if prop.get("name") == "machine_cpu_s":
                cpu[name] += float(prop.get("value") or 0)
            elif prop.get("name") == "own_cpu_s":
                own[name] += float(prop.get("value") or 0)
    return seconds, cpu, own, cases


def table(runs, names):
    """Markdown rows: each file's seconds, share, busy cores and own CPU seconds in every run (a
    run is ({file: seconds}, {file: busy CPU seconds}, {file: own CPU seconds})), slowest (in the
    last) first."""
    totals = [sum(seconds.values()) for seconds, _, _ in runs]
    head = " | ".join(f"{n} s | {n} % | {n} cores | {n} CPU s" for n in names)
    lines = [f"| test file | {head} |", "|---" + "|---:" * (4 * len(runs)) + "|"]
    files = sorted(set().union(*(s for s, _, _ in runs)), key=lambda f: -runs[-1][0].get(f, 0.0))
    for name in files:
        cells = [
            f"{seconds.get(name, 0):,.0f} | {100 * seconds.get(name, 0) / total:.1f} | "
            + (f"{cpu[name] / seconds[name]:.1f}" if cpu.get(name) and seconds.get(name) else "")
            + " | "
            + (f"{own[name]:,.0f}" if own.get(name) else "")
            for (seconds, cpu, own), total in zip(runs, totals)
        ]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    every = [
        f"**{t:,.0f}** | 100 | "
        + (f"{sum(c.values()) / t:.1f}" if t and c else "")
        + " | "
        + (f"**{sum(o.values()):,.0f}**" if o else "")
        for (_, c, o), t in zip(runs, totals)
    ]
    lines.append("| **all** | " + " | ".join(every) + " |")
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
    print(table([run[:3] for run in runs], names))
    print("\n" + "; ".join(f"{n}: {run[3]} tests" for n, run in zip(names, runs)))


if __name__ == "__main__":
    main(sys.argv[1:])
