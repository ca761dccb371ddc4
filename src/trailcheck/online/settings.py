"""How an online worker works (:class:`WorkerSettings`: its id, lease, batch, concurrency,
attempts, backoff and the judges' :class:`JudgeBudget`), and what a pass of it did
(:class:`PassSummary`)."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass, field, fields

from trailcheck.errors import UsageError
from trailcheck.rate_limit import Backoff

__all__ = ["JudgeBudget", "PassSummary", "WorkerSettings", "default_worker_id"]


def default_worker_id() -> str:
    """``host:pid:random``: unique among the workers sharing a store, and readable."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@dataclass(frozen=True, slots=True)
class JudgeBudget:
    """At most ``calls`` judge calls and ``tokens`` tokens an hour (``None``: no limit),
    counted over every worker on the store."""

    calls: int | None = None
    tokens: int | None = None


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    """How a worker works: its id, its lease on a job, how many jobs it claims at once, how
    many judgings it runs at once, how often a judge is tried, and the judges' budget."""

    worker_id: str = field(default_factory=default_worker_id)
    lease_s: float = 300.0
    batch: int = 200
    concurrency: int = 8
    max_attempts: int = 3
    backoff: Backoff = field(default_factory=lambda: Backoff(initial_s=5.0, max_s=600.0))
    budget: JudgeBudget = field(default_factory=JudgeBudget)

    def __post_init__(self) -> None:
        if self.lease_s <= 0 or self.batch < 1 or self.concurrency < 1 or self.max_attempts < 1:
            raise UsageError(
                "an online worker needs a positive lease, batch, concurrency and attempts"
            )


@dataclass(slots=True)
class PassSummary:
    """What one pass did."""

    planned: int = 0
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    retried: int = 0
    gave_up: int = 0
    quarantined: int = 0
    deferred: int = 0
    lost_lease: int = 0
    alerts: int = 0

    @property
    def scored(self) -> int:
        return self.passed + self.failed

    @property
    def executed(self) -> int:
        counted = ("passed", "failed", "skipped", "retried", "gave_up", "quarantined")
        return sum(getattr(self, name) for name in counted)

    def add(self, other: PassSummary) -> None:
        for item in fields(self):
            setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))

    def as_dict(self) -> dict[str, int]:
        counts = {item.name: getattr(self, item.name) for item in fields(self)}
        return {**counts, "scored": self.scored}
