"""Claims on trace ids: what keeps a request and the sweep apart within one server, trace by trace.

A request's batch of spans checks the store (is the trace stored? is the span held already?)
and then writes; the sweep reads a trace's pending rows and then stores it. Either pair must not
interleave with the other on the same trace, or a span could be held for a trace just stored (an
orphan, later quarantined) or two versions of one span could each find the other missing. Each
claims the trace ids it works on (:meth:`TraceClaims.claimed`) for as long as it does: a claim
waits only for claims holding one of the same ids, so a request of 100,000 traces holds up
neither a request for another trace nor the sweep of one, and no claim is held while a body is
read or decoded.

A claim takes all its ids at once or waits, never holding some while waiting for others, so
claims cannot deadlock. Servers sharing one store do not share claims (docs/serve.md,
Durability: run one server per store).
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager

__all__ = ["TraceClaims"]


class TraceClaims:
    """The trace ids claimed now, in one server."""

    def __init__(self) -> None:
        self._claimed: set[str] = set()
        self._released = threading.Condition()

    @contextmanager
    def claimed(self, trace_ids: Collection[str]) -> Iterator[None]:
        """Hold ``trace_ids`` for the ``with`` block, once no other claim holds any of them."""
        wanted = frozenset(trace_ids)
        with self._released:
            self._released.wait_for(lambda: self._claimed.isdisjoint(wanted))
            self._claimed |= wanted
        try:
            yield
        finally:
            with self._released:
                self._claimed -= wanted
                self._released.notify_all()

    def holds(self, trace_id: str) -> bool:
        """Whether a claim holds ``trace_id`` now."""
        with self._released:
            return trace_id in self._claimed
