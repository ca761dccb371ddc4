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

No client can shut the others out (a few stalled uploads of the largest size would otherwise
fill the bytes in flight until they time out): while a client has an upload in flight, its
uploads together take at most a quarter of the uploads (:attr:`UploadLimits.client_uploads`,
``--max-client-uploads``), and its bodies over :data:`SMALL_BODY_BYTES` at most half of the
bytes (:attr:`UploadLimits.client_bytes`, ``--max-client-bytes``); and while anything else is in
flight, a body over :data:`SMALL_BODY_BYTES` may not take the last eighth of the bytes
(:attr:`UploadLimits.headroom_bytes`), kept for the small exports most senders make: a client
whose large uploads stall still gets its small exports in. A client is
an address, whatever its port. The first upload of a client, and a body alone in flight, are
held to the caps of all uploads only, so the largest body is always admissible.

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
    "SMALL_BODY_BYTES",
    "Admission",
    "Upload",
    "UploadLimits",
    "overdue",
]

_MiB: Final = 1024 * 1024
_NS_PER_S: Final = 1_000_000_000
# How often the server looks for overdue uploads: the timeouts are this much late at most.
DEFAULT_WATCH_INTERVAL_S: Final = 1.0
# A body up to this size may use the headroom kept for small bodies (an OTLP export of a few
# traces is some kilobytes).
SMALL_BODY_BYTES: Final = 1 * _MiB


@dataclass(frozen=True)
class UploadLimits:
    """What the receiver admits at once, and how long a body may take (``serve`` options)."""

    max_uploads: int = 32
    max_inflight_bytes: int = 128 * _MiB
    body_timeout_s: float = 30.0
    read_timeout_s: float = 10.0
    min_rate: int = 16 * 1024  # bytes per second; 0 checks no rate
    # One client's share (None: a quarter of the uploads, half of the bytes), and the bytes kept
    # for small bodies (None: an eighth; 0 keeps none). See the module.
    max_client_uploads: int | None = None
    max_client_bytes: int | None = None
    small_body_headroom: int | None = None

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
        for name in ("max_client_uploads", "max_client_bytes"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        if self.small_body_headroom is not None and self.small_body_headroom < 0:
            raise ValueError(
                f"small_body_headroom must not be negative, got {self.small_body_headroom}"
            )

    @property
    def client_uploads(self) -> int:
        """The uploads one client may have in flight (default: a quarter of all, at least 1)."""
        if self.max_client_uploads is not None:
            return self.max_client_uploads
        return max(1, self.max_uploads // 4)

    @property
    def client_bytes(self) -> int:
        """The bytes one client's uploads may hold together, past its first (default: half)."""
        if self.max_client_bytes is not None:
            return self.max_client_bytes
        return max(1, self.max_inflight_bytes // 2)

    @property
    def headroom_bytes(self) -> int:
        """The bytes kept for small bodies while anything else is in flight (default: an
        eighth)."""
        if self.small_body_headroom is not None:
            return self.small_body_headroom
        return self.max_inflight_bytes // 8

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
    client: str
    declared: int | None
    started_ns: int
    cancel: Callable[[], None]
    counts_bytes: bool
    reserved: int
    received: int = 0
    progress_ns: int = 0
    receiving: bool = True
    cut_reason: str | None = field(default=None)


def client_of(peer: str) -> str:
    """The address of a peer, without its port: ``10.0.0.7`` of ``10.0.0.7:51234`` (HTTP) or
    ``ipv4:10.0.0.7:51234`` (gRPC), ``::1`` of ``::1:51234`` or ``ipv6:[::1]:51234``."""
    address = peer.removeprefix("ipv4:").removeprefix("ipv6:")
    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit():
        return address
    return host.removeprefix("[").removesuffix("]")


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
        self._client_uploads: dict[str, int] = {}
        self._client_held: dict[str, int] = {}

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
        flight, or this client's, are at their cap, or ``reserve`` does not fit beside what they
        hold (see the module). ``cancel`` cuts its body off; it may be called from any thread."""
        now = self._clock()
        client = client_of(peer)
        with self._lock:
            if len(self._uploads) >= self.limits.max_uploads:
                raise _busy(f"{len(self._uploads)} uploads are in flight, the most it takes")
            mine = self._client_uploads.get(client, 0)
            if mine >= self.limits.client_uploads:
                raise _busy(
                    f"{mine} uploads of {client} are in flight, the most one client may have"
                )
            upload = Upload(peer, client, declared, now, cancel, counts_bytes, 0, progress_ns=now)
            self._check_room(upload, reserve, others_of_client=mine)
            self._uploads.add(upload)
            self._client_uploads[client] = mine + 1
            self._take(upload, reserve)
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
                self._take(upload, -upload.reserved)
                left = self._client_uploads[upload.client] - 1
                if left:
                    self._client_uploads[upload.client] = left
                else:
                    del self._client_uploads[upload.client]
                    del self._client_held[upload.client]

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
        if more > 0:
            others = self._client_uploads.get(upload.client, 1) - 1
            self._check_room(upload, more, others_of_client=others)
        self._take(upload, more)

    def _check_room(self, upload: Upload, more: int, *, others_of_client: int) -> None:
        """RequestRefused (503) when ``upload`` may not hold ``more`` bytes besides what it
        holds: past the bytes of all uploads; when it is large (over :data:`SMALL_BODY_BYTES`),
        past its client's share while the client has other uploads in flight, or into the
        headroom of small bodies while it is not alone."""
        limits = self.limits
        if self._held + more > limits.max_inflight_bytes:
            raise _busy(self._no_room(more))
        large = upload.reserved + more > SMALL_BODY_BYTES
        if others_of_client and large:
            client_held = self._client_held.get(upload.client, 0)
            if client_held + more > limits.client_bytes:
                raise _busy(
                    f"{more} more bytes of {upload.client} do not fit beside the {client_held}"
                    f" its uploads hold (at most {limits.client_bytes}, half of all)"
                )
        alone = not self._uploads or self._uploads == {upload}
        if (
            large
            and not alone
            and self._held + more > limits.max_inflight_bytes - limits.headroom_bytes
        ):
            raise _busy(
                f"{more} more bytes of a body over {SMALL_BODY_BYTES} bytes do not fit beside the"
                f" {self._held} bytes in flight and the {limits.headroom_bytes} kept for small"
                " bodies"
            )

    def _take(self, upload: Upload, more: int) -> None:
        """Count ``more`` bytes (fewer, when negative) as held by ``upload``."""
        upload.reserved += more
        self._held += more
        self._client_held[upload.client] = self._client_held.get(upload.client, 0) + more

    def _no_room(self, wanted: int) -> str:
        return (
            f"{wanted} more bytes do not fit beside the {self._held} bytes the uploads in flight"
            f" hold (at most {self.limits.max_inflight_bytes})"
        )


def _busy(why: str) -> RequestRefused:
    return RequestRefused(SERVICE_UNAVAILABLE, f"the server is busy: {why}; retry later")
