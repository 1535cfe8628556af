"""The course on a JupyterHub of this machine: `make hub`, `make hub-stop` (docs/hub.md).

Each learner and instructor is a system account with a uid and a home of its own; the hub runs as
root and starts each one's JupyterLab as that account (LocalProcessSpawner), so what keeps one
learner from another is the hub's own boundary. Everything the hub keeps (its database, cookie
secret, passwords, log and pid) is in STATE, which only root can enter.
"""

import os

from grading import paths

STATE = os.path.join(paths.ROOT, ".hub")
VENV_BIN = os.path.join(paths.ROOT, ".venv", "bin")
PROXY = os.path.join(paths.ROOT, ".venv", "hub-proxy", "node_modules", ".bin",
                     "configurable-http-proxy")  # fmt: skip
HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(HERE, "jupyterhub_config.py")
PORT = 8000

# The demo class, when no class is named: two learners and an instructor, each with the password
# make hub prints (the hub listens on 127.0.0.1 only). A named class has no demo account.
LEARNERS = ("learner1", "learner2")
INSTRUCTORS = ("instructor1",)
WORKSPACE = "workspace"  # in each home: what `make lab` makes, made by the learner's own account


def demo_password(name):
    """The demo password of a demo account (printed by make hub; the hub listens on 127.0.0.1)."""
    return f"{name}-attention"


def named(variable):
    """The account names an environment variable lists (spaces between), in order, once each."""
    return tuple(dict.fromkeys(os.environ.get(variable, "").split()))


def demo():
    """Whether the hub serves the demo class: neither ATTENTION_HUB_LEARNERS nor
    ATTENTION_HUB_INSTRUCTORS names anyone."""
    return not (named("ATTENTION_HUB_LEARNERS") or named("ATTENTION_HUB_INSTRUCTORS"))


def learners():
    """The class's learners: those ATTENTION_HUB_LEARNERS names, or the demo's."""
    return LEARNERS if demo() else named("ATTENTION_HUB_LEARNERS")


def instructors():
    """The class's instructors: those ATTENTION_HUB_INSTRUCTORS names, or the demo's."""
    return INSTRUCTORS if demo() else named("ATTENTION_HUB_INSTRUCTORS")


def everyone():
    """Every account of the class, learners first."""
    return learners() + instructors()
