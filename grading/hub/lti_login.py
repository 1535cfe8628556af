"""The hub's authenticator when it takes its logins from the LMS: ltiauthenticator's LTI 1.3 one,
which verifies the launch (the platform's signature from its JWKS, issuer, audience, state, nonce
and age), with the class's own answer to who it is (grading.hub.lti.account)."""

from ltiauthenticator.lti13.auth import LTI13Authenticator
from tornado import web

from grading.hub import lti


class CourseLTI13Authenticator(LTI13Authenticator):
    """LTI 1.3 logins as the class's accounts only, each as what the class's list makes it."""

    async def authenticate(self, handler, data=None):
        """The account the verified id_token data names; 403 with the reason when it names none
        of the class's, or the LMS's roles do not match the list."""
        try:
            name, group = lti.account(data or {}, self.username_key)
        except lti.Refused as refused:
            self.log.warning("LTI 1.3 launch refused: %s", refused)
            raise web.HTTPError(403, str(refused).replace("%", "%%")) from None
        self.log.info("LTI 1.3 launch: %s, one of the %s", name, group)
        return {"name": name}
