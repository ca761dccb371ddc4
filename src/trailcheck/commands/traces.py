"""``trailcheck traces``: read traces, from a file or the store (``show``, ``list``,
``sessions``)."""

from typing import Annotated, NamedTuple

import typer

from trailcheck.commands.declare import Command, command, implementation, new_app
from trailcheck.commands.options import DbOption, FormatOption
from trailcheck.commands.store_commands import traces_list_command, traces_sessions_command

__all__ = ["TracesShowRequest", "traces_app"]

traces_app = new_app("Read traces.", no_args_is_help=True)


class TracesShowRequest(NamedTuple):
    """What ``trailcheck traces show`` was asked."""

    target: Annotated[
        str,
        typer.Argument(
            metavar="TARGET",
            help="A trace file, in any format trailcheck reads, or the id of a stored trace.",
        ),
    ]
    trace_id: Annotated[
        str | None,
        typer.Option(
            "--id", metavar="TRACE_ID", help="The trace of the file to show (default: the first)."
        ),
    ] = None
    format_name: FormatOption = None
    full: Annotated[bool, typer.Option("--full", help="Show long values in full.")] = False
    db: DbOption = None


@traces_app.command("show", cls=Command)
@command(TracesShowRequest)
def traces_show(request: TracesShowRequest) -> None:
    """Show one trace: its span tree with timings, tool calls, errors and final output.

    TARGET is a file (then `--id` picks its trace), else the id of a trace in the store, or a
    prefix of it that only one stored id has, shown with its findings and notes.
    """
    implementation(
        "trailcheck.commands.store_commands_impl:traces_show_command", TracesShowRequest
    )(request)


traces_app.command("list", cls=Command)(traces_list_command)
traces_app.command("sessions", cls=Command)(traces_sessions_command)
