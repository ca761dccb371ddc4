"""Retention inside the receiver: ``trailcheck serve --retention 30d`` prunes the store on a
schedule, in a thread beside the receiver, stopped with it.

A prune runs when the server starts and then every ``every_s`` (an hour): the store's own
(:meth:`~trailcheck.store.Store.prune`, a batch per transaction, so the receiver's writes wait
at most a batch), with the holds the store knows of: the cases of the datasets recorded in it,
the clusters a case was promoted from, its runs' trials, notes and human labels, the online
worker's leased jobs. It reads no file: a dataset or run report kept only as a file holds
nothing here (``trailcheck store prune --keep-dataset``/``--keep-report`` does, by hand).

A prune that fails (the database gone away, say) is logged, and tried again at the next turn:
retention is housekeeping, and never takes the receiver down. Stopping the server stops a prune
between two batches; what it deleted is logged in the store either way. Times come from
``clock``, so a test runs passes at the times it chooses without waiting for them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Final

from trailcheck.store import PruneSummary, Retention, Store

__all__ = ["DEFAULT_RETENTION_EVERY_S", "RetentionSchedule"]

DEFAULT_RETENTION_EVERY_S: Final = 3600.0

logger = logging.getLogger(__name__)


def _ignore(_summary: PruneSummary) -> None:
    return None


class RetentionSchedule:
    """Prunes ``store`` by ``retention`` every ``every_s`` until stopped; ``report`` hears of
    each prune that ran (the server prints the ones that deleted something)."""

    def __init__(
        self,
        store: Store,
        retention: Retention,
        *,
        every_s: float = DEFAULT_RETENTION_EVERY_S,
        clock: Callable[[], int] = time.time_ns,
        report: Callable[[PruneSummary], None] = _ignore,
    ) -> None:
        self.store = store
        self.retention = retention
        self.every_s = every_s
        self._clock = clock
        self._report = report

    def prune_once(self, stop: threading.Event | None = None) -> PruneSummary:
        """One prune, as of the clock's now; it stops between batches once ``stop`` is set."""
        return self.store.prune(
            self.retention, now_ns=self._clock(), stop=None if stop is None else stop.is_set
        )

    def run(self, stop: threading.Event) -> None:
        """Prune now and every ``every_s`` after, until ``stop`` is set (see the module)."""
        while not stop.is_set():
            try:
                summary = self.prune_once(stop)
            # Any failure (the database, a stored case that no longer reads) is logged with its
            # stack and tried again next turn: the schedule outlives one bad prune.
            except Exception:
                logger.exception("retention: the prune failed; trying again in %g s", self.every_s)
            else:
                self._report(summary)
            stop.wait(self.every_s)
