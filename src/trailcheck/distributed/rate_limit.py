"""A rate limit over every Ray worker of a run: one :class:`~trailcheck.rate_limit.TokenBucket`
held by a Ray actor, which each worker's :class:`RayRateLimiter` asks for its tokens.

A process's own limiter would let each worker send ``rate`` requests a second, so 100 workers
would send 100 times the limit. Here a reservation is one call to the actor (about a
millisecond on one machine), the wait happens in the worker, and a waiter cancelled while
waiting gives its token back, as in one process. The actor asks Ray for no CPU, so it never
takes a trial's place, and it ends with the run's driver.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from trailcheck.distributed.ray_import import ray
from trailcheck.rate_limit import RateLimiter, TokenBucket

__all__ = ["RayRateLimiter"]


class _SharedBucket:
    """The actor: a token bucket, and how many tokens it granted."""

    def __init__(self, rate: float, burst: int) -> None:
        self._bucket = TokenBucket(rate, burst, clock=time.monotonic)
        self._granted = 0

    def reserve(self) -> float:
        self._granted += 1
        return self._bucket.reserve()

    def give_back(self) -> None:
        self._granted -= 1
        self._bucket.give_back()

    def granted(self) -> int:
        return self._granted


_Actor: Any = ray.remote(num_cpus=0)(_SharedBucket)


class RayRateLimiter(RateLimiter):
    """``rate`` acquisitions a second, up to ``burst`` at once, over every process holding a
    copy of this limiter (it travels to Ray workers by its actor's handle). Ray must be
    connected when it is made."""

    def __init__(self, rate: float, burst: int = 1, *, actor: Any = None) -> None:
        super().__init__(rate, burst, sleep=asyncio.sleep)
        if actor is None:
            actor = _Actor.remote(self.rate, burst)
            # Wait for its process to start (seconds on a busy machine) here, once, rather
            # than in the first trials' reservations, which their timeouts would count.
            ray.get(actor.granted.remote())
        self._actor = actor

    @classmethod
    def like(cls, limiter: RateLimiter) -> RayRateLimiter:
        """A cluster-wide limiter with ``limiter``'s rate and burst."""
        return cls(limiter.rate, limiter.burst)

    def granted(self) -> int:
        """The tokens granted in every process so far, less those given back."""
        count: int = ray.get(self._actor.granted.remote())
        return count

    async def _reserve(self) -> float:
        reserved = self._actor.reserve.remote()
        try:
            wait: float = await reserved
        except BaseException:
            # Cancelled while asking: the actor takes the token all the same (it serves one
            # caller's calls in order), so the give-back lands after it.
            self._give_back()
            raise
        return wait

    def _give_back(self) -> None:
        self._actor.give_back.remote()

    def __reduce__(self) -> tuple[Any, ...]:
        # The actor's handle travels, not this process's count and lock.
        return (_attached, (self.rate, self.burst, self._actor))


def _attached(rate: float, burst: int, actor: Any) -> RayRateLimiter:
    """A copy of a limiter in another process, asking the same actor."""
    return RayRateLimiter(rate, burst, actor=actor)
