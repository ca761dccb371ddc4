"""Who may use the UI, with which role, and which form posts are the UI's own.

The token rule is ``trailcheck serve``'s (:mod:`trailcheck.serve.security`): without a token the
UI listens only on loopback and every request may do everything; with tokens, every request
carries one, and its role decides. The read-write token (a reviewer) sees every page and takes
every action; the read-only token (a viewer) sees every page, and every action is refused with
403 (the pages show a viewer no forms).

A browser cannot add an ``Authorization`` header to a link or a form, so besides
``Authorization: Bearer <token>`` the UI accepts a cookie, set by its sign-in form (``POST
/login``): HttpOnly, so no script reads it, and SameSite=Strict, so no other site's page sends
it. The cookie does not hold the token, nor a role a viewer could edit: it holds an HMAC-SHA256
of a fixed label keyed by the token signed in with (:func:`sign_in_value`). The server computes
that value for each configured token and gives the role of the one that matches, so making the
read-write cookie takes the read-write token, and a cookie that leaks is no bearer token for the
receiver. It stays valid across restarts and until its token changes.

Every state-changing form carries a per-process secret (``csrf``) that only pages of this UI
show: a page elsewhere can make a browser post to ``127.0.0.1:8765`` (no token needed there),
but it cannot read our pages, so it cannot know the secret. Every comparison takes the same time
whatever the guess (:func:`~trailcheck.serve.security.same_secret`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final

from trailcheck.serve.security import Role, Tokens, same_secret

__all__ = ["TOKEN_COOKIE", "Access", "sign_in_value"]

TOKEN_COOKIE: Final = "trailcheck_ui_token"
# What the sign-in cookie is an HMAC of; a new label would sign everyone out.
_SIGN_IN_LABEL: Final = b"trailcheck ui sign-in v1"


def sign_in_value(token: str) -> str:
    """The sign-in cookie's value for ``token``: HMAC-SHA256 of a fixed label, keyed by it."""
    return hmac.new(token.encode(), _SIGN_IN_LABEL, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Access:
    """The tokens (none configured: loopback, everyone may act) and this process's form
    secret."""

    tokens: Tokens
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    def role(self, authorization: str | None, cookie: str | None) -> Role | None:
        """The role of a request with this header and cookie, the higher when both hold a
        token; None when neither does."""
        if not self.tokens.required:
            return Role.WRITE
        roles = {self.tokens.role_of_bearer(authorization), self._cookie_role(cookie)}
        if Role.WRITE in roles:
            return Role.WRITE
        return Role.READ if Role.READ in roles else None

    @cached_property
    def _cookies(self) -> tuple[tuple[Role, str], ...]:
        """Each role's sign-in cookie value, computed once (an HMAC a request would repeat)."""
        return tuple((role, sign_in_value(token)) for role, token in self.tokens.configured())

    def _cookie_role(self, cookie: str | None) -> Role | None:
        if cookie is None:
            return None
        matched = [role for role, value in self._cookies if same_secret(cookie, value)]
        return matched[0] if matched else None

    def sign_in(self, offered: str) -> str | None:
        """The cookie value for ``offered`` (from the sign-in form); None when it is no
        configured token."""
        return None if self.tokens.role_of(offered) is None else sign_in_value(offered)

    def posted_by_ui(self, offered: str | None) -> bool:
        """Whether a form's ``csrf`` field is this process's secret."""
        return offered is not None and same_secret(offered, self.csrf)
