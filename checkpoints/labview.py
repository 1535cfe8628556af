"""A checkpoint's result, shared with the instructor's live lab view: on the course's hub only.

On the hub, the learner's server runs with its own hub token (JUPYTERHUB_API_TOKEN) and the lab
view's address (ATTENTION_LAB_VIEW_URL, from the hub's configuration). Each checkpoint run then
sends, in the background: the part, the checkpoint, whether it holds, the failing checks' ids and
the names of the catalogued mistakes it shows. Never a line of code, an output or a value; the
hub, not this message, says whose it is. The learner is told once, in their language.

Anywhere else (make lab, the browser site, a headless run, nbgrader) the address is not set and
nothing is sent: no network is touched.
"""

import json
import os
import threading

from . import i18n
from .onward import under_nbgrader

ADDRESS, TOKEN = "ATTENTION_LAB_VIEW_URL", "JUPYTERHUB_API_TOKEN"
SECONDS = 5  # a report not answered by then is dropped: the learner never waits for it
TOLD = []  # the notice is said once per kernel

say = i18n.speaker("labview")


def on_the_hub():
    """True in a learner's server on the course's hub (and never while nbgrader runs)."""
    return bool(os.environ.get(ADDRESS) and os.environ.get(TOKEN)) and not under_nbgrader()


def once(ids):
    """ids in their order, each once (several known answers share one claim's id)."""
    return list(dict.fromkeys(ids))


def payload(part, report):
    """What is shared of a report: ids and names only."""
    mistakes = report.diagnosis[0].names if report.diagnosis and not report.passed else ()
    return {
        "part": part,
        "checkpoint": report.name,
        "passed": bool(report.passed),
        "failed": once(c.id for c in report.checks if not c.passed and c.id)[:20],
        "mistakes": once(mistakes)[:20],
    }


def send(body):
    """POST body to the lab view with the server's token; any failure is dropped."""
    import urllib.request  # here: a kernel that never sends (the site's) starts without it

    request = urllib.request.Request(
        os.environ[ADDRESS], data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"token {os.environ[TOKEN]}",
                 "Content-Type": "application/json"},
    )  # fmt: skip
    try:
        urllib.request.urlopen(request, timeout=SECONDS).close()
    except Exception:  # the view is a courtesy: a checkpoint never fails or waits for it
        pass


def share(part, report):
    """On the hub: send the report's ids in the background, and say so once."""
    if not on_the_hub() or report.name is None:
        return
    if not TOLD:
        TOLD.append(True)
        print(say("shared"))
    threading.Thread(target=send, args=(payload(part, report),), daemon=True).start()
