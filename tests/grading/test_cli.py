"""The one command line, `python -m grading <command>`: every command listed, each with --help,
and every command the Makefile runs is one of them."""

import os
import re
import subprocess
import sys

import pytest

from grading import cli
from grading.paths import ROOT


def test_help_lists_every_command_by_group(capsys):
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    for group, commands in cli.COMMANDS.items():
        assert f"\n{group}:" in text
        for name, _, summary in commands:
            assert re.search(rf"^  {re.escape(name)} +{re.escape(summary)}$", text, re.M), name


@pytest.mark.parametrize("command", sorted(cli.MODULES))
def test_each_command_has_its_own_help(command, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main([command, "--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: python -m grading {command} ")
    assert "-h, --help" in text


def test_an_unknown_command_or_option_is_refused_with_the_list(capsys):
    assert cli.main(["autograd"]) == 2
    assert "no command 'autograd'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        cli.main(["grades", "--part", "nope"])
    assert stop.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err
    assert cli.main([]) == 2


def test_the_makefile_runs_only_commands_of_the_command_line():
    text = open(os.path.join(ROOT, "Makefile"), encoding="utf-8").read()
    used = re.findall(r"-m grading(?:\.\S*)? +\\?\s*(\S+)", text)
    assert len(used) >= 15, used
    assert set(used) <= set(cli.MODULES), set(used) - set(cli.MODULES)
    assert not re.search(r"-m grading\.", text), "a module run directly, not through the CLI"


def test_no_module_parses_its_own_command_line():
    """The hand-written parsers are gone: only grading/cli.py reads the command line."""
    for here, _, files in os.walk(os.path.join(ROOT, "grading")):
        for name in files:
            path = os.path.join(here, name)
            if name.endswith(".py") and name not in ("cli.py", "__main__.py", "forker.py"):
                source = open(path, encoding="utf-8").read()
                assert "sys.argv" not in source, path


def test_the_machine_commands_run_with_the_systems_python_before_the_venv():
    """`make` runs `python3 -m grading system|interpreter` before .venv exists: the command line
    and those commands import only the standard library."""
    code = (
        "import sys, grading.cli as c; c.parser_for('system'); c.parser_for('interpreter'); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('nbgrader', 'nbformat', 'jupyter_client', 'checkpoints', 'traitlets')))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          check=True)  # fmt: skip
    assert done.stdout.strip() == "[]"


def test_nbgrader_starts_without_building_the_iri_grammar():
    """Every nbgrader, nbconvert and Lab process imports nbformat, hence jsonschema: with the pinned
    jsonschema (requirements.txt) no lark grammar is built at import (rfc3987_syntax took about
    2.7 CPU s in each), and notebooks and nbgrader's cell metadata are still validated."""
    program = (
        "import sys, nbformat, jsonschema, nbgrader.apps\n"
        "from nbgrader.nbgraderformat.v3 import MetadataValidatorV3\n"
        "nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('x = 1')])\n"
        "nbformat.validate(nb)\n"
        "meta = {'grade': 'yes', 'grade_id': 'a', 'locked': True, 'points': 1,\n"
        "        'schema_version': 3, 'solution': False, 'task': False}\n"
        "cell = nbformat.v4.new_code_cell('x', metadata={'nbgrader': meta})\n"
        "try:\n"
        "    MetadataValidatorV3().validate_cell(cell)\n"
        "    sys.exit('bad metadata passed')\n"
        "except jsonschema.ValidationError:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('lark', 'rfc3987_syntax')))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
