"""The invariants of a trace's spans taken together (unique ids, one trace, parents present, no
cycle), which :class:`~trailcheck.trace.Trace` checks whenever one is made: linear, and one pass
in the common case."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from trailcheck.trace.span import Span


def check_trace(trace_id: str, spans: Sequence[Span]) -> None:
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


def _check_every_span(trace_id: str, spans: Sequence[Span]) -> None:
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
