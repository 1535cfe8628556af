"""A learner's workspace on the hub, filled by their own account before their server starts (the
hub's pre-spawn hook, jupyterhub_config.make_workspace):

    python -m grading.hub.workspace <workspace> <part> <edition>

It copies the part's student edition that make hub built (paths.release) into the workspace's
folder of the part, as `make lab` fills one (grading.authoring.course.fill_workspace): a learner's
file already there is kept. It reads nothing of the instructor's, which learners' accounts cannot
read on the hub (grading.hub.privacy): `python -m grading workspace` would build the student
edition from the master notebooks.
"""

import argparse

from grading import paths
from grading.authoring.course import fill_workspace
from grading.parts import PARTS


def main(argv=None):
    """Fill the workspace with one part's student edition in one edition."""
    parser = argparse.ArgumentParser(prog="python -m grading.hub.workspace")
    parser.add_argument("workspace", help="the learner's workspace folder")
    parser.add_argument("part", choices=list(PARTS))
    parser.add_argument("edition", help="en, ko or ja: the hub's edition")
    args = parser.parse_args(argv)
    fill_workspace(args.workspace, paths.release(args.part, args.edition), args.part)


if __name__ == "__main__":
    main()
