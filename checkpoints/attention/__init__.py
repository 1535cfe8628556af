"""Checkpoints for the attention workbook: save your functions into model.py and check them.

    from checkpoints import save, check
    save(softmax)        # writes the cell that defines softmax into model.py (step 1's section)
    check("softmax")     # runs the softmax checkpoint on model.py and shows what holds
    use_edition("ko")    # from now on the checkpoints answer in Korean (see i18n.py)

Standard library only, so it runs wherever Python runs.
"""

from .. import labview
from ..i18n import edition, use_edition
from ..onward import CheckpointFailed, demo, going_on, learner_code
from ..sections import ModelFileError, cell_source, save_notes
from ..session import (
    conclude,
    grading,
    left_to_the_judge,
    quiet,
    say,
    show,
    show_progress,
    write_artifact,
)
from .artifacts import ARTIFACT_CHECKS, ARTIFACT_NEEDS
from .modelfile import STEPS, broken_message, ensure_model, load_model, save_section, step_number
from .steps import CHECKS, USES

# pictures.py imports nothing beyond html and dataclasses (it must run anywhere): it is handed
# the words module here, which every import of checkpoints.pictures runs first.

__all__ = [
    "save",
    "check",
    "demo",
    "hint",
    "check_artifact",
    "hidden",
    "progress",
    "hand_in",
    "write_artifact",
    "show_source",
    "ensure_model",
    "ModelFileError",
    "STEPS",
    "use_edition",
    "edition",
]


def save(fn):
    """Write the notebook cell that defines fn into model.py, replacing that step's last version."""
    if grading():
        print(say("grading_save", function=fn.__name__))
        return
    try:
        text = save_section(fn.__name__, cell_source(fn))
    except ModelFileError as refused:  # the cell's own mistake: model.py is left as it was
        print(f"✗ {refused}")
        return
    print(say("saved", step=step_number(fn.__name__), function=fn.__name__))
    for note in save_notes(text, fn.__name__, step_number, "model.py"):
        print(note)


def _report(name):
    """The checkpoint's report on model.py; CheckpointFailed when there is nothing to check yet."""
    if name not in CHECKS:
        raise ValueError(say("no_checkpoint", checkpoint=repr(name), checkpoints=", ".join(CHECKS)))
    with quiet():
        try:
            model = load_model()
        except (ModelFileError, SyntaxError) as err:
            raise CheckpointFailed(say("model_error", error=err)) from None
        if broken_message(model, name):
            raise CheckpointFailed(broken_message(model, name))
        if not hasattr(model, name):
            raise CheckpointFailed(say("not_saved_yet", function=name))
        report = CHECKS[name](model)
        if report.passed:
            return report
        return report.but(prerequisite=failing_prerequisite(name, model))


def failing_prerequisite(name, model):
    """A sentence naming the first earlier step that fails its own checkpoint (it would mislead)."""
    for earlier in USES[name]:
        if hasattr(model, earlier) and not CHECKS[earlier](model).passed:
            return say(
                "prerequisite_fails", earlier=earlier, step=step_number(earlier), function=name
            )
    return None


def check(name):
    """Run one function's checkpoint on model.py and show what holds (see onward.going_on)."""
    if left_to_the_judge(name):
        return
    with going_on():
        report = _report(name)
        labview.share("attention", report)  # on the course's hub only (checkpoints/labview.py)
        conclude(report)


HINT_LEVELS = {}  # checkpoint -> how many tiers hint() has revealed so far


def hint(name):
    """Show the checkpoint again with a closer hint for each failing check; again: the formula."""
    HINT_LEVELS[name] = min(HINT_LEVELS.get(name, 0) + 1, 2)
    with going_on():
        show(_report(name).but(level=HINT_LEVELS[name]))


def check_artifact(filename):
    """Check one of the three artifacts in outputs/ against your own functions."""
    if left_to_the_judge(filename):
        return
    with going_on():
        conclude(_artifact_report(filename))


def _artifact_report(filename):
    """The artifact's report; CheckpointFailed when a function it needs is not saved yet."""
    with quiet(), learner_code(filename):
        try:
            model = load_model()
        except (ModelFileError, SyntaxError) as err:
            raise CheckpointFailed(say("model_error", error=err)) from None
        for name in ARTIFACT_NEEDS[filename]:
            if not hasattr(model, name):
                raise CheckpointFailed(say("not_saved_yet", function=name))
        return ARTIFACT_CHECKS[filename](model)


def progress():
    """Every part's checkpoints and artifacts: which hold, fail (and why), wait; what next."""
    show_progress()


def hidden(name):
    """Where a hidden check stands: the grader's judge scores it, outside your kernel."""
    print(say("hidden_check", check=name))


def hand_in():
    """hand-in-attention.zip: part one's notebooks, model.py and outputs/, one file to download."""
    from ..handin import hand_in as zip_part

    return zip_part("attention", "step", ["model.py"], list(ARTIFACT_CHECKS))


def show_source(fn):
    """Print a function's source, so a notebook can show the experiment it is about to run."""
    import inspect

    print(inspect.getsource(fn))
