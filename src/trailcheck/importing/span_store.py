"""Where the spans of an import wait until every span-based file is read.

Spans are assembled trace by trace, and whether a trace is whole is not known until the last
span-based file of the import is read to its end: OTLP writes no span count and no order, so the
last span of the first trace may be the last line of the last file. So every span waits, with
its trace id, until then; the traces are then taken one at a time, in the order of their first
span, each with its spans (and GenAI log events) in input order.

An input of up to :data:`SPILL_OVER_BYTES` (the span-based files' sizes added up) waits in
memory, as every input once did; a larger one on disk (:mod:`~trailcheck.importing.span_spill`),
so the memory of an import follows its largest record and trace, not its files (holding them
all made a 2 GB export need some 8 GB). Both give the same traces: only where the spans wait
differs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, Protocol

from trailcheck.importing.records import LogEvent, RawSpan
from trailcheck.importing.span_spill import SpanSpill

__all__ = ["SPILL_OVER_BYTES", "SpanStore", "SpansInMemory", "open_span_store"]

# Held in memory, an input takes some 2 to 5 times its size (decoded spans, the objects of a
# record being decoded); 32 MiB stays well under 500 MB, and below it nothing is written to disk.
SPILL_OVER_BYTES: Final = 32 << 20


class SpanStore(Protocol):
    """The spans and log events of an input: added as they are read; once :meth:`finish` is
    called, read back by trace. Traces come in the order of their first span; each trace's
    spans (and events) in input order. A span names its file (``source``)."""

    def add_span(self, span: RawSpan) -> None: ...

    def add_log(self, log: LogEvent) -> None: ...

    def finish(self) -> None:
        """Every span is in."""
        ...

    def close(self) -> None:
        """Let go of what is held (a temporary file)."""
        ...

    def trace_count(self) -> int:
        """How many traces the spans belong to."""
        ...

    def holds_trace(self, trace_id: str) -> bool:
        """Whether a span of the trace was added."""
        ...

    def joined_logs(self) -> tuple[int, int]:
        """How many log events name a span that was added, and how many name one that was not."""
        ...

    def trace_parts(self) -> Iterator[tuple[str, list[tuple[str, str]]]]:
        """Each trace with the file and span id of each of its spans."""
        ...

    def parts_of(self, trace_id: str) -> list[tuple[str, str]]:
        """:meth:`trace_parts` of one trace."""
        ...

    def traces(self) -> Iterator[tuple[str, list[RawSpan], list[LogEvent]]]:
        """Each trace with its spans and its log events."""
        ...

    def trace(self, trace_id: str) -> tuple[list[RawSpan], list[LogEvent]]:
        """The spans and log events of one trace."""
        ...


def open_span_store(input_bytes: int) -> SpanStore:
    """Where an input of ``input_bytes`` waits: in memory, or on disk past
    :data:`SPILL_OVER_BYTES`."""
    return SpanSpill() if input_bytes > SPILL_OVER_BYTES else SpansInMemory()


class SpansInMemory:
    """A :class:`SpanStore` that holds the spans: for an input small enough to."""

    def __init__(self) -> None:
        self._spans: dict[str, list[RawSpan]] = {}
        self._logs: dict[str, list[LogEvent]] = {}

    def add_span(self, span: RawSpan) -> None:
        self._spans.setdefault(span.trace_id, []).append(span)

    def add_log(self, log: LogEvent) -> None:
        self._logs.setdefault(log.trace_id, []).append(log)

    def finish(self) -> None:
        pass

    def close(self) -> None:
        self._spans.clear()
        self._logs.clear()

    def trace_count(self) -> int:
        return len(self._spans)

    def holds_trace(self, trace_id: str) -> bool:
        return trace_id in self._spans

    def joined_logs(self) -> tuple[int, int]:
        joined = unjoined = 0
        for trace_id, logs in self._logs.items():
            span_ids = {span.span_id for span in self._spans.get(trace_id, ())}
            for log in logs:
                if log.span_id in span_ids:
                    joined += 1
                else:
                    unjoined += 1
        return joined, unjoined

    def trace_parts(self) -> Iterator[tuple[str, list[tuple[str, str]]]]:
        for trace_id in self._spans:
            yield trace_id, self.parts_of(trace_id)

    def parts_of(self, trace_id: str) -> list[tuple[str, str]]:
        return [(span.source or "", span.span_id) for span in self._spans.get(trace_id, ())]

    def traces(self) -> Iterator[tuple[str, list[RawSpan], list[LogEvent]]]:
        for trace_id, spans in self._spans.items():
            yield trace_id, spans, self._logs.get(trace_id, [])

    def trace(self, trace_id: str) -> tuple[list[RawSpan], list[LogEvent]]:
        return self._spans.get(trace_id, []), self._logs.get(trace_id, [])
