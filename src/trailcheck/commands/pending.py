"""``trailcheck pending``: the traces ``trailcheck serve`` holds, pending (waiting for the trace
to be complete) or quarantined (completing them failed), and what an operator does with one.

``list`` shows them with their reasons, ``show ID`` one of them with its spans and GenAI log
records, ``retry ID`` sends a quarantined trace back to pending so the next sweep of a running
(or the next started) server tries it again, and ``drop ID`` deletes a held trace without
asking, printing what went. The logic is the store's (:mod:`trailcheck.store.quarantine`) and
the endpoint's (:mod:`trailcheck.serve.held`); an unknown id is a usage error (exit 2).

The options, declared once in the commands' requests; what the commands do is in
:mod:`trailcheck.commands.pending_impl`, imported when one runs.
"""

from typing import Annotated, NamedTuple

import typer

from trailcheck.commands.declare import Command, command, implementation, new_app
from trailcheck.commands.options import DbOption, JsonOption

__all__ = ["HeldTraceRequest", "PendingListRequest", "pending_app"]

pending_app = new_app(
    "Traces trailcheck serve holds: pending, or quarantined because completing them failed.",
    no_args_is_help=True,
)


class PendingListRequest(NamedTuple):
    """What ``trailcheck pending list`` was asked."""

    db: DbOption = None
    as_json: JsonOption = False


class HeldTraceRequest(NamedTuple):
    """What ``trailcheck pending show``, ``retry`` or ``drop`` was asked."""

    trace_id: Annotated[
        str,
        typer.Argument(metavar="TRACE_ID", help="The trace id (see `trailcheck pending list`)."),
    ]
    db: DbOption = None


@pending_app.command("list", cls=Command)
@command(PendingListRequest)
def pending_list(request: PendingListRequest) -> None:
    """List the held traces, by first arrival: pending ones, and quarantined ones with why."""
    implementation("trailcheck.commands.pending_impl:pending_list", PendingListRequest)(request)


@pending_app.command("show", cls=Command)
@command(HeldTraceRequest)
def pending_show(request: HeldTraceRequest) -> None:
    """Show a held trace: why it is quarantined, its spans and GenAI log records."""
    implementation("trailcheck.commands.pending_impl:pending_show", HeldTraceRequest)(request)


@pending_app.command("retry", cls=Command)
@command(HeldTraceRequest)
def pending_retry(request: HeldTraceRequest) -> None:
    """Send a quarantined trace back to pending: the next sweep of `trailcheck serve` tries it
    again (and quarantines it again if it still fails)."""
    implementation("trailcheck.commands.pending_impl:pending_retry", HeldTraceRequest)(request)


@pending_app.command("drop", cls=Command)
@command(HeldTraceRequest)
def pending_drop(request: HeldTraceRequest) -> None:
    """Delete a held trace, pending or quarantined, with its spans and GenAI log records; it
    asks nothing."""
    implementation("trailcheck.commands.pending_impl:pending_drop", HeldTraceRequest)(request)
