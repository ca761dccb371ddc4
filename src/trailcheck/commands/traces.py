"""``trailcheck traces``: read traces, from a file or the store (``show``, ``list``,
``sessions``)."""

from typing import Annotated

import typer

from trailcheck.commands.options import DbOption, FormatOption
from trailcheck.commands.store_commands import traces_list_command, traces_sessions_command

__all__ = ["traces_app"]

traces_app = typer.Typer(help="Read traces.", no_args_is_help=True)


@traces_app.command("show")
def traces_show(
    target: Annotated[
        str,
        typer.Argument(
            help="A trace file, in any format trailcheck reads, or the id of a stored trace."
        ),
    ],
    trace_id: Annotated[
        str | None, typer.Option("--id", help="The trace of the file to show (default: the first).")
    ] = None,
    format_name: FormatOption = None,
    full: Annotated[bool, typer.Option("--full", help="Show long values in full.")] = False,
    db: DbOption = None,
) -> None:
    """Show one trace: its span tree with timings, tool calls, errors and final output.

    TARGET is a file (then --id picks its trace), else the id of a trace in the store, or a
    prefix of it that only one stored id has, shown with its findings and notes.
    """
    from trailcheck.commands.store_commands_impl import traces_show_command as body

    body(target=target, trace_id=trace_id, format_name=format_name, full=full, db=db)


traces_app.command("list")(traces_list_command)
traces_app.command("sessions")(traces_sessions_command)
