"""The hub's configuration, read by `jupyterhub -f` (grading.hub.control starts it, as root).

Ports come from control: ATTENTION_HUB_PORT (the address learners open), ATTENTION_HUB_API_PORT
(the hub's own API) and ATTENTION_HUB_PROXY_PORT (the proxy's API), all on 127.0.0.1.
"""

import asyncio
import os
import pwd
import shutil

from grading import course_user, hub, paths
from grading.authoring.masters import notebooks
from grading.hub import exchange, formgrader, labview, lti
from grading.hub.exchange import store
from grading.parts import PARTS

c = get_config()  # noqa: F821  (jupyterhub gives the file get_config)

EDITION = os.environ.get("ATTENTION_HUB_EDITION", "en")

# ── where the hub listens and keeps its state ──
c.JupyterHub.bind_url = f"http://127.0.0.1:{os.environ.get('ATTENTION_HUB_PORT', hub.PORT)}"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{os.environ['ATTENTION_HUB_API_PORT']}"
c.JupyterHub.db_url = f"sqlite:///{os.path.join(hub.STATE, 'jupyterhub.sqlite')}"
c.JupyterHub.cookie_secret_file = os.path.join(hub.STATE, "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.command = [hub.PROXY]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{os.environ['ATTENTION_HUB_PROXY_PORT']}"
c.ConfigurableHTTPProxy.pid_file = os.path.join(hub.STATE, "proxy.pid")
c.JupyterHub.cleanup_servers = True  # the hub's end is every learner's server's end
c.JupyterHub.cleanup_proxy = True

# ── who may log in: the class's accounts, each password set on first use (the demo's by make hub)
c.JupyterHub.authenticator_class = "firstuseauthenticator.FirstUseAuthenticator"
c.FirstUseAuthenticator.dbm_path = os.path.join(hub.STATE, "passwords")
c.FirstUseAuthenticator.create_users = False  # a name the hub does not know cannot sign itself up
c.Authenticator.allowed_users = set(hub.everyone())
# Only this class: JupyterHub would otherwise let in every user its database kept from an earlier
# class or the demo (whose passwords are published)
c.Authenticator.allow_existing_users = False
# An earlier class's accounts (control.remember_accounts) are blocked: JupyterHub then takes their
# groups and roles away, so a session cookie one of them still holds opens no formgrader
c.Authenticator.blocked_users = set(os.environ.get("ATTENTION_HUB_FORMER", "").split())
c.JupyterHub.load_groups = {
    "learners": {"users": list(hub.learners())},
    "instructors": {"users": list(hub.instructors())},
}

# ── LTI 1.3: when make hub is given the LMS's registration (ATTENTION_HUB_LTI_*), everyone logs
# in from the LMS instead, still only as the class's accounts and groups above (grading/hub/lti.py)
if lti.configured():
    lti.configure(c)

# ── the course's exchange: a service run as the course user (grading/hub/exchange/) ──
EXCHANGE_URL = f"http://127.0.0.1:{os.environ['ATTENTION_HUB_EXCHANGE_PORT']}"
c.JupyterHub.services = [{
    "name": exchange.SERVICE,
    "url": EXCHANGE_URL,
    "user": course_user.USER,
    "cwd": paths.EXCHANGE,
    "command": [os.path.join(hub.VENV_BIN, "python"), "-m", "grading.hub.exchange.service"],
    "environment": {"PYTHONPATH": paths.ROOT, "LANG": "C.UTF-8", "ATTENTION_COURSE": paths.COURSE,
                    **{k: v for k, v in os.environ.items() if k.startswith("ATTENTION_HUB_")}},
    "display": False,
}]  # fmt: skip
c.JupyterHub.load_roles = [{
    "name": "exchange-users",  # the class's accounts reach the exchange, with their servers' tokens
    "groups": ["learners", "instructors"],
    "scopes": [f"access:services!service={exchange.SERVICE}"],
}]  # fmt: skip

# ── the live lab view: a service run as the course user (grading/hub/labview/). Every account of
# the class reaches it, so that a learner's checkpoints can report; the service itself shows its
# page to the instructors alone and keeps only what the course can say.
LABVIEW_URL = f"http://127.0.0.1:{os.environ['ATTENTION_HUB_LABVIEW_PORT']}"
c.JupyterHub.services.append({
    "name": labview.SERVICE,
    "url": LABVIEW_URL,
    "user": course_user.USER,
    "cwd": paths.COURSE,
    "command": [os.path.join(hub.VENV_BIN, "python"), "-m", "grading.hub.labview.service"],
    # the course user's (the class, DB_URL and its password when the course uses PostgreSQL,
    # where the history is then kept)
    "environment": {**course_user.environment(), "LANG": "C.UTF-8"},
    "oauth_no_confirm": True,  # the instructors' own page: no "authorize access?" step
})  # fmt: skip
c.JupyterHub.load_roles.append({
    "name": "lab-view-users",
    "groups": ["learners", "instructors"],
    "scopes": [f"access:services!service={labview.SERVICE}"],
})  # fmt: skip
# A learner's server token: what JupyterHub gives it by default, the exchange and the lab view
c.Spawner.server_token_scopes = ["users:activity!user", "access:servers!server",
                                 f"access:services!service={exchange.SERVICE}",
                                 f"access:services!service={labview.SERVICE}"]  # fmt: skip

# ── each learner's server: JupyterLab as the learner, with make lab's settings ──
c.JupyterHub.spawner_class = "jupyterhub.spawner.LocalProcessSpawner"
c.Spawner.cmd = [os.path.join(hub.VENV_BIN, "jupyterhub-singleuser")]
LEARNER_CONFIG = os.path.join(hub.HERE, "learner-config")
LAB_CONFIG = os.path.join(paths.NOTEBOOKS, "lab-config")  # make lab's
c.Spawner.environment = {
    # make lab's Lab configuration, and above it the hub's: nbgrader's Assignments tab on the
    # course's exchange (grading/hub/learner-config/). The path's folders come before the config
    # folder, the first winning: the hub's is named there too.
    "JUPYTER_CONFIG_DIR": LEARNER_CONFIG,
    "JUPYTER_CONFIG_PATH": os.pathsep.join([LEARNER_CONFIG, LAB_CONFIG]),
    "ATTENTION_EXCHANGE_URL": f"{EXCHANGE_URL}/services/{exchange.SERVICE}/",
    "ATTENTION_HUB_EDITION": EDITION,
    # where a checkpoint run reports (checkpoints/labview.py); the hub's token says whose it is
    "ATTENTION_LAB_VIEW_URL": f"{LABVIEW_URL}/services/{labview.SERVICE}/api/report",
}
c.Spawner.start_timeout = 60
c.Spawner.http_timeout = 60


def lab_arguments(home):
    """make lab's flags for a workspace in home: the edition's settings, the layout kept there."""
    workspace = os.path.join(home, hub.WORKSPACE)
    return [
        f"--ServerApp.root_dir={workspace}",
        f"--LabApp.app_settings_dir={os.path.join(paths.EDITION_SOURCES, EDITION, 'lab')}",
        f"--LabApp.workspaces_dir={os.path.join(workspace, '.lab', 'workspaces')}",
        f"--LabApp.user_settings_dir={os.path.join(workspace, '.lab', 'user-settings')}",
    ]


def as_learner(user):
    """The setpriv prefix that runs a command as user, with no capability of root's."""
    return [shutil.which("setpriv") or "setpriv", f"--reuid={user.pw_uid}",
            f"--regid={user.pw_gid}", "--init-groups", "--inh-caps=-all", "--"]  # fmt: skip


async def make_workspace(spawner):
    """Before a server starts: the learner's workspace in their home, made by their own account,
    with a folder for each part released on the course's exchange, filled from the student edition
    make hub built (grading.hub.workspace, as make lab fills one), so every file in it is theirs;
    the Lab opens on the first released part's first notebook. A part released later comes through
    the Assignments tab's Fetch."""
    user = pwd.getpwnam(spawner.user.name)
    workspace = os.path.join(user.pw_dir, hub.WORKSPACE)
    released = [part for part in PARTS if part in store.released()]
    steps = [[os.path.join(hub.VENV_BIN, "python"), "-m", "grading.hub.workspace", workspace, part,
              EDITION] for part in released]  # fmt: skip
    for argv in steps or [["mkdir", "-p", workspace]]:
        await as_learner_run(user, argv)
    spawner.args = lab_arguments(user.pw_dir)
    spawner.default_url = "/lab"
    if released:
        first = PARTS[released[0]]
        spawner.default_url = f"/lab/tree/{first.folder}/{notebooks(first.masters)[0]}"


async def as_learner_run(user, argv):
    """Run argv as the learner user, in their home; RuntimeError with its output if it fails."""
    env = {"HOME": user.pw_dir, "USER": user.pw_name, "PYTHONPATH": paths.ROOT, "LANG": "C.UTF-8",
           "PATH": f"{hub.VENV_BIN}:/usr/local/bin:/usr/bin:/bin"}  # fmt: skip
    made = await asyncio.create_subprocess_exec(
        *as_learner(user), *argv, env=env, cwd=user.pw_dir, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    said, _ = await made.communicate()
    if made.returncode != 0:
        raise RuntimeError(f"{user.pw_name}'s workspace: {said.decode(errors='replace')[-2000:]}")


c.Spawner.pre_spawn_hook = make_workspace


# ── the formgrader: a service run as the course user, opened to the instructors only ──
# (grading/hub/formgrader.py; control.start has made its home and given the class first)
c.JupyterHub.services.append(formgrader.service(int(os.environ["ATTENTION_HUB_FORMGRADER_PORT"])))
c.JupyterHub.load_roles.append(formgrader.role())
