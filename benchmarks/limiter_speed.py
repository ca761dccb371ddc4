"""The cost of a token from the run's rate limiter: one process's ``RateLimiter`` against the
``RayRateLimiter`` that every Ray worker of a run shares (one actor call per token).

Takes N tokens from a limiter whose rate never makes anyone wait, first in this process, then in
one Ray task (a worker asking the actor, as a trial does), and prints the median cost per token
of each round and the ratio::

    uv run python benchmarks/limiter_speed.py --tokens 2000 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # a loopback-only local Ray

from scale_speed import loadavg
from trailcheck.distributed import RayRateLimiter, ray_session
from trailcheck.distributed.ray_import import ray
from trailcheck.rate_limit import RateLimiter

UNLIMITED = 1e9


def take(limiter: RateLimiter, tokens: int) -> float:
    """Seconds for ``tokens`` acquisitions, in this process."""

    async def taking() -> None:
        for _ in range(tokens):
            await limiter.acquire()

    began = time.perf_counter()
    asyncio.run(taking())
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"load average before: {loadavg()}")
    local = [take(RateLimiter(UNLIMITED, 1), args.tokens) for _ in range(args.rounds)]
    with ray_session(num_cpus=1):
        shared = RayRateLimiter(UNLIMITED, 1)
        in_worker = ray.remote(take)
        ray.get(in_worker.remote(shared, 10))  # the worker started, the actor placed
        cluster = [ray.get(in_worker.remote(shared, args.tokens)) for _ in range(args.rounds)]
        assert shared.granted() == 10 + args.tokens * args.rounds
    local_us = statistics.median(local) / args.tokens * 1e6
    cluster_us = statistics.median(cluster) / args.tokens * 1e6
    print(f"{args.tokens} tokens, median of {args.rounds} rounds")
    print(f"RateLimiter (one process)       {local_us:9.1f} us/token  1.00x")
    print(
        f"RayRateLimiter (from a worker)  {cluster_us:9.1f} us/token  {cluster_us / local_us:.0f}x"
    )
    print(f"load average after: {loadavg()}")


if __name__ == "__main__":
    main()
