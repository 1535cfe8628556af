"""The formgrader service's authorizer: its server serves nbgrader's formgrader and nothing that
runs code or changes files as the grading account.

jupyter_server serves its REST API beside any extension: kernels, sessions, terminals and file
writes would let whoever opens the formgrader (an instructor's login, or someone who took one)
run code as attention-grader outside the sandbox, next to the gradebook and every hand-in. The
formgrader's own pages and API need none of them (it grades through nbgrader, in its process).
Named in formgrader-config/jupyter_server_config.json.
"""

from jupyterhub.singleuser.extension import JupyterHubAuthorizer

REFUSED = {"kernels", "kernelspecs", "sessions", "terminals", "nbconvert", "server"}
READ_ONLY = {"contents", "files", "config"}


class FormgraderOnly(JupyterHubAuthorizer):
    """The hub's scope check, after refusing every resource that runs code or writes."""

    def is_authorized(self, handler, user, action, resource):
        """Whether user may do action on resource: never a refused one, only read the others."""
        if resource in REFUSED or (resource in READ_ONLY and action != "read"):
            self.log.warning("formgrader service: %s may not %s %s", user.username, action,
                             resource)  # fmt: skip
            return False
        return super().is_authorized(handler, user, action, resource)
