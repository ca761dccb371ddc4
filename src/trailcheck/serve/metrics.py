"""What a server received and made of it, counted since it started: ``GET /metrics``.

The counters are the Prometheus text format (version 0.0.4), so any scraper reads them, and a
person with ``curl`` too:

- ``trailcheck_serve_spans_total{outcome=...}``: spans received, by what became of them:
  ``held`` (pending until their trace is complete), ``retried`` (the same span again, accepted
  and adding nothing), ``late`` (their trace was stored without them: refused) and
  ``conflicting`` (another version of a span already received: refused, kept for inspection);
- ``trailcheck_serve_log_records_total{outcome=...}``: GenAI log records, ``held`` or ``late``;
- ``trailcheck_serve_traces_total{outcome=...}``: traces the sweep ``stored`` or
  ``quarantined``.

Refused spans are in the response's ``partial_success`` too; these say how often it happens.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Final

__all__ = ["METRICS_MEDIA_TYPE", "ServeCounts"]

METRICS_MEDIA_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"

# (metric, its help, its outcomes in the order shown)
_METRICS: Final = (
    (
        "trailcheck_serve_spans_total",
        "Spans received, by what became of them.",
        ("held", "retried", "late", "conflicting"),
    ),
    (
        "trailcheck_serve_log_records_total",
        "GenAI log records received, by what became of them.",
        ("held", "late"),
    ),
    (
        "trailcheck_serve_traces_total",
        "Traces the sweep completed, by outcome.",
        ("stored", "quarantined"),
    ),
)


@dataclass
class ServeCounts:
    """The counters of one server, shared by its HTTP and gRPC receivers and its sweep."""

    _counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, metric: str, outcome: str, count: int) -> None:
        """Count ``count`` more of ``metric`` (``spans``, ``log_records``, ``traces``) with
        ``outcome``."""
        if count:
            with self._lock:
                self._counts[metric, outcome] += count

    def get(self, metric: str, outcome: str) -> int:
        with self._lock:
            return self._counts[metric, outcome]

    def exposition(self) -> str:
        """Every counter in the Prometheus text format, zeros included."""
        with self._lock:
            counts = dict(self._counts)
        lines: list[str] = []
        for name, help_text, outcomes in _METRICS:
            metric = name.removeprefix("trailcheck_serve_").removesuffix("_total")
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} counter"]
            lines += [
                f'{name}{{outcome="{outcome}"}} {counts.get((metric, outcome), 0)}'
                for outcome in outcomes
            ]
        return "\n".join(lines) + "\n"
