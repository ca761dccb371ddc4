"""Trace and span ids for recorded runs: random by default, reproducible when seeded.

Ids follow W3C Trace Context, as OpenTelemetry does: a trace id is 32 lowercase hex characters, a
span id 16, and neither is all zeros (the spec reserves that value for "invalid").
"""

from __future__ import annotations

import random
import re
import secrets
import threading
from collections.abc import Callable
from typing import Protocol

from trailcheck.errors import UsageError

_TRACE_ID = re.compile(r"[0-9a-f]{32}")
_SPAN_ID = re.compile(r"[0-9a-f]{16}")


class IdFactory(Protocol):
    """Makes ids for one or more recordings. Called from any thread, so it must be thread-safe."""

    def trace_id(self) -> str: ...

    def span_id(self) -> str: ...


class RandomIds:
    """Ids from :mod:`secrets`, the default: unique across processes without coordination."""

    def trace_id(self) -> str:
        return _nonzero_hex(lambda: secrets.randbits(128), 32)

    def span_id(self) -> str:
        return _nonzero_hex(lambda: secrets.randbits(64), 16)


class SeededIds:
    """Reproducible ids: the same seed and the same order of requests give the same ids.

    Meant for tests and for reruns that must compare traces id for id. Requests from concurrent
    tasks are served in the order they arrive, so ids are reproducible when the scheduling is.
    """

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)
        self._lock = threading.Lock()

    def trace_id(self) -> str:
        return _nonzero_hex(lambda: self._draw(128), 32)

    def span_id(self) -> str:
        return _nonzero_hex(lambda: self._draw(64), 16)

    def _draw(self, bits: int) -> int:
        with self._lock:
            return self._random.getrandbits(bits)


def _nonzero_hex(draw: Callable[[], int], width: int) -> str:
    value = draw()
    while value == 0:  # the all-zero id is invalid; drawing again keeps the distribution uniform
        value = draw()
    return f"{value:0{width}x}"


def checked_trace_id(value: str) -> str:
    """``value`` when it is a valid trace id; a :class:`UsageError` naming it otherwise."""
    if not _TRACE_ID.fullmatch(value) or value == "0" * 32:
        raise UsageError(f"id factory made trace id {value!r}: need 32 lowercase hex, not all 0")
    return value


def checked_span_id(value: str) -> str:
    """``value`` when it is a valid span id; a :class:`UsageError` naming it otherwise."""
    if not _SPAN_ID.fullmatch(value) or value == "0" * 16:
        raise UsageError(f"id factory made span id {value!r}: need 16 lowercase hex, not all 0")
    return value
