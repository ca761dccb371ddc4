"""Admission of uploads: how many request bodies the receiver takes at once, how many bytes they
may hold together, and how long a body may take to arrive, whatever the clients do.

One :class:`Admission` serves the HTTP endpoints and the gRPC receiver together. An upload is
admitted before its body is read, or refused with 503 (gRPC ``UNAVAILABLE``) and
``Retry-After``, which every OTLP exporter retries, instead of being buffered:

- at most :attr:`UploadLimits.max_uploads` are in flight, from admission until their answer;
- together they reserve at most :attr:`UploadLimits.max_inflight_bytes`: an HTTP upload reserves
  its declared ``Content-Length`` when it is admitted; a body without one (chunked) reserves its
  bytes as they arrive and is refused once they pass what is left; a gRPC call reserves the
  largest message it may carry, since gRPC tells its size only once it has all of it, and then
  the size received. The gunzipped bytes are reserved beside the body as they are made.

While its body arrives an upload is watched (:meth:`Admission.cut_off_overdue`, every second in
the server) and cut off when it is overdue (:func:`overdue`): no byte for ``read_timeout_s``;
after that long, less than ``min_rate`` bytes per second on average since it began (less the
first ``read_timeout_s``); or not whole ``body_timeout_s`` after it began. gRPC does not tell the
bytes of a message before it is whole, so a gRPC call is held to ``body_timeout_s`` alone.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from trailcheck.serve.refusal import SERVICE_UNAVAILABLE, RequestRefused

__all__ = [
    "DEFAULT_WATCH_INTERVAL_S",
    "Admission",
    "Upload",
    "UploadLimits",
    "overdue",
]

_MiB: Final = 1024 * 1024
_NS_PER_S: Final = 1_000_000_000
# How often the server looks for overdue uploads: the timeouts are this much late at most.
DEFAULT_WATCH_INTERVAL_S: Final = 1.0


@dataclass(frozen=True)
class UploadLimits:
    """What the receiver admits at once, and how long a body may take (``serve`` options)."""

    max_uploads: int = 32
    max_inflight_bytes: int = 128 * _MiB
    body_timeout_s: float = 30.0
    read_timeout_s: float = 10.0
    min_rate: int = 16 * 1024  # bytes per second; 0 checks no rate

    def __post_init__(self) -> None:
        if self.max_uploads < 1:
            raise ValueError(f"max_uploads must be at least 1, got {self.max_uploads}")
        if self.max_inflight_bytes < 1:
            raise ValueError(
                f"max_inflight_bytes must be at least 1, got {self.max_inflight_bytes}"
            )
        for name in ("body_timeout_s", "read_timeout_s"):
            seconds = getattr(self, name)
            if not seconds > 0 or math.isinf(seconds):
                raise ValueError(f"{name} must be a positive number of seconds, got {seconds}")
        if self.min_rate < 0:
            raise ValueError(f"min_rate must not be negative, got {self.min_rate}")

    def check_body_limit(self, max_body_bytes: int) -> None:
        """ValueError when one body of ``max_body_bytes`` could never be admitted."""
        if max_body_bytes > self.max_inflight_bytes:
            raise ValueError(
                f"the largest body ({max_body_bytes} bytes) is over the bytes all uploads may"
                f" hold together ({self.max_inflight_bytes}): such a body would never be taken"
            )


@dataclass(eq=False)
class Upload:
    """One request body in flight: who sends it, what it reserved, how far it has come."""

    peer: str
    declared: int | None
    started_ns: int
    cancel: Callable[[], None]
    counts_bytes: bool
    reserved: int
    received: int = 0
    progress_ns: int = 0
    receiving: bool = True
    cut_reason: str | None = field(default=None)


def overdue(upload: Upload, limits: UploadLimits, now_ns: int) -> str | None:
    """Why ``upload`` is overdue at ``now_ns``, or None while it is not (see the module). Of
    several reasons, the most telling is given, whenever the watch looks: a body that stopped is
    "no byte", then one that crawls is "under the rate", then one that is merely long is "not
    whole"."""
    elapsed_s = (now_ns - upload.started_ns) / _NS_PER_S
    if upload.counts_bytes:
        idle_s = (now_ns - upload.progress_ns) / _NS_PER_S
        if idle_s >= limits.read_timeout_s:
            return f"no byte for {limits.read_timeout_s:g} s (--body-read-timeout)"
        owed_s = elapsed_s - limits.read_timeout_s
        if limits.min_rate and owed_s > 0 and upload.received < limits.min_rate * owed_s:
            return (
                f"{upload.received} bytes in {elapsed_s:.1f} s, under {limits.min_rate} bytes/s"
                f" after the first {limits.read_timeout_s:g} s (--body-min-rate)"
            )
    if elapsed_s >= limits.body_timeout_s:
        return f"not whole after {limits.body_timeout_s:g} s (--body-timeout)"
    return None


