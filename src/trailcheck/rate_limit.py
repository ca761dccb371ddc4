"""Pacing the calls to a rate-limited service: a shared token bucket, and the waits between
retries.

Model endpoints limit requests per second; a run that starts fifty trials at once must not send
fifty requests in the same instant. One :class:`RateLimiter` is shared by the model clients (and,
later, the judges and guards) that call the same endpoint::

    limiter = RateLimiter(rate=5, burst=10)   # 5 requests a second on average, 10 at once
    async with limiter:                       # or: await limiter.acquire()
        ...                                   # one request

The bucket holds at most ``burst`` tokens and refills at ``rate`` tokens a second; each
acquisition takes one, waiting for it when the bucket is empty. Waiters are served in the order
they arrived: each one reserves its token when it asks (the bucket may go below zero) and sleeps
until the refill covers it, so no lock is held across an ``await`` and the limiter is not bound
to one event loop. A waiter cancelled while sleeping gives its reservation back.

The clock and the sleep are parameters so tests drive time by hand instead of sleeping.

A call the service refused (HTTP 429, a 5xx) is retried after a :class:`Backoff` wait, or after
the wait the service asked for (:func:`retry_after_seconds`).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from types import TracebackType

from trailcheck.errors import UsageError

__all__ = ["Backoff", "RateLimiter", "TokenBucket", "retry_after_seconds"]


class TokenBucket:
    """The bookkeeping of a rate limit, without waiting: ``burst`` tokens at most, refilled at
    ``rate`` a second. :meth:`reserve` takes a token now, going into debt when there is none,
    and says how long the taker must wait for the debt to be repaid; :meth:`give_back` returns a
    token its taker did not use. Thread-safe, and never blocks: a :class:`RateLimiter` waits on
    it in one process, an actor holds it for a cluster (``trailcheck.distributed``)."""

    def __init__(
        self, rate: float, burst: int = 1, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if not rate > 0:
            raise UsageError(f"a rate limit's rate must be above 0 per second, not {rate!r}")
        if burst < 1:
            raise UsageError(f"a rate limit's burst must be at least 1, not {burst!r}")
        self.rate = float(rate)
        self.burst = burst
        self._clock = clock
        # Short and synchronous: safe from several threads (each with its own event loop).
        self._lock = threading.Lock()
        self._tokens = float(burst)
        self._updated = clock()

    def reserve(self) -> float:
        """Take a token now (possibly going into debt); the seconds until the debt is repaid."""
        with self._lock:
            self._refill()
            self._tokens -= 1.0
            return 0.0 if self._tokens >= 0 else -self._tokens / self.rate

    def give_back(self) -> None:
        """Return a reserved token that was not used (its taker was cancelled while waiting)."""
        with self._lock:
            self._refill()
            self._tokens = min(float(self.burst), self._tokens + 1.0)

    def _refill(self) -> None:
        now = self._clock()
        elapsed = max(0.0, now - self._updated)
        self._updated = now
        self._tokens = min(float(self.burst), self._tokens + elapsed * self.rate)


class RateLimiter:
    """``rate`` acquisitions a second on average, up to ``burst`` at once (see the module)."""

    def __init__(
        self,
        rate: float,
        burst: int = 1,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self._bucket = TokenBucket(rate, burst, clock=clock)
        self.rate = self._bucket.rate
        self.burst = burst
        self._sleep = sleep
        self._acquisitions = 0
        self._counting = threading.Lock()

    @property
    def acquisitions(self) -> int:
        """How many acquisitions have completed: callers and tests check the limiter was used."""
        return self._acquisitions

    async def acquire(self) -> None:
        """Take one token, waiting (with the injected sleep) until the bucket has one for us."""
        wait = await self._reserve()
        if wait > 0:
            try:
                await self._sleep(wait)
            except BaseException:  # cancelled while waiting: the token goes back, then re-raise
                self._give_back()
                raise
        with self._counting:
            self._acquisitions += 1

    async def __aenter__(self) -> RateLimiter:
        await self.acquire()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Nothing to release: a token is spent when a request starts, not when it ends."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rate={self.rate:g}, burst={self.burst})"

    async def _reserve(self) -> float:
        """A token from the bucket; the seconds to wait for it. A limiter whose bucket lives
        elsewhere (a Ray actor) asks it here."""
        return self._bucket.reserve()

    def _give_back(self) -> None:
        self._bucket.give_back()


@dataclass(frozen=True, slots=True)
class Backoff:
    """The wait before retry ``n`` (1, 2, ...): ``initial_s * factor**(n-1)`` capped at
    ``max_s``, less a random part of up to ``jitter`` of it (so clients that failed together do
    not retry together). A server's ``Retry-After`` is honoured up to ``max_retry_after_s``."""

    initial_s: float = 0.5
    factor: float = 2.0
    max_s: float = 20.0
    jitter: float = 0.5
    max_retry_after_s: float = 60.0

    def delay(self, retry: int, fraction: float) -> float:
        """The wait before retry ``retry``, for a random ``fraction`` in [0, 1)."""
        base = min(self.max_s, self.initial_s * self.factor ** (retry - 1))
        return base * (1.0 - self.jitter * fraction)


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The wait a server asks for: ``retry-after-ms``, or ``Retry-After`` in seconds or as a
    date; None when it asks for none (or says something unreadable)."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    seconds = headers.get("retry-after")
    if seconds is None:
        return None
    try:
        return max(0.0, float(seconds))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(seconds)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())
