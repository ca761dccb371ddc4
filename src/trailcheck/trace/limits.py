"""The integers a trace can hold and still be stored: signed 64-bit.

A trace's typed integers (span and event times, token counts, tool call sequence numbers, the
trace's token totals) are columns of the store or could be, and both of its backends hold
signed 64-bit integers (SQLite's ``INTEGER``, PostgreSQL's ``BIGINT``); so do OTLP's ``int64``
attributes and the JSON tools that read a trace back. OTLP times are unsigned 64-bit, so a
legal one can be beyond them (after the year 2262).

:func:`first_unstorable` finds the first such integer of a trace, with its span and field. The
importers reject that trace with its file and line (:mod:`trailcheck.importing.assemble`,
:mod:`trailcheck.importing.trailcheck_jsonl`), and the store refuses it before writing
(:mod:`trailcheck.store.limits`, which also checks every integer column).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from trailcheck.trace.kinds import INT64_MAX, INT64_MIN
from trailcheck.trace.trace import Trace

__all__ = ["INT64_MAX", "INT64_MIN", "Unstorable", "first_unstorable"]


@dataclass(frozen=True)
class Unstorable:
    """An integer of a trace beyond signed 64-bit: where it is (``span_id`` None for the
    trace's own fields) and what it is."""

    span_id: str | None
    field: str
    value: int

    @property
    def message(self) -> str:
        total = " (the trace's total over its model calls)" if self.span_id is None else ""
        return (
            f"{self.value}{total} is beyond what trailcheck can store: a signed 64-bit integer,"
            f" from {INT64_MIN} to {INT64_MAX}"
        )


def _integers(trace: Trace) -> Iterator[tuple[str | None, str, int | None]]:
    """(span id, field, value) of each typed integer of ``trace``."""
    for index, span in enumerate(trace.spans):
        path = f"spans[{index}]"
        yield span.span_id, f"{path}.start_ns", span.start_ns
        yield span.span_id, f"{path}.end_ns", span.end_ns
        for number, event in enumerate(span.events):
            yield span.span_id, f"{path}.events[{number}].time_ns", event.time_ns
        if span.tool is not None:
            yield span.span_id, f"{path}.tool.sequence", span.tool.sequence
        usage = span.llm.usage if span.llm is not None else None
        if usage is not None:
            yield span.span_id, f"{path}.llm.usage.input_tokens", usage.input_tokens
            yield span.span_id, f"{path}.llm.usage.output_tokens", usage.output_tokens
    if trace.usage is not None:
        yield None, "usage.input_tokens", trace.usage.input_tokens
        yield None, "usage.output_tokens", trace.usage.output_tokens


def first_unstorable(trace: Trace) -> Unstorable | None:
    """The first typed integer of ``trace`` beyond signed 64-bit, in span order; None when
    every one is within."""
    for span_id, field, value in _integers(trace):
        if value is not None and not INT64_MIN <= value <= INT64_MAX:
            return Unstorable(span_id, field, value)
    return None
