"""A grading server that dies, or hangs, once, on one student: the farm's retry tests.

    ATTENTION_FARM_CRASH=<student> ATTENTION_FARM_FLAG=<file> [ATTENTION_FARM_HOW=hang]

It exits hard (or sleeps a day) when asked to grade that student and the flag file does not
exist yet, creating it first; otherwise it is grading.scale.farm's own server.
"""

import json
import os
import sys
import time

from grading.scale import farm


def dying_once(lines):
    """The requests, as they come, until the one the test named arrives the first time."""
    target, flag = os.environ["ATTENTION_FARM_CRASH"], os.environ["ATTENTION_FARM_FLAG"]
    for line in lines:
        if json.loads(line)["student"] == target and not os.path.exists(flag):
            open(flag, "w").close()
            if os.environ.get("ATTENTION_FARM_HOW") == "hang":
                time.sleep(24 * 3600)
            os._exit(137)
        yield line


if __name__ == "__main__":
    farm.serve(dying_once(sys.stdin))
