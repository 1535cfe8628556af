"""The course's parts (nbgrader assignments) and the files a learner hands in for each.

Part one, "attention", is the default wherever a command names no part; part two is "xslm".
"""

from checkpoints.artifacts import ARTIFACT_CHECKS, OUTPUTS
from checkpoints.modelfile import MODEL_FILE

ASSIGNMENT = "attention"  # part one
XSLM = "xslm"  # part two, the tiny GPT

# Each part's judge: a module of grading/judge with judge_folder(folder, grade_ids=None).
JUDGES = {ASSIGNMENT: "grading.judge.attention", XSLM: "grading.judge.xslm"}

# Files the learner produces: graded as submitted, never replaced by the source versions.
LEARNER_FILES = {
    ASSIGNMENT: [MODEL_FILE] + [f"{OUTPUTS}/{name}" for name in ARTIFACT_CHECKS],
    XSLM: ["engine.py", "gpt.py"]
    + [f"{OUTPUTS}/xslm-{name}" for name in ("loss.txt", "weights.json", "samples.txt")],
}

# What of the checkpoints package (the top-level checkpoints/, the same for every part) a part's
# student edition leaves out: the other part's checks and answer table. A workspace holding both
# parts ends up with the whole package.
PACKAGE_LEAVES_OUT = {
    ASSIGNMENT: ["xslm"],  # part two's subpackage, answers.json included
    XSLM: ["fingerprints.json"],  # part one's answer table
}
