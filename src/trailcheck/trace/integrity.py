"""The invariants of a span and of a trace, checked by one function each whichever holder is
built: the pydantic models' validators and the lean structs' ``__post_init__`` both call these,
so both accept and reject the same traces with the same messages."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trailcheck.trace.views import SpanView


def check_span(span: SpanView) -> None:
    """A span ends no earlier than it starts; a tool span, and only a tool span, has ``tool``;
    only an llm span has ``llm``. ``ValueError`` naming the span otherwise."""
    if span.end_ns is not None and span.end_ns < span.start_ns:
        raise ValueError(f"span {span.span_id!r}: end_ns {span.end_ns} < start_ns {span.start_ns}")
    if (span.kind == "tool") != (span.tool is not None):
        raise ValueError(
            f"span {span.span_id!r}: a tool span needs 'tool' (its name, arguments, result)"
            " and only a tool span may have it"
        )
    if span.llm is not None and span.kind != "llm":
        raise ValueError(f"span {span.span_id!r}: only an llm span may have 'llm'")


def check_trace(trace_id: str, spans: Sequence[SpanView]) -> None:
    """Span ids are unique, every span belongs to trace ``trace_id``, every parent id names a
    span of it and no span is its own ancestor. ``ValueError`` naming the first problem."""
    # One pass settles the common case: spans of this trace, each listed once and after its
    # parent (as most sources write them), can have no orphan and no cycle.
    listed: set[str] = set()
    for span in spans:
        parent = span.parent_id
        if (
            span.trace_id != trace_id
            or span.span_id in listed
            or (parent is not None and parent not in listed)
        ):
            break
        listed.add(span.span_id)
    else:
        return
    _check_every_span(trace_id, spans)


def _check_every_span(trace_id: str, spans: Sequence[SpanView]) -> None:
    parent_of = {span.span_id: span.parent_id for span in spans}
    if len(parent_of) != len(spans):
        counts = Counter(span.span_id for span in spans)
        duplicates = sorted(span_id for span_id, n in counts.items() if n > 1)
        raise ValueError(f"duplicate span ids: {', '.join(duplicates)}")
    for span in spans:
        if span.trace_id != trace_id:
            raise ValueError(
                f"span {span.span_id!r} belongs to trace {span.trace_id!r}, not {trace_id!r}"
            )
        if span.parent_id is not None and span.parent_id not in parent_of:
            raise ValueError(
                f"span {span.span_id!r} is an orphan: its parent {span.parent_id!r} is absent"
            )
    _check_no_parent_cycle(parent_of)


def _check_no_parent_cycle(parent_of: dict[str, str | None]) -> None:
    """Every span reaches a root by following parents (all parents present). Linear: each span
    is walked once; a span marked False is on the chain being walked, True reaches a root."""
    reaches_root: dict[str, bool] = {}
    for span_id in parent_of:
        chain: list[str] = []
        current: str | None = span_id
        while current is not None and current not in reaches_root:
            reaches_root[current] = False
            chain.append(current)
            current = parent_of[current]
        if current is not None and not reaches_root[current]:
            cycle = [*chain[chain.index(current) :], current]
            raise ValueError(
                f"span {current!r} is its own ancestor: parent cycle {' -> '.join(cycle)}"
            )
        for member in chain:
            reaches_root[member] = True
