"""The token bucket and the retry waits, on a fake clock: no test sleeps for real."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, tzinfo
from email.utils import format_datetime
from typing import Self

import pytest

from trailcheck.errors import UsageError
from trailcheck.rate_limit import Backoff, RateLimiter, TokenBucket, retry_after_seconds


class FakeTime:
    """A clock that moves only when told, and a sleep that records the wait and moves it."""

    def __init__(self) -> None:
        self.now = 100.0
        self.waits: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(0)


def limiter(time: FakeTime, rate: float = 2.0, burst: int = 1) -> RateLimiter:
    return RateLimiter(rate, burst, clock=time.clock, sleep=time.sleep)


def test_the_bucket_says_each_reservations_wait_and_takes_back_an_unused_token() -> None:
    time = FakeTime()
    bucket = TokenBucket(4.0, 2, clock=time.clock)
    assert [bucket.reserve() for _ in range(4)] == [0.0, 0.0, 0.25, 0.5]
    bucket.give_back()  # the last taker was cancelled: the next waits what it would have
    assert bucket.reserve() == 0.5
    time.now += 10  # refilled, never past the burst
    assert [bucket.reserve() for _ in range(3)] == [0.0, 0.0, 0.25]


def test_a_burst_goes_at_once_then_acquisitions_wait_for_the_refill() -> None:
    time = FakeTime()
    bucket = limiter(time, rate=2.0, burst=3)

    async def five() -> None:
        for _ in range(5):
            await bucket.acquire()

    asyncio.run(five())
    # Three tokens in the bucket; then each waits for its own: 0.5 s, then 1 s (the clock did
    # not move, so the second waiter is behind the first).
    assert time.waits == [0.5, 1.0]
    assert bucket.acquisitions == 5


def test_time_passing_refills_up_to_the_burst_only() -> None:
    time = FakeTime()
    bucket = limiter(time, rate=1.0, burst=2)

    async def scenario() -> None:
        await bucket.acquire()
        await bucket.acquire()
        time.now += 60  # a long pause refills two tokens, not sixty
        for _ in range(3):
            await bucket.acquire()

    asyncio.run(scenario())
    assert time.waits == [1.0]
    assert bucket.acquisitions == 5


def test_concurrent_waiters_are_spaced_in_arrival_order() -> None:
    time = FakeTime()
    bucket = limiter(time, rate=4.0, burst=1)
    order: list[int] = []

    async def one(index: int) -> None:
        async with bucket:
            order.append(index)

    async def many() -> None:
        await asyncio.gather(*(one(index) for index in range(4)))

    asyncio.run(many())
    assert order == [0, 1, 2, 3]
    assert time.waits == [0.25, 0.5, 0.75]
    assert bucket.acquisitions == 4


def test_a_cancelled_waiter_gives_its_token_back() -> None:
    time = FakeTime()

    async def scenario() -> list[float]:
        gate = asyncio.Event()
        waits: list[float] = []

        async def sleep_until_released(seconds: float) -> None:
            waits.append(seconds)
            await gate.wait()

        bucket = RateLimiter(1.0, 1, clock=time.clock, sleep=sleep_until_released)
        await bucket.acquire()  # the only token
        waiter = asyncio.create_task(bucket.acquire())
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        # Had the cancelled reservation stayed, the next one would wait 2 s.
        next_waiter = asyncio.create_task(bucket.acquire())
        await asyncio.sleep(0)
        gate.set()
        await next_waiter
        assert bucket.acquisitions == 2
        return waits

    assert asyncio.run(scenario()) == [1.0, 1.0]


@pytest.mark.parametrize(("rate", "burst"), [(0, 1), (-1, 1), (1, 0)])
def test_a_limit_that_admits_nothing_is_refused(rate: float, burst: int) -> None:
    with pytest.raises(UsageError):
        RateLimiter(rate, burst)


def test_backoff_grows_exponentially_to_its_cap_less_its_jitter() -> None:
    backoff = Backoff(initial_s=0.5, factor=2.0, max_s=3.0, jitter=0.5)
    assert [backoff.delay(retry, 0.0) for retry in (1, 2, 3, 4, 5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert backoff.delay(2, 0.999) == pytest.approx(0.5, abs=0.001)


class FrozenDatetime(datetime):
    """``datetime`` whose ``now()`` is always the same instant: a Retry-After date's wait is
    then exact, however long the test takes."""

    @classmethod
    def now(cls, tz: tzinfo | None = None) -> Self:
        return cls(2026, 6, 19, 12, 0, 0, tzinfo=tz)


def test_retry_after_reads_seconds_milliseconds_and_dates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("trailcheck.rate_limit.datetime", FrozenDatetime)
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after_seconds({"retry-after": "-4"}) == 0.0
    assert retry_after_seconds({}) is None
    assert retry_after_seconds({"retry-after": "soon"}) is None
    in_a_minute = format_datetime(FrozenDatetime.now(UTC) + timedelta(seconds=60), usegmt=True)
    assert retry_after_seconds({"retry-after": in_a_minute}) == 60.0
