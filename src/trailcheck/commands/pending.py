"""``trailcheck pending``: the traces ``trailcheck serve`` holds, pending (waiting for the trace
to be complete) or quarantined (completing them failed), and what an operator does with one.

``list`` shows them with their reasons, ``show ID`` one of them with its spans and GenAI log
records, ``retry ID`` sends a quarantined trace back to pending so the next sweep of a running
(or the next started) server tries it again, and ``drop ID`` deletes a held trace without
asking, printing what went. The logic is the store's (:mod:`trailcheck.store.quarantine`) and
the endpoint's (:mod:`trailcheck.serve.held`); an unknown id is a usage error (exit 2).

The options; what the commands do is in :mod:`trailcheck.commands.pending_impl`, imported when
one runs.
"""

from typing import Annotated

import typer

from trailcheck.commands.options import DbOption, JsonOption

__all__ = ["pending_app"]

pending_app = typer.Typer(
    help="Traces trailcheck serve holds: pending, or quarantined because completing them failed.",
    no_args_is_help=True,
)

TraceIdArgument = Annotated[str, typer.Argument(help="The trace id (see trailcheck pending list).")]


@pending_app.command("list")
def pending_list(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List the held traces, by first arrival: pending ones, and quarantined ones with why."""
    from trailcheck.commands.pending_impl import pending_list as body

    body(db=db, as_json=as_json)


@pending_app.command("show")
def pending_show(trace_id: TraceIdArgument, db: DbOption = None) -> None:
    """Show a held trace: why it is quarantined, its spans and GenAI log records."""
    from trailcheck.commands.pending_impl import pending_show as body

    body(trace_id=trace_id, db=db)


@pending_app.command("retry")
def pending_retry(trace_id: TraceIdArgument, db: DbOption = None) -> None:
    """Send a quarantined trace back to pending: the next sweep of trailcheck serve tries it
    again (and quarantines it again if it still fails)."""
    from trailcheck.commands.pending_impl import pending_retry as body

    body(trace_id=trace_id, db=db)


@pending_app.command("drop")
def pending_drop(trace_id: TraceIdArgument, db: DbOption = None) -> None:
    """Delete a held trace, pending or quarantined, with its spans and GenAI log records; it
    asks nothing."""
    from trailcheck.commands.pending_impl import pending_drop as body

    body(trace_id=trace_id, db=db)
