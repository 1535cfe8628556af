"""The course's one command line: `python -m grading <command> [options]`, `--help` on each.

The table below names every command, the module that carries it out and what it is for. A
command's module is imported only when that command runs, so `python3 -m grading system` and
`python3 -m grading interpreter` work with the machine's own Python, before .venv exists, and
`--help` is instant. Each module gives `arguments(parser, command)`, which declares its options,
and `main(args)`, which carries it out (args.command names the command; args.argv is what
followed it, for a command that starts itself again as the course user).
"""

import argparse
import importlib
import sys

# group -> [(command, module, what it does)], in the order `--help` lists them
COMMANDS = {
    "grading a class": [
        ("autograde", "grading.classroom", "grade every submission of a part (nbgrader + judge)"),
        ("feedback", "grading.classroom", "a feedback page for every graded student"),
        ("grades", "grading.classroom", "the class's grades as CSV, a column per checkpoint"),
        ("report", "grading.report", "the class report: scores, named mistakes, who needs a look"),
        ("similar", "grading.similarity", "pairs of submissions unusually alike, to review"),
        ("roster", "grading.lms", "the students' names, emails and LMS ids into the gradebook"),
        ("export", "grading.lms", "the grades in Canvas's, Moodle's or a plain import layout"),
        ("demo", "grading.classroom", "release, a simulated class, autograde, feedback, grades"),
        ("collect", "grading.nbgrader.collect", "unpack the learners' zips into submitted/"),
        ("judge", "grading.verdicts", "every graded cell's verdict for one submission"),
    ],
    "making the course": [
        ("release", "grading.authoring.course", "a part's student edition, for nbgrader"),
        ("workspace", "grading.authoring.course", "a learner's workspace (what make lab opens)"),
        ("site", "lite.build", "the in-browser edition (JupyterLite), or fetch what it needs"),
        ("notebooks", "grading.authoring.notebooks_text", "master notebooks from text forms"),
        ("masters", "grading.authoring.masters", "run the masters; compare or refresh outputs"),
        ("fingerprints", "grading.authoring.fingerprints", "the mistakes' answer tables"),
        ("editions", "grading.authoring.editions", "check, build or stamp a language edition"),
    ],
    "the grading machine": [
        ("system", "grading.machine.system", "install the Debian packages a command needs"),
        ("interpreter", "grading.machine.interpreter", "make .venv from the course's Python"),
        ("course-user", "grading.course_user", "set up or check the course user"),
        ("postgres", "grading.scale.postgres", "start or stop a local PostgreSQL gradebook"),
        ("serve", "grading.scale.server", "one grading server (make autograde starts them)"),
        ("dask-worker", "grading.scale.remote", "this machine as a worker of a Dask cluster"),
        ("hub", "grading.hub.control", "start or stop the course's JupyterHub (make hub)"),
    ],
}
MODULES = {name: module for group in COMMANDS.values() for name, module, _ in group}
SUMMARIES = {name: summary for group in COMMANDS.values() for name, _, summary in group}
PROG = "python -m grading"


def overview():
    """The text of `python -m grading --help`: every command, by group."""
    lines = [f"usage: {PROG} <command> [options]   ({PROG} <command> --help for its options)"]
    for group, commands in COMMANDS.items():
        lines.append(f"\n{group}:")
        lines += [f"  {name:<13} {summary}" for name, _, summary in commands]
    return "\n".join(lines)


def parser_for(command):
    """The argument parser of one command, declared by its own module."""
    module = importlib.import_module(MODULES[command])
    parser = argparse.ArgumentParser(prog=f"{PROG} {command}", description=SUMMARIES[command])
    module.arguments(parser, command)
    return module, parser


def main(argv=None):
    """Run the command argv names; its exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(overview())
        return 0 if argv else 2
    if argv[0] not in MODULES:
        print(f"{PROG}: no command {argv[0]!r}\n\n{overview()}", file=sys.stderr)
        return 2
    module, parser = parser_for(argv[0])
    args = parser.parse_args(argv[1:])
    args.command, args.argv = argv[0], argv[1:]
    returned = module.main(args)
    return returned if isinstance(returned, int) else 0
