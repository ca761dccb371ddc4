"""Commands over the trace store: ``ingest``, ``traces list``, ``traces sessions``, ``traces
show ID``, and the error-analysis commands ``note``, ``notes`` and ``label``.

The options; what the commands do is in :mod:`trailcheck.commands.store_commands_impl`, imported
when one runs.
"""

from pathlib import Path
from typing import Annotated

import typer

from trailcheck.commands.options import (
    DbOption,
    FormatOption,
    IdsOption,
    JsonOption,
    KeepIncompleteOption,
    LabelFilterOption,
    SessionFilterOption,
    SinceOption,
    ToolFilterOption,
    UntilOption,
)

__all__ = [
    "ingest_command",
    "label_command",
    "note_command",
    "notes_command",
    "traces_list_command",
    "traces_sessions_command",
]


def ingest_command(
    sources: Annotated[list[Path], typer.Argument(help="Trace files to ingest.")],
    format_name: FormatOption = None,
    db: DbOption = None,
    ids: IdsOption = "hex",
    keep_incomplete: KeepIncompleteOption = False,
) -> None:
    """Ingest trace files into the store: each trace whole or not at all.

    A trace already stored with the same content is left as it is (unchanged); one whose id is
    stored with other content is refused (a conflict), as is one holding a value the store
    cannot hold. Exit 1 when any record was rejected or any trace refused. A PostgreSQL store
    is written with COPY.
    """
    from trailcheck.commands.store_commands_impl import ingest_command as body

    body(sources=sources, format_name=format_name, db=db, ids=ids, keep_incomplete=keep_incomplete)


def traces_list_command(
    label: LabelFilterOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    tool: ToolFilterOption = None,
    session: SessionFilterOption = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="At most this many traces.")
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the stored traces, in ingestion order."""
    from trailcheck.commands.store_commands_impl import traces_list_command as body

    body(
        label=label,
        since=since,
        until=until,
        tool=tool,
        session=session,
        limit=limit,
        db=db,
        as_json=as_json,
    )


def traces_sessions_command(
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="At most this many sessions.")
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the sessions (conversations) of the stored traces, by first start: each with its
    trace count and first and last start. Traces without a session are not listed."""
    from trailcheck.commands.store_commands_impl import traces_sessions_command as body

    body(limit=limit, db=db, as_json=as_json)


def note_command(
    trace_id: Annotated[str, typer.Argument(help="The stored trace the note is about.")],
    text: Annotated[str, typer.Argument(help="What went wrong, in your words.")],
    author: Annotated[
        str | None, typer.Option("--author", help="Who writes it (default: your user name).")
    ] = None,
    db: DbOption = None,
) -> None:
    """Record a free-text note on a stored trace (open coding)."""
    from trailcheck.commands.store_commands_impl import note_command as body

    body(trace_id=trace_id, text=text, author=author, db=db)


def notes_command(
    trace_id: Annotated[
        str | None, typer.Option("--trace", help="Only the notes on this trace.")
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the notes, oldest first."""
    from trailcheck.commands.store_commands_impl import notes_command as body

    body(trace_id=trace_id, db=db, as_json=as_json)


def label_command(
    trace_id: Annotated[str, typer.Argument(help="The stored trace to label.")],
    label: Annotated[
        str, typer.Argument(help="The failure mode, in snake_case (e.g. tool_call_loop).")
    ],
    who: Annotated[
        str | None, typer.Option("--who", help="Who assigns it (default: your user name).")
    ] = None,
    severity: Annotated[
        str, typer.Option("--severity", help="low, medium, high or critical.")
    ] = "medium",
    db: DbOption = None,
) -> None:
    """Assign a named failure mode to a stored trace by hand (axial coding)."""
    from trailcheck.commands.store_commands_impl import label_command as body

    body(trace_id=trace_id, label=label, who=who, severity=severity, db=db)
