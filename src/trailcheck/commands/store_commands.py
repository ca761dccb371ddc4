"""Commands over the trace store: ``ingest``, ``traces list``, ``traces sessions``, and the
error-analysis commands ``note``, ``notes`` and ``label`` (``traces show`` is in
:mod:`trailcheck.commands.traces`).

The options, declared once in the commands' requests; what the commands do is in
:mod:`trailcheck.commands.store_commands_impl`, imported when one runs. At length:
``docs/store.md``.
"""

from pathlib import Path
from typing import Annotated, Literal, NamedTuple

import typer

from trailcheck.commands.declare import command, implementation
from trailcheck.commands.options import (
    DbOption,
    FormatOption,
    IdsOption,
    JsonOption,
    KeepIncompleteOption,
    LabelFilterOption,
    RedactOption,
    SessionFilterOption,
    SinceOption,
    ToolFilterOption,
    UntilOption,
)

__all__ = [
    "IngestRequest",
    "LabelRequest",
    "NoteRequest",
    "NotesRequest",
    "Severity",
    "TracesListRequest",
    "TracesSessionsRequest",
    "ingest_command",
    "label_command",
    "note_command",
    "notes_command",
    "traces_list_command",
    "traces_sessions_command",
]

Severity = Literal["low", "medium", "high", "critical"]
""":data:`trailcheck.trace.Severity`, a finding's."""


class IngestRequest(NamedTuple):
    """What ``trailcheck ingest`` was asked."""

    sources: Annotated[list[Path], typer.Argument(metavar="FILES", help="Trace files to ingest.")]
    format_name: FormatOption = None
    db: DbOption = None
    ids: IdsOption = "hex"
    keep_incomplete: KeepIncompleteOption = False
    redact: RedactOption = None


@command(IngestRequest)
def ingest_command(request: IngestRequest) -> None:
    """Ingest trace files into the store: each trace whole or not at all.

    A trace already stored with the same content is left as it is (unchanged); one whose id is
    stored with other content is refused (a conflict), as is one holding a value the store
    cannot hold. Exit 1 when any record was rejected or any trace refused. A PostgreSQL store
    is written with COPY. With `--redact`, each trace is redacted before it is stored.
    """
    implementation("trailcheck.commands.store_commands_impl:ingest_command", IngestRequest)(request)


class TracesListRequest(NamedTuple):
    """What ``trailcheck traces list`` was asked."""

    label: LabelFilterOption = None
    since: SinceOption = None
    until: UntilOption = None
    tool: ToolFilterOption = None
    session: SessionFilterOption = None
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, metavar="N", help="At most this many traces.")
    ] = None
    db: DbOption = None
    as_json: JsonOption = False


@command(TracesListRequest)
def traces_list_command(request: TracesListRequest) -> None:
    """List the stored traces, in ingestion order."""
    implementation(
        "trailcheck.commands.store_commands_impl:traces_list_command", TracesListRequest
    )(request)


class TracesSessionsRequest(NamedTuple):
    """What ``trailcheck traces sessions`` was asked."""

    limit: Annotated[
        int | None,
        typer.Option("--limit", min=1, metavar="N", help="At most this many sessions."),
    ] = None
    db: DbOption = None
    as_json: JsonOption = False


@command(TracesSessionsRequest)
def traces_sessions_command(request: TracesSessionsRequest) -> None:
    """List the sessions (conversations) of the stored traces, by first start: each with its
    trace count and first and last start. Traces without a session are not listed."""
    implementation(
        "trailcheck.commands.store_commands_impl:traces_sessions_command", TracesSessionsRequest
    )(request)


class NoteRequest(NamedTuple):
    """What ``trailcheck note`` was asked."""

    trace_id: Annotated[
        str, typer.Argument(metavar="TRACE_ID", help="The stored trace the note is about.")
    ]
    text: Annotated[str, typer.Argument(metavar="TEXT", help="What went wrong, in your words.")]
    author: Annotated[
        str | None,
        typer.Option("--author", metavar="NAME", help="Who writes it (default: your user name)."),
    ] = None
    db: DbOption = None


@command(NoteRequest)
def note_command(request: NoteRequest) -> None:
    """Record a free-text note on a stored trace (open coding)."""
    implementation("trailcheck.commands.store_commands_impl:note_command", NoteRequest)(request)


class NotesRequest(NamedTuple):
    """What ``trailcheck notes`` was asked."""

    trace_id: Annotated[
        str | None,
        typer.Option("--trace", metavar="TRACE_ID", help="Only the notes on this trace."),
    ] = None
    db: DbOption = None
    as_json: JsonOption = False


@command(NotesRequest)
def notes_command(request: NotesRequest) -> None:
    """List the notes, oldest first."""
    implementation("trailcheck.commands.store_commands_impl:notes_command", NotesRequest)(request)


class LabelRequest(NamedTuple):
    """What ``trailcheck label`` was asked."""

    trace_id: Annotated[str, typer.Argument(metavar="TRACE_ID", help="The stored trace to label.")]
    label: Annotated[
        str,
        typer.Argument(
            metavar="LABEL", help="The failure mode, in snake_case (e.g. `tool_call_loop`)."
        ),
    ]
    who: Annotated[
        str | None,
        typer.Option("--who", metavar="NAME", help="Who assigns it (default: your user name)."),
    ] = None
    severity: Annotated[Severity, typer.Option("--severity", help="How bad the failure is.")] = (
        "medium"
    )
    db: DbOption = None


@command(LabelRequest)
def label_command(request: LabelRequest) -> None:
    """Assign a named failure mode to a stored trace by hand (axial coding)."""
    implementation("trailcheck.commands.store_commands_impl:label_command", LabelRequest)(request)
