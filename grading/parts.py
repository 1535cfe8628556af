"""The registry of the course's parts: one entry per nbgrader assignment, and nothing else.

What the commands need to know of a part is here, as data: where its masters are and what they
write, the files a learner hands in, its judge, its share of the checkpoints package, its demo
class. The commands that release, collect, grade, judge and table a class take a part's name and
look it up here; none of them branches on one. (Each part's own content, its judge, learner
package and answer tables, is its own code.) The first part is the default wherever a command
names none, and keeps the plain file names (grades.csv, intake.json); a later part's carry its
name.
"""

import importlib
from dataclasses import dataclass

from checkpoints.attention import status as attention_status
from checkpoints.attention.artifacts import ARTIFACT_CHECKS, OUTPUTS
from checkpoints.attention.modelfile import MODEL_FILE
from checkpoints.xslm import artifacts as xslm_artifacts
from checkpoints.xslm import status as xslm_status
from grading import paths


@dataclass(frozen=True)
class Part:
    """One part of the course: an nbgrader assignment, from its master notebooks to its judge."""

    name: str  # the assignment: notebooks/<name>/, submitted/<student>/<name>/
    label: str  # how a learner counts its notebooks: "8 part-one notebooks"
    folder: str  # its folder in a learner's workspace and on the site: part-1-attention
    learner_files: list  # what the learner makes: graded as submitted, never replaced
    reference: dict  # {file its masters write: where the repository keeps it}
    judge: str  # its module of grading/judge: Judgement, CELLS, judge_folder
    package_leaves_out: list  # what of checkpoints/ its release leaves out (the others' share)
    demo: str = ""  # "module:function" that writes its demo class into submitted/ (if it has one)
    prepare_workspace: str = ""  # "module:function": given a workspace, adds its stub files
    catalogue: str = ""  # "module:NAME" of its {name: catalogued mistake}, if it names mistakes
    claims: str = ""  # "module:NAME" of the i18n.Section of its checks' words, keyed by check id

    @property
    def masters(self):
        """The folder of its master notebooks (nbgrader's source)."""
        return paths.masters(self.name)

    @property
    def text_forms(self):
        """The folder of its master notebooks' text forms."""
        return paths.text_forms(self.name)


def outputs(names):
    """{outputs/name: outputs/name}: artifacts the masters write, kept where they are written."""
    return {f"{OUTPUTS}/{name}": f"{OUTPUTS}/{name}" for name in names}


XSLM_ARTIFACTS = [
    xslm_artifacts.LOSS_FILE,
    xslm_artifacts.WEIGHTS_FILE,
    xslm_artifacts.SAMPLES_FILE,
]

PARTS = {
    part.name: part
    for part in [
        Part(
            name="attention",
            label="part-one",
            folder=attention_status.FOLDER,
            learner_files=[MODEL_FILE] + [f"{OUTPUTS}/{name}" for name in ARTIFACT_CHECKS],
            reference={MODEL_FILE: MODEL_FILE, **outputs(ARTIFACT_CHECKS)},
            judge="grading.judge.attention",
            catalogue="checkpoints.attention.catalogue:BY_NAME",
            claims="checkpoints.attention.claims:CLAIMS",
            demo="grading.classroom:demo_class",
            package_leaves_out=["xslm"],  # part two's subpackage, its answer table included
            prepare_workspace="checkpoints.attention.modelfile:ensure_model_in",
        ),
        Part(
            name="xslm",
            label="part-two",
            folder=xslm_status.FOLDER,
            learner_files=["engine.py", "gpt.py"] + [f"{OUTPUTS}/{n}" for n in XSLM_ARTIFACTS],
            reference={
                "engine.py": "xslm/engine.py",
                "gpt.py": "xslm/gpt.py",
                **outputs(XSLM_ARTIFACTS),
            },  # fmt: skip
            judge="grading.judge.xslm",
            catalogue="checkpoints.xslm.checks:BY_NAME",
            claims="checkpoints.xslm.checks:CLAIMS",
            demo="grading.classroom:demo_class_xslm",
            package_leaves_out=["attention"],  # part one's subpackage, its answer table included
            prepare_workspace="checkpoints.xslm.files:ensure_files",
        ),
    ]
}
ASSIGNMENT = next(iter(PARTS))  # the first part: the default
XSLM = "xslm"  # part two, the tiny GPT (tests and the demo's students name it)

# Files the learner produces, by part; grader_config keeps nbgrader from overwriting any of them.
LEARNER_FILES = {name: part.learner_files for name, part in PARTS.items()}


def registered(name):
    """The registered part called name; SystemExit naming the parts when there is none."""
    if name not in PARTS:
        raise SystemExit(f"no part {name!r}: there are {', '.join(PARTS)}")
    return PARTS[name]


def suffix(name):
    """ "" for the first part, "-<name>" for a later one: grades.csv, grades-xslm.csv."""
    return "" if name == ASSIGNMENT else f"-{name}"


def learner_programs():
    """Every learner .py file of every part, by file name: model.py, engine.py, gpt.py."""
    return sorted({f for p in PARTS.values() for f in p.learner_files if f.endswith(".py")})


def load(spec):
    """The function a "module:function" spec of the registry names."""
    module, _, function = spec.partition(":")
    return getattr(importlib.import_module(module), function)
