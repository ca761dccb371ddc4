"""An in-memory PendingSpanStore with the semantics the real Store documents, for the endpoint
tests that need no database."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from trailcheck.store import (
    PendingLogEvent,
    PendingOrigin,
    PendingPayload,
    PendingSpan,
    SpanConflict,
)
from trailcheck.trace import Trace


@dataclass
class MemoryStore:
    """Pending spans and log records, stored traces and quarantined ones in dicts and lists;
    ``fail_writes`` makes ``add_pending`` and ``add_pending_logs`` raise, as a database that is
    down would. ``calls`` counts each method's calls (what the store was asked, and how often)."""

    pending: dict[tuple[str, str], PendingSpan] = field(default_factory=dict)
    logs: list[PendingLogEvent] = field(default_factory=list)
    traces: dict[str, Trace] = field(default_factory=dict)
    quarantined: dict[str, str] = field(default_factory=dict)
    conflicts: list[SpanConflict] = field(default_factory=list)
    origins: dict[str, PendingOrigin] = field(default_factory=dict)
    fail_writes: bool = False
    add_calls: int = 0
    calls: Counter[str] = field(default_factory=Counter)

    def add_pending(
        self, spans: Sequence[PendingSpan], conflicts: Sequence[SpanConflict] = ()
    ) -> None:
        self.add_calls += 1
        self.calls["add_pending"] += 1
        if self.fail_writes:
            raise OSError("disk full")
        for span in spans:
            self.pending.setdefault((span.trace_id, span.span_id), span)
            if span.origin is not None:
                self.origins[span.origin.key] = span.origin
        kept = {(c.trace_id, c.span_id, c.digest) for c in self.conflicts}
        for conflict in conflicts:
            if (conflict.trace_id, conflict.span_id, conflict.digest) not in kept:
                self.conflicts.append(conflict)

    def add_pending_logs(self, events: Sequence[PendingLogEvent]) -> None:
        self.add_calls += 1
        self.calls["add_pending_logs"] += 1
        if self.fail_writes:
            raise OSError("disk full")
        held = {(e.trace_id, e.span_id, e.record_key) for e in self.logs}
        for event in events:
            if (event.trace_id, event.span_id, event.record_key) not in held:
                held.add((event.trace_id, event.span_id, event.record_key))
                self.logs.append(event)

    def stored_traces(self, trace_ids: Sequence[str]) -> dict[str, Trace]:
        self.calls["stored_traces"] += 1
        return {t: self.traces[t] for t in trace_ids if t in self.traces}

    def held_spans(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], PendingPayload]:
        self.calls["held_spans"] += 1
        return {key: _payload(self.pending[key]) for key in keys if key in self.pending}

    def ready_pending(
        self, now_ns: int, idle_timeout_ns: int, settle_ns: int = 0, limit: int | None = None
    ) -> list[str]:
        self.calls["ready_pending"] += 1
        ended: dict[str, bool] = {}
        first: dict[str, int] = {}
        newest: dict[str, int] = {}
        arrivals = [(s.trace_id, s.root_ended, s.received_ns) for s in self.pending.values()]
        arrivals += [(e.trace_id, False, e.received_ns) for e in self.logs]
        for trace_id, root_ended, received_ns in arrivals:
            ended[trace_id] = ended.get(trace_id, False) or root_ended
            newest[trace_id] = max(newest.get(trace_id, received_ns), received_ns)
            first[trace_id] = min(first.get(trace_id, received_ns), received_ns)
        settled = {t for t, last in newest.items() if ended[t] and last <= now_ns - settle_ns}
        idle = {t for t, last in newest.items() if last < now_ns - idle_timeout_ns}
        ready = sorted((settled | idle) - self.quarantined.keys())
        # In turns: each group of traces first received at one time gives one per turn.
        turns: Counter[int] = Counter()
        order = []
        for trace_id in ready:
            turns[first[trace_id]] += 1
            order.append((turns[first[trace_id]], first[trace_id], trace_id))
        found = [trace_id for _, _, trace_id in sorted(order)]
        return found if limit is None else found[:limit]

    def pending_payloads(self, trace_id: str) -> list[PendingPayload]:
        return self.pending_payloads_of([trace_id]).get(trace_id, [])

    def pending_payloads_of(self, trace_ids: Sequence[str]) -> dict[str, list[PendingPayload]]:
        self.calls["pending_payloads_of"] += 1
        found: dict[str, list[PendingPayload]] = {}
        for span in self.pending.values():
            if span.trace_id in trace_ids:
                found.setdefault(span.trace_id, []).append(_payload(span))
        return found

    def pending_log_payloads(self, trace_id: str) -> list[bytes]:
        return [e.payload for e in self.logs if e.trace_id == trace_id]

    def pending_log_payloads_of(self, trace_ids: Sequence[str]) -> dict[str, list[bytes]]:
        self.calls["pending_log_payloads_of"] += 1
        found: dict[str, list[bytes]] = {}
        for event in self.logs:
            if event.trace_id in trace_ids:
                found.setdefault(event.trace_id, []).append(event.payload)
        return found

    def drop_pending_logs(self, trace_id: str) -> int:
        if any(s.trace_id == trace_id for s in self.pending.values()):
            return 0
        kept = [e for e in self.logs if e.trace_id != trace_id]
        dropped = len(self.logs) - len(kept)
        self.logs = kept
        return dropped

    def complete_pending(self, trace_id: str, trace: Trace) -> None:
        self.calls["complete_pending"] += 1
        self._complete(trace_id, trace)

    def _complete(self, trace_id: str, trace: Trace) -> None:
        assert trace.trace_id == trace_id
        self.traces[trace_id] = trace
        self.pending = {key: s for key, s in self.pending.items() if s.trace_id != trace_id}
        self.logs = [e for e in self.logs if e.trace_id != trace_id]

    def complete_pending_traces(self, traces: Sequence[Trace]) -> None:
        self.calls["complete_pending_traces"] += 1
        for trace in traces:
            self._complete(trace.trace_id, trace)

    def quarantine_pending(self, trace_id: str, reason: str) -> None:
        self.quarantined.setdefault(trace_id, reason)

    def drop_unused_origins(self, now_ns: int) -> int:
        named = {s.origin.key for s in self.pending.values() if s.origin is not None}
        named |= {c.origin.key for c in self.conflicts if c.origin is not None}
        unused = self.origins.keys() - named
        for key in unused:
            del self.origins[key]
        return len(unused)

    def get_trace(self, trace_id: str) -> Trace | None:
        return self.traces.get(trace_id)


def _payload(span: PendingSpan) -> PendingPayload:
    return PendingPayload(span.payload, None if span.origin is None else span.origin.payload)
