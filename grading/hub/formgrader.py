"""The formgrader as a hub service: nbgrader's grading pages for the class's instructors, served
by a Jupyter server the hub starts as the course user (grading.course_user), never as root.

The hub starts it with itself (a managed service) and stops it with itself. Only the group
"instructors" may open it, through a role with the scope access:services!service=formgrader, as
nbgrader's own hub demos do; a learner gets 403. It runs in the class folder, where nbgrader finds
nbgrader_config.py, so its Autograde and Generate Feedback buttons and its manual grading write
what `make autograde` and `make feedback` write, as the same account, into the same gradebook.
"""

import os
import shutil

from grading import course_user, hub, paths

NAME = "formgrader"
PREFIX = f"/services/{NAME}/"
FIRST_PAGE = "/formgrader"  # nbgrader's page; the service serves nothing else (CONFIG_DIR)
CONFIG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "formgrader-config")
ROLE = "formgrader-instructors"
GROUP = "instructors"  # jupyterhub_config.py's group of hub.instructors()
# Jupyter's and IPython's folders in the service's home (the course user has no home of its own)
HOME_FOLDERS = {"JUPYTER_RUNTIME_DIR": "runtime", "JUPYTER_DATA_DIR": "data",
                "IPYTHONDIR": "ipython"}  # fmt: skip


def prepare():
    """As root, before the hub starts: the course user set up and given the class, so it owns
    what its buttons write, then its home (GRADER_HOME, in records/, which no learner can enter);
    the course user's pwd entry."""
    user = course_user.prepare()
    try:
        os.mkdir(paths.GRADER_HOME, 0o700)
    except FileExistsError:
        pass  # a link put there is refused below: hand_tree opens no link
    course_user.hand_tree(paths.GRADER_HOME, user, mode=0o700)
    return user


def service(port):
    """The hub's managed service: jupyterhub-singleuser as the course user on 127.0.0.1:port, in
    the class folder, with the course user's environment (the one grading gets from root) and a
    home of its own."""
    env = course_user.environment()  # as root, in the hub: PATH, the class, DB_URL, no root's HOME
    env.update({name: os.path.join(paths.GRADER_HOME, folder)
                for name, folder in HOME_FOLDERS.items()})  # fmt: skip
    env.update(JUPYTER_CONFIG_DIR=CONFIG_DIR, JUPYTERHUB_DEFAULT_URL=FIRST_PAGE)
    # The hub sets HOME to the account's own (/nonexistent) after `environment`: env sets ours.
    home = [shutil.which("env") or "/usr/bin/env", f"HOME={paths.GRADER_HOME}"]
    return {
        "name": NAME,
        "url": f"http://127.0.0.1:{port}",
        "user": course_user.USER,
        "cwd": paths.COURSE,
        "command": [
            *home,
            os.path.join(hub.VENV_BIN, "jupyterhub-singleuser"),
            f"--ServerApp.root_dir={paths.COURSE}",
        ],
        "environment": env,
        "oauth_no_confirm": True,  # the instructors' own tool: no "authorize access?" page
    }


def role():
    """The role that opens the service to the instructors' group and lists it on their home
    page; nobody else holds a scope of it."""
    return {
        "name": ROLE,
        "groups": [GROUP],
        "scopes": [
            f"access:services!service={NAME}",
            "list:services",
            f"read:services!service={NAME}",
        ],
    }
