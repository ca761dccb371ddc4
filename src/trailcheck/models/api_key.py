"""Where a model client's API key comes from: the environment variable the user named, read in
the process that calls the model (so a copy of a model sent to a Ray worker reads the worker's),
and only a server on this machine may be called without one."""

from __future__ import annotations

import ipaddress
import os
from urllib.parse import urlsplit

from trailcheck.errors import UsageError

__all__ = ["DEFAULT_BASE_URL", "LOOPBACK_PLACEHOLDER_KEY", "api_key"]

LOOPBACK_PLACEHOLDER_KEY = "trailcheck-no-key"
DEFAULT_BASE_URL = "https://api.openai.com/v1"


def api_key(env: str, base_url: str | None) -> str:
    """``$env``; for a loopback ``base_url`` without it, a placeholder; else a UsageError."""
    key = os.environ.get(env)
    if key:
        return key
    if base_url is not None and _is_loopback(base_url):
        return LOOPBACK_PLACEHOLDER_KEY
    raise UsageError(
        f"no API key: set ${env} for {base_url or DEFAULT_BASE_URL}"
        " (only a loopback base_url works without one)"
    )


def _is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
