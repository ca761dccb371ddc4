"""A connection to Ray for the length of one command: a local Ray started for it, or an
existing cluster joined (``address="auto"`` or ``"ray://head:10001"``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from trailcheck.distributed.ray_import import ray
from trailcheck.errors import UsageError

__all__ = ["cluster_workers", "ray_session"]


@contextmanager
def ray_session(address: str | None = None, *, num_cpus: int | None = None) -> Iterator[bool]:
    """Ray connected within the block: to ``address``, or to a local Ray of ``num_cpus`` CPUs
    (default: every core) when it is ``None``. A Ray this process already joined is used as it
    is and left connected. Yields whether it is a local Ray, whose size is fixed (no address,
    and none in ``$RAY_ADDRESS``, which ``ray.init`` would join)."""
    local = address is None and not os.environ.get("RAY_ADDRESS")
    if ray.is_initialized():
        yield local
        return
    if address is not None and num_cpus is not None:
        raise UsageError(f"num_cpus sizes a local Ray; the cluster at {address!r} has its own")
    try:
        ray.init(
            address=address,
            num_cpus=num_cpus,
            include_dashboard=False,
            configure_logging=False,
            log_to_driver=False,
        )
    except ConnectionError as refused:
        raise UsageError(f"no Ray cluster at {address!r}: {refused}") from None
    try:
        yield local
    finally:
        ray.shutdown()


def cluster_workers(num_cpus: float = 1.0) -> int:
    """How many tasks of ``num_cpus`` CPUs the connected Ray runs at once (at least one)."""
    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return max(1, int(resources.get("CPU", 1.0) // num_cpus))