class Admission:
    """The uploads in flight, shared by the HTTP and gRPC receivers (thread-safe)."""

    def __init__(
        self,
        limits: UploadLimits | None = None,
        *,
        clock: Callable[[], int] = time.monotonic_ns,
    ) -> None:
        self.limits = limits or UploadLimits()
        self._clock = clock
        self._lock = threading.Lock()
        self._uploads: set[Upload] = set()
        self._held = 0

    @property
    def uploads(self) -> int:
        """How many uploads are in flight."""
        with self._lock:
            return len(self._uploads)

    @property
    def held_bytes(self) -> int:
        """The bytes the uploads in flight reserve together."""
        with self._lock:
            return self._held

    def received_bytes(self) -> int:
        """The body bytes received by the uploads in flight (for a test or a status line)."""
        with self._lock:
            return sum(upload.received for upload in self._uploads)

    def admit(
        self,
        peer: str,
        reserve: int,
        cancel: Callable[[], None],
        *,
        declared: int | None = None,
        counts_bytes: bool = True,
    ) -> Upload:
        """A new upload reserving ``reserve`` bytes, or RequestRefused (503) when the uploads in
        flight are at their cap, or ``reserve`` does not fit beside what they hold. ``cancel``
        cuts its body off; it may be called from any thread."""
        now = self._clock()
        with self._lock:
            if len(self._uploads) >= self.limits.max_uploads:
                raise _busy(f"{len(self._uploads)} uploads are in flight, the most it takes")
            if self._held + reserve > self.limits.max_inflight_bytes:
                raise _busy(self._no_room(reserve))
            upload = Upload(peer, declared, now, cancel, counts_bytes, reserve, progress_ns=now)
            self._uploads.add(upload)
            self._held += reserve
            return upload

    def receive(self, upload: Upload, size: int) -> None:
        """Count ``size`` more body bytes of ``upload``, reserving those past its reservation;
        RequestRefused (503) when they do not fit."""
        now = self._clock()
        with self._lock:
            upload.received += size
            upload.progress_ns = now
            self._reserve_locked(upload, upload.received)

    def reserve(self, upload: Upload, total: int) -> None:
        """Let ``upload`` hold ``total`` bytes (a gRPC message once its size is known: fewer
        than it reserved; gunzipped bytes beside the body: more); RequestRefused (503) when
        more do not fit."""
        with self._lock:
            self._reserve_locked(upload, total, shrink=True)

    def received_whole(self, upload: Upload) -> None:
        """The body of ``upload`` is in: it is no longer watched for its pace."""
        with self._lock:
            upload.receiving = False

    def release(self, upload: Upload) -> None:
        """``upload`` was answered: its slot and bytes are free (once, however often called)."""
        with self._lock:
            if upload in self._uploads:
                self._uploads.discard(upload)
                self._held -= upload.reserved

    def cut_off_overdue(self) -> list[Upload]:
        """Cut off every upload whose body is overdue (:func:`overdue`); those cut off."""
        now = self._clock()
        with self._lock:
            cut = []
            for upload in self._uploads:
                reason = overdue(upload, self.limits, now) if upload.receiving else None
                if reason is not None and upload.cut_reason is None:
                    upload.cut_reason = reason
                    cut.append(upload)
        for upload in cut:
            upload.cancel()
        return cut

    def _reserve_locked(self, upload: Upload, total: int, *, shrink: bool = False) -> None:
        more = total - upload.reserved
        if more <= 0 and not shrink:
            return
        if more > 0 and self._held + more > self.limits.max_inflight_bytes:
            raise _busy(self._no_room(more))
        upload.reserved += more
        self._held += more

    def _no_room(self, wanted: int) -> str:
        return (
            f"{wanted} more bytes do not fit beside the {self._held} bytes the uploads in flight"
            f" hold (at most {self.limits.max_inflight_bytes})"
        )


def _busy(why: str) -> RequestRefused:
    return RequestRefused(SERVICE_UNAVAILABLE, f"the server is busy: {why}; retry later")
