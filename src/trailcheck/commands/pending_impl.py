"""What ``trailcheck pending`` does (its options: :mod:`trailcheck.commands.pending`): the
traces ``trailcheck serve`` holds, pending or quarantined, listed, shown, retried or dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console

from trailcheck.commands.output import print_json, stderr
from trailcheck.commands.pending import HeldTraceRequest, PendingListRequest
from trailcheck.commands.store_commands_impl import _iso, open_store
from trailcheck.extras import needs_extra
from trailcheck.store import PendingTrace

if TYPE_CHECKING:
    from trailcheck.serve import HeldTrace

# Lines a reader greps or copies (ids, reasons): never wrapped mid-line.
lines = Console(soft_wrap=True, highlight=False)


def _state(trace: PendingTrace) -> str:
    return "quarantined" if trace.quarantined else "pending"


def _iso_or_none(ns: int | None) -> str | None:
    return None if ns is None else _iso(ns)


def _trace_json(trace: PendingTrace) -> dict[str, object]:
    return {
        "trace_id": trace.trace_id,
        "state": _state(trace),
        "spans": trace.span_count,
        "log_records": trace.log_count,
        "root_ended": trace.root_ended,
        "first_received": _iso_or_none(trace.first_received_ns),
        "last_received": _iso_or_none(trace.last_received_ns),
        "quarantined": _iso_or_none(trace.quarantined_ns),
        "reason": trace.reason,
    }


def pending_list(request: PendingListRequest) -> None:
    """The body of :func:`trailcheck.commands.pending.pending_list`."""
    with open_store(request.db, must_exist=True) as store:
        traces = store.pending_traces()
    if request.as_json:
        print_json([_trace_json(trace) for trace in traces])
        return
    for trace in traces:
        lines.print(
            f"{trace.trace_id}  {_state(trace):<11}  {trace.span_count} span(s),"
            f" {trace.log_count} GenAI log record(s), last received"
            f" {_iso(trace.last_received_ns)}",
            style="red" if trace.quarantined else None,
            markup=False,
        )
        if trace.reason is not None:
            lines.print(f"    {trace.reason}", markup=False)
    quarantined = sum(trace.quarantined for trace in traces)
    stderr.print(f"{len(traces) - quarantined} pending, {quarantined} quarantined", markup=False)


def _show(held: HeldTrace) -> None:
    trace = held.trace
    lines.print(
        f"trace {trace.trace_id}: {_state(trace)}, {trace.span_count} span(s),"
        f" {trace.log_count} GenAI log record(s), received {_iso(trace.first_received_ns)}"
        f" to {_iso(trace.last_received_ns)}",
        markup=False,
    )
    if trace.quarantined:
        lines.print(f"quarantined {_iso(trace.quarantined_ns)}: {trace.reason}", markup=False)
    for span in held.spans:
        parent = f" under {span.parent_id}" if span.parent_id else " (root)"
        end = "running" if span.end_ns is None else f"end {span.end_ns}"
        lines.print(
            f"span {span.span_id}{parent}: {span.name!r}, start {span.start_ns}, {end}",
            markup=False,
        )
    for log in held.logs:
        lines.print(f"log record {log.event.name} on span {log.span_id}", markup=False)
    for problem in held.unreadable:
        lines.print(f"unreadable {problem}", style="red", markup=False)


def pending_show(request: HeldTraceRequest) -> None:
    """The body of :func:`trailcheck.commands.pending.pending_show`."""
    # trailcheck.serve brings the endpoints' packages (FastAPI, gRPC) with it.
    with needs_extra("serve", "trailcheck pending show"):
        from trailcheck.serve import held_trace

    with open_store(request.db, must_exist=True) as store:
        held = held_trace(store, request.trace_id)
    _show(held)


def pending_retry(request: HeldTraceRequest) -> None:
    """The body of :func:`trailcheck.commands.pending.pending_retry`."""
    with open_store(request.db, must_exist=True) as store:
        trace = store.retry_quarantined(request.trace_id)
    stderr.print(
        f"trace {trace.trace_id} is pending again ({trace.span_count} span(s),"
        f" {trace.log_count} GenAI log record(s)); the next sweep of trailcheck serve tries it",
        markup=False,
    )


def pending_drop(request: HeldTraceRequest) -> None:
    """The body of :func:`trailcheck.commands.pending.pending_drop`."""
    with open_store(request.db, must_exist=True) as store:
        dropped = store.drop_pending(request.trace_id)
    was = "quarantined" if dropped.reason is not None else "pending"
    why = f" (quarantined: {dropped.reason})" if dropped.reason is not None else ""
    stderr.print(
        f"dropped {was} trace {dropped.trace_id}: {dropped.span_count} span(s),"
        f" {dropped.log_count} GenAI log record(s){why}",
        markup=False,
    )
