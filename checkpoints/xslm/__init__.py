"""Checkpoints for part two, the tiny GPT: save into engine.py and gpt.py, and check them.

    from checkpoints.xslm import save, check
    save(Value)          # writes the cell that defines Value into engine.py (step 1's section)
    check("Value")       # runs the Value checkpoint on engine.py and shows what holds
    hint("Value")        # the same, with a closer hint for each failing check (again: the formula)

Standard library only, like the rest of the checkpoints package.
"""

from .. import i18n, labview
from ..onward import CheckpointFailed, demo, going_on, learner_code
from ..pictures import show_curve
from ..sections import ModelFileError
from ..session import (
    OUTPUTS,
    conclude,
    grading,
    left_to_the_judge,
    quiet,
    show,
    show_progress,
    write_artifact,
)
from . import artifacts, files
from .checks import CHECKS, USES, Local, checkpoint_report
from .files import ensure_files, load_learner

__all__ = [
    "save",
    "check",
    "demo",
    "hint",
    "hidden",
    "check_artifact",
    "write_artifact",
    "show_curve",
    "steps_to_train",
    "ensure_files",
    "hand_in",
    "progress",
]

say = i18n.speaker("xslm_session")  # locales/<edition>.json, section "xslm_session"


def save(obj):
    """Write the notebook cell that defines obj (function or class) into engine.py or gpt.py."""
    if grading():
        print(say("grading_save", name=obj.__name__))
        return
    files.save(obj)


def learner_files(with_gpt=True):
    """(engine, gpt) loaded afresh from disk; CheckpointFailed when they cannot be loaded."""
    try:
        return load_learner(with_gpt=with_gpt)
    except (ModelFileError, SyntaxError) as err:
        raise CheckpointFailed(say("files_error", error=err)) from None
    except Exception as err:  # their code raised while loading: say where, as a checkpoint would
        raise CheckpointFailed(say("load_error", error=f"{type(err).__name__}: {err}")) from None


def _report(name, level=0):
    """The checkpoint's report on the learner's files; CheckpointFailed when nothing to check."""
    if name not in CHECKS:
        raise ValueError(say("no_checkpoint", checkpoint=repr(name), checkpoints=", ".join(CHECKS)))
    with quiet():
        in_engine = files.file_of(name) == files.ENGINE_FILE
        engine, gpt = learner_files(with_gpt=not in_engine)
        module = engine if in_engine else gpt
        broken = getattr(module, "BROKEN_SECTIONS", {}).get(name) if module else None
        if broken:
            raise CheckpointFailed(say("section_broken", name=name, why=broken))
        if module is None or not hasattr(module, name):
            raise CheckpointFailed(say("not_saved_yet", name=name, file=files.file_of(name)))
        run = Local(engine, gpt)
        report = checkpoint_report(name, run)
        if not report.passed:
            report = report.but(prerequisite=failing_prerequisite(name, engine, gpt))
    return report.but(level=level)


def failing_prerequisite(name, engine, gpt):
    """A sentence naming the first earlier checkpoint that fails (it would mislead), or None."""
    for earlier in USES[name]:
        module = engine if files.file_of(earlier) == files.ENGINE_FILE else gpt
        if hasattr(module, earlier) and not checkpoint_report(earlier, Local(engine, gpt)).passed:
            return say(
                "prerequisite_fails", earlier=earlier, step=files.step_of(earlier), name=name
            )
    return None


def check(name):
    """Run one checkpoint of part two on engine.py and gpt.py and show what holds."""
    if left_to_the_judge(name):
        return
    with going_on():
        report = _report(name)
        labview.share("xslm", report)  # on the course's hub only (checkpoints/labview.py)
        conclude(report)


HINT_LEVELS = {}


def hint(name):
    """The checkpoint again, with a closer hint for each failing check; again: the formula."""
    HINT_LEVELS[name] = min(HINT_LEVELS.get(name, 0) + 1, 2)
    with going_on():
        show(_report(name, HINT_LEVELS[name]))


def progress():
    """Every part's checkpoints and artifacts: which hold, fail (and why), wait; what next."""
    show_progress()


def steps_to_train(steps):
    """`steps`, or 0 while nbgrader grades: the judge reads the curve and weights as submitted."""
    return 0 if grading() else steps


def hidden(name):
    """Where a hidden check stands: the grader's judge scores it, outside your kernel."""
    print(say("hidden_check", check=name))


def hand_in():
    """hand-in-xslm.zip: part two's notebooks, engine.py, gpt.py and outputs/, to download."""
    from ..handin import hand_in as zip_part

    saved = [files.ENGINE_FILE, files.GPT_FILE]
    return zip_part(
        "xslm", "xslm", saved, [artifacts.LOSS_FILE, artifacts.WEIGHTS_FILE, artifacts.SAMPLES_FILE]
    )


def check_artifact(filename):
    """Check one of part two's artifacts in outputs/, with your own gpt.py."""
    if filename not in artifacts.ARTIFACTS:
        raise ValueError(
            say("no_artifact", file=repr(filename), files=", ".join(artifacts.ARTIFACTS))
        )
    if left_to_the_judge(filename):
        return
    with going_on():
        conclude(_artifact_report(filename))


def _artifact_report(filename):
    """The artifact's report; CheckpointFailed when gpt.py lacks what the artifact needs."""
    with quiet(), learner_code(filename):
        engine, gpt = learner_files()
        for name in artifacts.ARTIFACTS[filename]:
            if gpt is None or not hasattr(gpt, name):
                raise CheckpointFailed(say("not_saved_yet", name=name, file=files.GPT_FILE))
        held_out_loss, generate_text = artifacts.learner_model(engine, gpt)
        if filename == artifacts.LOSS_FILE:
            return artifacts.loss_report(OUTPUTS, held_out_loss)
        return artifacts.samples_report(OUTPUTS, generate_text)
