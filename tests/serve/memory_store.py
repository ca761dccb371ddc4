"""An in-memory PendingSpanStore with the semantics the real Store documents, for the endpoint
tests that need no database."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from trailcheck.store import PendingSpan
from trailcheck.trace import Trace


@dataclass
class MemoryStore:
    """Pending spans, stored traces and rejections in dicts; ``fail_writes`` makes
    ``add_pending`` raise, as a database that is down would."""

    pending: dict[tuple[str, str], PendingSpan] = field(default_factory=dict)
    traces: dict[str, Trace] = field(default_factory=dict)
    rejections: dict[str, str] = field(default_factory=dict)
    fail_writes: bool = False
    add_calls: int = 0

    def add_pending(self, spans: Sequence[PendingSpan]) -> None:
        self.add_calls += 1
        if self.fail_writes:
            raise OSError("disk full")
        for span in spans:
            self.pending.setdefault((span.trace_id, span.span_id), span)

    def ready_pending(self, now_ns: int, idle_timeout_ns: int) -> list[str]:
        by_trace: dict[str, list[PendingSpan]] = {}
        for span in self.pending.values():
            by_trace.setdefault(span.trace_id, []).append(span)
        return [
            trace_id
            for trace_id, spans in by_trace.items()
            if any(s.root_ended for s in spans)
            or max(s.received_ns for s in spans) < now_ns - idle_timeout_ns
        ]

    def pending_payloads(self, trace_id: str) -> list[bytes]:
        spans = [s for s in self.pending.values() if s.trace_id == trace_id]
        return [s.payload for s in sorted(spans, key=lambda s: (s.received_ns, s.span_id))]

    def complete_pending(self, trace_id: str, trace: Trace | None, rejection: str | None) -> None:
        assert (trace is None) != (rejection is None)
        if trace is not None:
            self.traces[trace_id] = trace
        else:
            assert rejection is not None
            self.rejections[trace_id] = rejection
        self.pending = {key: s for key, s in self.pending.items() if s.trace_id != trace_id}

    def get_trace(self, trace_id: str) -> Trace | None:
        return self.traces.get(trace_id)
