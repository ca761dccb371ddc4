"""An in-memory PendingSpanStore with the semantics the real Store documents, for the endpoint
tests that need no database."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from trailcheck.store import PendingLogEvent, PendingSpan
from trailcheck.trace import Trace


@dataclass
class MemoryStore:
    """Pending spans and log records, stored traces and quarantined ones in dicts and lists;
    ``fail_writes`` makes ``add_pending`` and ``add_pending_logs`` raise, as a database that is
    down would."""

    pending: dict[tuple[str, str], PendingSpan] = field(default_factory=dict)
    logs: list[PendingLogEvent] = field(default_factory=list)
    traces: dict[str, Trace] = field(default_factory=dict)
    quarantined: dict[str, str] = field(default_factory=dict)
    fail_writes: bool = False
    add_calls: int = 0

    def add_pending(self, spans: Sequence[PendingSpan]) -> None:
        self.add_calls += 1
        if self.fail_writes:
            raise OSError("disk full")
        for span in spans:
            self.pending.setdefault((span.trace_id, span.span_id), span)

    def add_pending_logs(self, events: Sequence[PendingLogEvent]) -> None:
        self.add_calls += 1
        if self.fail_writes:
            raise OSError("disk full")
        held = {(e.trace_id, e.span_id, e.record_key) for e in self.logs}
        for event in events:
            if (event.trace_id, event.span_id, event.record_key) not in held:
                held.add((event.trace_id, event.span_id, event.record_key))
                self.logs.append(event)

    def ready_pending(self, now_ns: int, idle_timeout_ns: int, settle_ns: int = 0) -> list[str]:
        ended: dict[str, bool] = {}
        newest: dict[str, int] = {}
        arrivals = [(s.trace_id, s.root_ended, s.received_ns) for s in self.pending.values()]
        arrivals += [(e.trace_id, False, e.received_ns) for e in self.logs]
        for trace_id, root_ended, received_ns in arrivals:
            ended[trace_id] = ended.get(trace_id, False) or root_ended
            newest[trace_id] = max(newest.get(trace_id, received_ns), received_ns)
        settled = {t for t, last in newest.items() if ended[t] and last <= now_ns - settle_ns}
        idle = {t for t, last in newest.items() if last < now_ns - idle_timeout_ns}
        return [t for t in newest if (t in settled or t in idle) and t not in self.quarantined]

    def pending_payloads(self, trace_id: str) -> list[bytes]:
        return [s.payload for s in self.pending.values() if s.trace_id == trace_id]

    def pending_log_payloads(self, trace_id: str) -> list[bytes]:
        return [e.payload for e in self.logs if e.trace_id == trace_id]

    def drop_pending_logs(self, trace_id: str) -> int:
        if any(s.trace_id == trace_id for s in self.pending.values()):
            return 0
        kept = [e for e in self.logs if e.trace_id != trace_id]
        dropped = len(self.logs) - len(kept)
        self.logs = kept
        return dropped

    def complete_pending(self, trace_id: str, trace: Trace) -> None:
        assert trace.trace_id == trace_id
        self.traces[trace_id] = trace
        self.pending = {key: s for key, s in self.pending.items() if s.trace_id != trace_id}
        self.logs = [e for e in self.logs if e.trace_id != trace_id]

    def quarantine_pending(self, trace_id: str, reason: str) -> None:
        self.quarantined.setdefault(trace_id, reason)

    def get_trace(self, trace_id: str) -> Trace | None:
        return self.traces.get(trace_id)
