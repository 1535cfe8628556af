"""Terminal commands of the checkpoints package, run in a part's folder of your workspace.

python -m checkpoints progress     # every part's checkpoints and artifacts: holds / fails / waits
"""

import sys

from . import i18n, overview


def main(argv):
    """`python -m checkpoints progress`: the progress view in a terminal."""
    if argv != ["progress"]:
        raise SystemExit(i18n.say("session", "usage", command="python -m checkpoints progress"))
    print(repr(overview.progress()))


main(sys.argv[1:])
