"""LTI 1.3 logins from the course's LMS (Canvas, Moodle): what make hub is told of the platform,
and which of the class's accounts a launch is (docs/hub.md, "LTI 1.3 (Canvas, Moodle)").

The LMS says who someone is; the class's list (ATTENTION_HUB_LEARNERS, ATTENTION_HUB_INSTRUCTORS,
or the demo's) says who may log in and as what. A launch names an account of the class through one
claim (USERNAME_KEY), and the LMS's roles in the course must agree with the list: an LMS
Instructor or TeachingAssistant logs in only as one of the class's instructors, an LMS Learner only
as one of its learners. Anyone else is refused, and no account is ever made at login.

Standard library only: make hub reads these settings before anything of the hub is installed.
"""

import os
import re

from grading import hub, paths

# The platform's registration, one variable each (ATTENTION_HUB_LTI_CLIENT_ID: spaces between
# several client IDs), as ltiauthenticator's LTI13Authenticator names them.
SETTINGS = {
    "issuer": "ATTENTION_HUB_LTI_ISSUER",
    "client_id": "ATTENTION_HUB_LTI_CLIENT_ID",
    "authorize_url": "ATTENTION_HUB_LTI_AUTHORIZE_URL",
    "jwks_endpoint": "ATTENTION_HUB_LTI_JWKS_URL",
}
# The claim that names the account: ltiauthenticator's username_key ("custom_username" is the
# custom field username=$User.username, which both Canvas and Moodle fill with the login name).
USERNAME_KEY = "ATTENTION_HUB_LTI_USERNAME_KEY"
DEFAULT_USERNAME_KEY = "custom_username"
ROLES_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/roles"
CUSTOM_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/custom"
# A course (context) role, as LTI 1.3 writes it: membership#Instructor, its sub-roles as
# membership/Instructor#TeachingAssistant (or membership#Instructor#TeachingAssistant, as some
# platforms send), or the short name the spec still allows. Institution roles say nothing of
# this course.
CONTEXT_ROLE = re.compile(
    r"(?:http://purl\.imsglobal\.org/vocab/lis/v2/membership[#/])?(Instructor|Learner)(?:#\w+)?"
)
KIND_OF_ROLE = {"Instructor": "instructor", "Learner": "learner"}
TEACHING_ASSISTANT = "TeachingAssistant"  # a sub-role of Instructor, in its short form


class Refused(Exception):
    """A launch that names no account of the class, or one the LMS's roles do not match."""


def configured():
    """Whether make hub is to take its logins from an LMS: any ATTENTION_HUB_LTI_* is set."""
    return any(os.environ.get(name) for name in [*SETTINGS.values(), USERNAME_KEY])


def settings():
    """The platform's registration from the environment ({} when no LTI variable is set);
    SystemExit naming what is missing when only some are."""
    found = {key: os.environ.get(name, "").strip() for key, name in SETTINGS.items()}
    if not configured():
        return {}
    missing = [SETTINGS[key] for key, value in found.items() if not value]
    if missing:
        raise SystemExit(f"LTI 1.3 logins need {', '.join(missing)} too (docs/hub.md)")
    return {**found, "client_id": set(found["client_id"].split()), "username_key": username_key()}


def username_key():
    """The claim that names the account (ltiauthenticator's username_key syntax)."""
    return os.environ.get(USERNAME_KEY, "").strip() or DEFAULT_USERNAME_KEY


def claimed_name(token, key):
    """The value of the claim key in a verified id_token: key itself, or the custom claim's
    field for custom_<field>; Refused when it is missing (no falling back to another claim,
    whose values could be another person's account name)."""
    data = token
    if key.startswith("custom_"):
        data, key = token.get(CUSTOM_CLAIM) or {}, key[len("custom_") :]
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, str) or not value.strip():
        raise Refused(f"the LMS sent no {key} to name the account by")
    return value.strip()


def account(token, key):
    """The class's account a verified id_token names, with the group the class's list puts it
    in ("instructors" or "learners"); Refused unless the LMS's course roles agree."""
    name = claimed_name(token, key).lower()  # JupyterHub's names are lower case
    if not paths.STUDENT_ID.fullmatch(name) or name not in hub.everyone():
        raise Refused(f"{name!r} is not an account of this class (make hub names the class)")
    kinds = role_kinds(token.get(ROLES_CLAIM))
    if name in hub.instructors():
        if "instructor" not in kinds:
            raise Refused(f"{name} is an instructor of the class, but not in the LMS's course")
        return name, "instructors"
    if "learner" not in kinds:
        raise Refused(f"{name} is a learner of the class, but not one in the LMS's course")
    return name, "learners"


def role_kinds(roles):
    """{"instructor", "learner"}'s members that the id_token's roles claim holds."""
    kinds = set()
    for role in roles if isinstance(roles, list) else []:
        if not isinstance(role, str):
            continue
        if role == TEACHING_ASSISTANT:
            kinds.add("instructor")
        found = CONTEXT_ROLE.fullmatch(role)
        if found:
            kinds.add(KIND_OF_ROLE[found.group(1)])
    return kinds


def configure(c):
    """Set the hub's configuration c to log in through the LMS (settings() must be non-empty)."""
    registration = settings()
    c.JupyterHub.authenticator_class = "grading.hub.lti_login.CourseLTI13Authenticator"
    for key, value in registration.items():
        setattr(c.LTI13Authenticator, key, value)
