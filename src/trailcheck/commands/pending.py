"""``trailcheck pending``: the traces ``trailcheck serve`` holds, pending (waiting for the trace
to be complete) or quarantined (completing them failed), and what an operator does with one.

``list`` shows them with their reasons, ``show ID`` one of them with its spans and GenAI log
records, ``retry ID`` sends a quarantined trace back to pending so the next sweep of a running
(or the next started) server tries it again, and ``drop ID`` deletes a held trace without
asking, printing what went. The logic is the store's (:mod:`trailcheck.store.quarantine`) and
the endpoint's (:mod:`trailcheck.serve.held`); an unknown id is a usage error (exit 2).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from trailcheck.commands.recorded import print_json
from trailcheck.commands.store_commands import DbOption, JsonOption, _iso, stderr
from trailcheck.serve import HeldTrace, held_trace
from trailcheck.store import PendingTrace, Store

pending_app = typer.Typer(
    help="Traces trailcheck serve holds: pending, or quarantined because completing them failed.",
    no_args_is_help=True,
)

# Lines a reader greps or copies (ids, reasons): never wrapped mid-line.
lines = Console(soft_wrap=True, highlight=False)

TraceIdArgument = Annotated[str, typer.Argument(help="The trace id (see trailcheck pending list).")]


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


@pending_app.command("list")
def pending_list(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List the held traces, by first arrival: pending ones, and quarantined ones with why."""
    with Store.open(db, must_exist=True) as store:
        traces = store.pending_traces()
    if as_json:
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


@pending_app.command("show")
def pending_show(trace_id: TraceIdArgument, db: DbOption = None) -> None:
    """Show a held trace: why it is quarantined, its spans and GenAI log records."""
    with Store.open(db, must_exist=True) as store:
        held = held_trace(store, trace_id)
    _show(held)


@pending_app.command("retry")
def pending_retry(trace_id: TraceIdArgument, db: DbOption = None) -> None:
    """Send a quarantined trace back to pending: the next sweep of trailcheck serve tries it
    again (and quarantines it again if it still fails)."""
    with Store.open(db, must_exist=True) as store:
        trace = store.retry_quarantined(trace_id)
    stderr.print(
        f"trace {trace.trace_id} is pending again ({trace.span_count} span(s),"
        f" {trace.log_count} GenAI log record(s)); the next sweep of trailcheck serve tries it",
        markup=False,
    )


@pending_app.command("drop")
def pending_drop(trace_id: TraceIdArgument, db: DbOption = None) -> None:
    """Delete a held trace, pending or quarantined, with its spans and GenAI log records; it
    asks nothing."""
    with Store.open(db, must_exist=True) as store:
        dropped = store.drop_pending(trace_id)
    was = "quarantined" if dropped.reason is not None else "pending"
    why = f" (quarantined: {dropped.reason})" if dropped.reason is not None else ""
    stderr.print(
        f"dropped {was} trace {dropped.trace_id}: {dropped.span_count} span(s),"
        f" {dropped.log_count} GenAI log record(s){why}",
        markup=False,
    )
