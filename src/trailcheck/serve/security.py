"""Who may send spans: a bearer token, and where the server may listen without one.

When a token is configured every request must carry ``Authorization: Bearer <token>``; the
comparison takes the same time whatever the guess (:func:`hmac.compare_digest`), so the token
cannot be found a byte at a time. Without a token the server listens only on loopback
(``127.0.0.0/8``, ``::1``, ``localhost``), where only this machine can reach it; any other
address is refused at startup, before a socket is opened.
"""

from __future__ import annotations

import hmac
import ipaddress
from typing import Final

from trailcheck.errors import UsageError
from trailcheck.serve.refusal import UNAUTHORIZED, RequestRefused

__all__ = ["TOKEN_ENV", "check_bearer", "check_bind", "is_loopback"]

TOKEN_ENV: Final = "TRAILCHECK_SERVE_TOKEN"
_SCHEME: Final = "bearer"


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses; False for any other name or address."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """UsageError when ``host`` is not loopback and no token is set, or the token is empty."""
    if token is not None and not token:
        raise UsageError(f"the serve token is empty; set --token or {TOKEN_ENV} to a secret")
    if token is None and not is_loopback(host):
        raise UsageError(
            f"refusing to listen on {host!r} without a token: anyone who can reach it could"
            f" write traces; set --token or {TOKEN_ENV}, or listen on 127.0.0.1"
        )


def check_bearer(authorization: str | None, token: str | None) -> None:
    """RequestRefused (401) unless ``authorization`` is ``Bearer <token>``; nothing to check
    when no token is configured."""
    if token is None:
        return
    scheme, _, offered = (authorization or "").strip().partition(" ")
    matches = hmac.compare_digest(offered.strip().encode(), token.encode())
    if scheme.lower() != _SCHEME or not matches:
        raise RequestRefused(UNAUTHORIZED, "missing or wrong bearer token")
