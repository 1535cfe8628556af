"""Terminal commands of the checkpoints package, run from your workspace folder.

python -m checkpoints progress     # every checkpoint and artifact: holds / fails / not started
"""

import sys

from . import i18n
from .attention.progress import progress


def main(argv):
    """`python -m checkpoints progress`: the progress view in a terminal."""
    if argv != ["progress"]:
        raise SystemExit(i18n.say("session", "usage", command="python -m checkpoints progress"))
    print(repr(progress()))


main(sys.argv[1:])
