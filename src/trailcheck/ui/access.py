"""Who may use the UI, and which form posts are the UI's own.

The token rule is ``trailcheck serve``'s (:mod:`trailcheck.serve.security`): without a token the
UI listens only on loopback; with one, every request carries it. A browser cannot add an
``Authorization`` header to a link or a form, so besides ``Authorization: Bearer <token>`` the
UI accepts the token from a cookie, set by its sign-in form (``POST /login``): HttpOnly, so no
script reads it, and SameSite=Strict, so no other site's page sends it.

Every state-changing form carries a per-process secret (``csrf``) that only pages of this UI
show: a page elsewhere can make a browser post to ``127.0.0.1:8765`` (no token needed there),
but it cannot read our pages, so it cannot know the secret. Comparisons take the same time
whatever the guess (:func:`hmac.compare_digest`).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from typing import Final

from trailcheck.serve.refusal import RequestRefused
from trailcheck.serve.security import check_bearer

__all__ = ["TOKEN_COOKIE", "Access"]

TOKEN_COOKIE: Final = "trailcheck_ui_token"


def _same(offered: str, expected: str) -> bool:
    return hmac.compare_digest(offered.encode(), expected.encode())


@dataclass(frozen=True)
class Access:
    """The token (None: loopback, no token) and this process's form secret."""

    token: str | None
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    def allows(self, authorization: str | None, cookie: str | None) -> bool:
        """Whether a request with this header and cookie may see and change the store."""
        if self.token is None:
            return True
        if cookie is not None and _same(cookie, self.token):
            return True
        try:
            check_bearer(authorization, self.token)
        except RequestRefused:
            return False
        return True

    def signs_in(self, offered: str) -> bool:
        """Whether ``offered`` (from the sign-in form) is the token."""
        return self.token is not None and _same(offered, self.token)

    def posted_by_ui(self, offered: str | None) -> bool:
        """Whether a form's ``csrf`` field is this process's secret."""
        return offered is not None and _same(offered, self.csrf)
