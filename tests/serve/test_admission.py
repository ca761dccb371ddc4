"""Admission of uploads, with a clock the test moves: the caps on uploads and on bytes in flight,
a chunked body reserving as it arrives, a release that counts once, and the cut-off of an
overdue body (no byte for the read timeout, under the minimum rate, not whole in time; a gRPC
call held to the whole-body timeout alone)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from trailcheck.serve.admission import Admission, Upload, UploadLimits, overdue
from trailcheck.serve.refusal import SERVICE_UNAVAILABLE, RequestRefused

SECOND_NS = 1_000_000_000
MiB = 1024 * 1024
LIMITS = UploadLimits(
    max_uploads=3,
    max_inflight_bytes=1000,
    body_timeout_s=30.0,
    read_timeout_s=5.0,
    min_rate=10,
)


@dataclass
class MonotonicClock:
    """Monotonic nanoseconds, moved by the test."""

    now_ns: int = 7 * SECOND_NS

    def __call__(self) -> int:
        return self.now_ns

    def advance(self, seconds: float) -> None:
        self.now_ns += round(seconds * SECOND_NS)


@dataclass
class Cancels:
    """The ``cancel`` callbacks handed to admit, and how often each was called."""

    calls: list[str] = field(default_factory=list)

    def of(self, name: str) -> Callable[[], None]:
        return lambda: self.calls.append(name)


@pytest.fixture
def clock() -> MonotonicClock:
    return MonotonicClock()


@pytest.fixture
def admission(clock: MonotonicClock) -> Admission:
    return Admission(LIMITS, clock=clock)


def _refused(call: Callable[..., object], *args: object, **kwargs: object) -> RequestRefused:
    with pytest.raises(RequestRefused) as raised:
        call(*args, **kwargs)
    assert raised.value.status == SERVICE_UNAVAILABLE
    return raised.value


_CLIENTS = itertools.count(1)


def _admit(
    admission: Admission,
    reserve: int,
    cancel: Callable[[], None] | None = None,
    *,
    declared: int | None = None,
    counts_bytes: bool = True,
    peer: str | None = None,
) -> Upload:
    """An upload from ``peer``, by default a client of its own (the caps of all uploads are
    tested apart from one client's share)."""
    return admission.admit(
        peer or f"10.0.0.{next(_CLIENTS)}:5000",
        reserve,
        cancel or (lambda: None),
        declared=declared,
        counts_bytes=counts_bytes,
    )


# --- the limits ----------------------------------------------------------------------------------


def test_the_default_limits_hold_128_mib_in_32_uploads() -> None:
    limits = UploadLimits()
    assert (limits.max_uploads, limits.max_inflight_bytes) == (32, 128 * 1024 * 1024)
    assert (limits.body_timeout_s, limits.read_timeout_s, limits.min_rate) == (30.0, 10.0, 16384)


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"max_uploads": 0}, "max_uploads"),
        ({"max_inflight_bytes": 0}, "max_inflight_bytes"),
        ({"body_timeout_s": 0.0}, "body_timeout_s"),
        ({"body_timeout_s": math.inf}, "body_timeout_s"),
        ({"body_timeout_s": math.nan}, "body_timeout_s"),
        ({"read_timeout_s": -1.0}, "read_timeout_s"),
        ({"min_rate": -1}, "min_rate"),
    ],
)
def test_limits_out_of_range_are_refused_by_name(changes: dict[str, float], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        UploadLimits(**changes)  # type: ignore[arg-type]


def test_a_body_limit_over_the_bytes_in_flight_is_refused() -> None:
    LIMITS.check_body_limit(1000)  # one body may take all the room
    with pytest.raises(ValueError, match=r"\(1001 bytes\) is over .*\(1000\)"):
        LIMITS.check_body_limit(1001)


# --- the caps ------------------------------------------------------------------------------------


def test_uploads_past_the_cap_are_refused_until_one_is_released(admission: Admission) -> None:
    uploads = [_admit(admission, 10) for _ in range(3)]
    refusal = _refused(_admit, admission, 10)
    assert "3 uploads are in flight" in refusal.message
    assert "retry later" in refusal.message
    assert (admission.uploads, admission.held_bytes) == (3, 30)  # the refused one took nothing

    admission.release(uploads[0])
    fourth = _admit(admission, 10)
    assert admission.uploads == 3
    assert fourth.reserved == 10


def test_a_declared_size_that_does_not_fit_beside_the_others_is_refused(
    admission: Admission,
) -> None:
    first = _admit(admission, 600, declared=600)
    refusal = _refused(_admit, admission, 401, declared=401)
    assert "401 more bytes do not fit beside the 600 bytes" in refusal.message
    assert "at most 1000" in refusal.message
    assert (admission.uploads, admission.held_bytes) == (1, 600)
    exactly = _admit(admission, 400, declared=400)  # what is left fits, to the byte
    assert admission.held_bytes == 1000
    admission.release(first)
    admission.release(exactly)
    assert (admission.uploads, admission.held_bytes) == (0, 0)


def test_a_declared_body_reserves_nothing_more_as_it_arrives(admission: Admission) -> None:
    upload = _admit(admission, 500, declared=500)
    for _ in range(5):
        admission.receive(upload, 100)
    assert (upload.received, upload.reserved, admission.held_bytes) == (500, 500, 500)
    assert admission.received_bytes() == 500


def test_a_chunked_body_reserves_its_bytes_as_they_arrive(admission: Admission) -> None:
    holder = _admit(admission, 700, declared=700)
    chunked = _admit(admission, 0)  # no Content-Length: nothing reserved yet
    assert admission.held_bytes == 700
    admission.receive(chunked, 200)
    admission.receive(chunked, 100)
    assert (chunked.received, chunked.reserved, admission.held_bytes) == (300, 300, 1000)

    refusal = _refused(admission.receive, chunked, 1)  # one byte past what is left
    assert "1 more bytes do not fit beside the 1000 bytes" in refusal.message
    assert admission.held_bytes == 1000  # nothing reserved for the refused chunk

    admission.release(holder)
    admission.release(chunked)
    assert (admission.uploads, admission.held_bytes) == (0, 0)


def test_reserve_grows_for_gunzipped_bytes_and_shrinks_to_a_grpc_message(
    admission: Admission,
) -> None:
    grpc_call = _admit(admission, 800, counts_bytes=False)  # the largest message it may carry
    admission.reserve(grpc_call, 50)  # the message came: 50 bytes
    assert (grpc_call.reserved, admission.held_bytes) == (50, 50)

    gzipped = _admit(admission, 100, declared=100)
    admission.reserve(gzipped, 100 + 850)  # the body and its gunzipped bytes
    assert admission.held_bytes == 1000
    refusal = _refused(admission.reserve, gzipped, 100 + 851)
    assert "1 more bytes do not fit" in refusal.message
    assert (gzipped.reserved, admission.held_bytes) == (950, 1000)


def test_release_frees_once_however_often_it_is_called(admission: Admission) -> None:
    first = _admit(admission, 300, declared=300)
    second = _admit(admission, 200, declared=200)
    admission.release(first)
    admission.release(first)
    admission.release(first)
    assert (admission.uploads, admission.held_bytes) == (1, 200)
    admission.release(second)
    assert (admission.uploads, admission.held_bytes) == (0, 0)


# --- no client shuts the others out ---------------------------------------------------------------

FAIR = UploadLimits(max_uploads=8, max_inflight_bytes=16 * MiB)  # defaults: 2 uploads, 8 MiB


def test_one_client_may_have_a_quarter_of_the_uploads_whatever_its_ports() -> None:
    admission = Admission(FAIR)
    _admit(admission, 10, peer="10.1.1.1:4000")
    _admit(admission, 10, peer="10.1.1.1:4001")
    refusal = _refused(_admit, admission, 10, peer="10.1.1.1:4002")
    assert "2 uploads of 10.1.1.1 are in flight, the most one client may have" in refusal.message
    grpc_same_client = "ipv4:10.1.1.1:4003"
    _refused(_admit, admission, 10, peer=grpc_same_client)
    other = _admit(admission, 10, peer="ipv6:[::1]:4000")  # another client is served
    assert (other.client, admission.uploads) == ("::1", 3)


def test_one_clients_large_uploads_hold_half_of_the_bytes_past_its_first() -> None:
    admission = Admission(FAIR)
    first = _admit(admission, 6 * MiB, peer="10.1.1.1:4000")  # a first upload: any size
    refusal = _refused(_admit, admission, 2 * MiB + 1, peer="10.1.1.1:4001")
    assert "do not fit beside the 6291456 its uploads hold (at most 8388608" in refusal.message
    small = _admit(admission, 1 * MiB, peer="10.1.1.1:4002")  # its small export still gets in
    _admit(admission, 512 * 1024, peer="10.1.1.2:4000")  # and another client's
    admission.release(first)
    admission.release(small)
    assert admission.held_bytes == 512 * 1024


def test_large_bodies_leave_an_eighth_of_the_bytes_to_small_ones() -> None:
    admission = Admission(UploadLimits(max_uploads=32, max_inflight_bytes=16 * MiB))
    large = [_admit(admission, 4 * MiB, declared=4 * MiB) for _ in range(3)]  # 12 of 16 MiB
    # 15 of 16 MiB would fit all uploads, but not beside the 2 MiB kept for small bodies.
    refusal = _refused(_admit, admission, 3 * MiB, declared=3 * MiB)
    assert "kept for small bodies" in refusal.message
    small = [_admit(admission, 1 * MiB, declared=1 * MiB) for _ in range(4)]  # up to 16 MiB
    assert admission.held_bytes == 16 * MiB
    for upload in [*large, *small]:
        admission.release(upload)
    alone = _admit(admission, 16 * MiB, declared=16 * MiB)  # alone, the largest body fits
    assert alone.reserved == 16 * MiB


def test_a_chunked_body_growing_large_is_held_to_the_headroom() -> None:
    admission = Admission(UploadLimits(max_uploads=32, max_inflight_bytes=16 * MiB))
    other = _admit(admission, 13 * MiB, declared=13 * MiB)
    chunked = _admit(admission, 0)
    admission.receive(chunked, 1 * MiB)  # small so far (14 of 16 MiB): the headroom is open
    refusal = _refused(admission.receive, chunked, 1)
    assert "kept for small bodies" in refusal.message
    admission.release(other)
    admission.receive(chunked, 1)  # alone now


# --- overdue bodies ------------------------------------------------------------------------------


def _upload(
    *, received: int = 0, idle_s: float = 0.0, counts_bytes: bool = True, now_ns: int | None = None
) -> Upload:
    """An upload that began at 0 and last received a byte ``idle_s`` before ``now_ns``
    (default :data:`_NOW`)."""
    return Upload(
        peer="p",
        client="p",
        declared=None,
        started_ns=0,
        cancel=lambda: None,
        counts_bytes=counts_bytes,
        reserved=0,
        received=received,
        progress_ns=(_NOW if now_ns is None else now_ns) - round(idle_s * SECOND_NS),
    )


_NOW = 20 * SECOND_NS  # 20 s after the uploads of _upload began


def test_a_body_on_pace_is_not_overdue() -> None:
    # 20 s in, 15 s past the read timeout: 10 bytes/s owes 150 bytes.
    assert overdue(_upload(received=150, idle_s=4.9), LIMITS, _NOW) is None


def test_a_body_without_a_byte_for_the_read_timeout_is_overdue() -> None:
    reason = overdue(_upload(received=10_000, idle_s=5.0), LIMITS, _NOW)
    assert reason == "no byte for 5 s (--body-read-timeout)"


def test_a_body_under_the_minimum_rate_is_overdue() -> None:
    reason = overdue(_upload(received=149, idle_s=0.0), LIMITS, _NOW)
    assert reason == "149 bytes in 20.0 s, under 10 bytes/s after the first 5 s (--body-min-rate)"


def test_the_rate_is_owed_only_after_the_first_read_timeout() -> None:
    early = 5 * SECOND_NS  # 5 s in: nothing owed yet, however slow
    assert overdue(_upload(received=0), LIMITS, early) is None
    assert overdue(_upload(received=9), LIMITS, early + SECOND_NS) is not None  # owes 10


def test_no_minimum_rate_checks_no_rate() -> None:
    any_pace = UploadLimits(max_inflight_bytes=1000, read_timeout_s=5.0, min_rate=0)
    assert overdue(_upload(received=1, idle_s=1.0), any_pace, _NOW) is None


def test_a_body_not_whole_by_the_body_timeout_is_overdue_at_any_pace() -> None:
    whole = 30 * SECOND_NS
    reason = overdue(_upload(received=1_000_000, now_ns=whole), LIMITS, whole)
    assert reason == "not whole after 30 s (--body-timeout)"
    assert overdue(_upload(received=1_000_000, now_ns=whole - 1), LIMITS, whole - 1) is None


def test_a_body_that_stopped_is_told_so_whenever_the_watch_looks() -> None:
    # Past the whole-body timeout too: the watch runs once a second, so whether it first looks
    # before or after that timeout must not change what the sender is told.
    late = 40 * SECOND_NS
    stopped = _upload(received=100, idle_s=39.0, now_ns=late)
    assert overdue(stopped, LIMITS, late) == "no byte for 5 s (--body-read-timeout)"


def test_a_grpc_call_is_held_to_the_body_timeout_alone() -> None:
    silent = _upload(received=0, idle_s=20.0, counts_bytes=False)
    assert overdue(silent, LIMITS, _NOW) is None  # no byte for 20 s, no rate: not counted
    reason = overdue(silent, LIMITS, 30 * SECOND_NS)
    assert reason == "not whole after 30 s (--body-timeout)"


def test_the_watch_cuts_off_each_overdue_upload_once(
    admission: Admission, clock: MonotonicClock
) -> None:
    cancels = Cancels()
    idle = _admit(admission, 0, cancels.of("idle"))
    steady = _admit(admission, 0, cancels.of("steady"))
    grpc_call = _admit(admission, 100, cancels.of("grpc"), counts_bytes=False)
    assert admission.cut_off_overdue() == []

    clock.advance(4.0)
    admission.receive(steady, 50)
    clock.advance(1.0)  # idle: 5 s without a byte; steady: 1 s
    assert admission.cut_off_overdue() == [idle]
    assert idle.cut_reason == "no byte for 5 s (--body-read-timeout)"
    assert cancels.calls == ["idle"]

    clock.advance(1.0)  # 6 s in: steady owes 10 bytes, has 50; idle was cut already
    assert admission.cut_off_overdue() == []
    assert cancels.calls == ["idle"]  # a cut upload is cancelled once, until it is released
    assert admission.uploads == 3  # cutting off frees nothing: the answer releases it

    clock.advance(24.0)  # 30 s in
    admission.receive(steady, 500)
    assert set(admission.cut_off_overdue()) == {steady, grpc_call}
    assert sorted(cancels.calls) == ["grpc", "idle", "steady"]
    assert grpc_call.cut_reason == "not whole after 30 s (--body-timeout)"
    for upload in (idle, steady, grpc_call):
        admission.release(upload)
    assert (admission.uploads, admission.held_bytes) == (0, 0)


def test_a_body_received_whole_is_no_longer_watched(
    admission: Admission, clock: MonotonicClock
) -> None:
    cancels = Cancels()
    upload = _admit(admission, 10, cancels.of("whole"), declared=10)
    admission.receive(upload, 10)
    admission.received_whole(upload)
    clock.advance(3600.0)  # decoding and storing may take as long as they take
    assert admission.cut_off_overdue() == []
    assert cancels.calls == []
    assert upload.cut_reason is None
