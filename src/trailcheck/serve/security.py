"""Who may send spans or read what was stored: bearer tokens, each with a role, and where a server
may listen without one.

Two tokens, each optional, shared by ``trailcheck serve`` and ``trailcheck ui``:

- the **read-write** token (``--token``, ``$TRAILCHECK_SERVE_TOKEN``): sends spans and log
  records to the receiver, reads its metrics, and browses and acts in the UI (notes, labels,
  promotion, review decisions);
- the **read-only** token (``--read-token``, ``$TRAILCHECK_READ_TOKEN``): reads the
  receiver's metrics and browses every page of the UI, and may change nothing.

When either is configured every request must carry one, as ``Authorization: Bearer <token>``.
The offered token is compared with *every* configured token, each time, by their SHA-256
digests with :func:`hmac.compare_digest`: the time taken says nothing of a byte, the length, or
which token matched. Without any token the server listens only on loopback (``127.0.0.0/8``,
``::1``, ``localhost``), where only this machine can reach it, and every request may do
everything; any other address is refused at startup, before a socket is opened. Over HTTP, the
receiver and the web UI then also answer only requests whose ``Host`` names loopback
(:func:`loopback_host_header`: a page elsewhere rebinding its name to 127.0.0.1 is refused; a
browser cannot speak gRPC).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from trailcheck.errors import UsageError
from trailcheck.serve.refusal import FORBIDDEN, UNAUTHORIZED, RequestRefused

__all__ = [
    "READ_TOKEN_ENV",
    "TOKEN_ENV",
    "Role",
    "Tokens",
    "check_bind",
    "is_loopback",
    "loopback_host_header",
    "receiver_tokens",
    "same_secret",
]

TOKEN_ENV: Final = "TRAILCHECK_SERVE_TOKEN"
READ_TOKEN_ENV: Final = "TRAILCHECK_READ_TOKEN"
_SCHEME: Final = "bearer"


class Role(StrEnum):
    """What a token may do: ``read`` (look) or ``write`` (look, send and change)."""

    READ = "read"
    WRITE = "write"

    def covers(self, needed: Role) -> bool:
        """Whether this role may do what ``needed`` allows."""
        return self is Role.WRITE or needed is Role.READ


def same_secret(offered: str, expected: str) -> bool:
    """Whether ``offered`` is ``expected``, compared by SHA-256 digests in constant time: equal
    lengths, so neither a byte nor the secret's length shows in the time taken."""
    return hmac.compare_digest(
        hashlib.sha256(offered.encode()).digest(), hashlib.sha256(expected.encode()).digest()
    )


@dataclass(frozen=True)
class Tokens:
    """The tokens a server takes: ``write`` (read-write) and ``read`` (read-only), None where
    not configured. UsageError for an empty token, or the same token given for both roles (a
    request could not say which it meant)."""

    write: str | None = None
    read: str | None = None

    def __post_init__(self) -> None:
        for token, where in (
            (self.write, f"--token or {TOKEN_ENV}"),
            (self.read, f"--read-token or {READ_TOKEN_ENV}"),
        ):
            if token is not None and not token.strip():
                raise UsageError(f"the serve token is empty; set {where} to a secret")
        if self.write is not None and self.read is not None and same_secret(self.read, self.write):
            raise UsageError(
                "the read-only token is the read-write token: give viewers a token of their own"
            )

    @property
    def required(self) -> bool:
        """Whether every request must carry a token (one is configured)."""
        return self.write is not None or self.read is not None

    def configured(self) -> tuple[tuple[Role, str], ...]:
        """Each configured token with its role, the read-write one first."""
        pairs = ((Role.WRITE, self.write), (Role.READ, self.read))
        return tuple((role, token) for role, token in pairs if token is not None)

    def role_of(self, offered: str) -> Role | None:
        """The role of ``offered``; None when it is no configured token. Every configured token
        is compared, whichever matched (:func:`same_secret`)."""
        matched = [role for role, token in self.configured() if same_secret(offered, token)]
        return matched[0] if matched else None

    def role_of_bearer(self, authorization: str | None) -> Role | None:
        """The role of an ``Authorization: Bearer <token>`` header; None when it is missing,
        of another scheme, or no configured token."""
        scheme, _, offered = (authorization or "").strip().partition(" ")
        role = self.role_of(offered.strip())
        return role if scheme.lower() == _SCHEME else None

    def refuses_host(self, host: str | None) -> bool:
        """Whether an HTTP request whose ``Host`` is ``host`` is refused before anything else:
        without a token, one that does not name loopback (:func:`loopback_host_header`: a page
        rebinding its name to 127.0.0.1 would otherwise be answered as the same origin)."""
        return not self.required and not loopback_host_header(host)

    def admit(self, authorization: str | None, host: str | None, needed: Role) -> None:
        """:meth:`require` for an HTTP request, whose ``Host`` is ``host``: a 403 when
        :meth:`refuses_host` (a rebound page could otherwise send spans or read metrics)."""
        if self.refuses_host(host):
            raise RequestRefused(
                FORBIDDEN, "without a token this server answers only requests to localhost"
            )
        self.require(authorization, needed)

    def require(self, authorization: str | None, needed: Role) -> None:
        """RequestRefused unless ``authorization`` carries a token whose role covers ``needed``:
        401 for a missing or wrong token, 403 for a read-only token where writing is needed.
        Nothing to check when no token is configured (loopback)."""
        if not self.required:
            return
        role = self.role_of_bearer(authorization)
        if role is None:
            raise RequestRefused(UNAUTHORIZED, "missing or wrong bearer token")
        if not role.covers(needed):
            raise RequestRefused(
                FORBIDDEN, "this token is read-only; this request needs the read-write token"
            )


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses; False for any other name or address."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def loopback_host_header(host: str | None) -> bool:
    """Whether a request's ``Host`` header names this machine's loopback (``localhost``,
    ``127.0.0.1``, ``[::1]``, a port or not); True when there is none (HTTP/1.0).

    Without a token a server trusts that only this machine reaches it; but a page elsewhere can
    point its own name at 127.0.0.1 (DNS rebinding) and then read what this server answers as
    the same origin. Its requests carry its name in ``Host``, so a tokenless server answers only
    requests that name loopback."""
    if host is None:
        return True
    name = host.strip()
    if name.startswith("["):
        name = name[1 : name.find("]")] if "]" in name else name
    elif name.count(":") == 1:
        name = name.partition(":")[0]
    return bool(name) and is_loopback(name)


def check_bind(host: str, token: str | None, *, read_token: str | None = None) -> None:
    """UsageError when ``host`` is not loopback and no token is set, or a token is empty, or
    the two tokens are the same (:class:`Tokens`)."""
    if not Tokens(token, read_token).required and not is_loopback(host):
        raise UsageError(
            f"refusing to listen on {host!r} without a token: anyone who can reach it could"
            f" write traces; set --token or {TOKEN_ENV}, or listen on 127.0.0.1"
        )


def receiver_tokens(token: str | None, read_token: str | None) -> Tokens:
    """The receiver's tokens; UsageError for a read-only token alone, with which nothing could
    send spans (the UI takes one alone: a UI only to look at)."""
    if read_token is not None and token is None:
        raise UsageError(
            "a read-only token without a read-write one: nothing could send spans; set --token"
            " too, or drop --read-token"
        )
    return Tokens(token, read_token)
