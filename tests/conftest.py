"""What every run of the suite shares: the cost report printed at its end.

The suite's budget is 35 minutes of wall time for `make test` on the 2-core CI machine
(docs/developing.md, "The suite's budget"). Every run ends with its wall time against that budget
and the ten test files that took longest, so a change sees what it costs before CI does.
"""

import collections
import time

BUDGET_S = 35 * 60  # the whole suite, `make test`, on the 2-core CI machine
SLOWEST = 10
STARTED = time.monotonic()


def file_seconds(reports):
    """{test file: seconds of setup, call and teardown} over reports (each phase counted once)."""
    seconds = collections.Counter()
    for report in reports:
        if getattr(report, "when", None) in ("setup", "call", "teardown"):
            seconds[report.nodeid.split("::")[0]] += report.duration
    return seconds


def pytest_terminal_summary(terminalreporter):
    """The run's wall time against the budget, and its ten slowest files."""
    reports = [r for kind in terminalreporter.stats.values() for r in kind if hasattr(r, "nodeid")]
    seconds = file_seconds(reports)
    if not seconds:
        return
    wall, busy = time.monotonic() - STARTED, sum(seconds.values())
    write = terminalreporter.write_line
    terminalreporter.section("the suite's cost (docs/developing.md)")
    write(f"wall {wall:,.0f} s of the {BUDGET_S:,} s budget ({100 * wall / BUDGET_S:.0f}%); "
          f"{busy:,.0f} s in tests over {len(seconds)} files")  # fmt: skip
    for path, spent in seconds.most_common(SLOWEST):
        write(f"{spent:8.0f} s  {100 * spent / busy:4.1f}%  {path}")
