"""Commands over the trace store: ``ingest``, ``traces list``, ``traces sessions``, ``traces
show ID``, and the error-analysis commands ``note``, ``notes`` and ``label``.

Each opens the store named by ``--db`` (else ``$TRAILCHECK_DB``, else
``.trailcheck/trailcheck.db``), calls it, renders and exits: 0 done, 1 when ingest rejected a
record or refused a conflicting trace, 2 for usage and input errors (an unknown trace id among
them). Commands that only read never create a store.
"""

from __future__ import annotations

import getpass
from datetime import UTC, datetime
from itertools import chain
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from trailcheck.commands.import_summary import (
    IdsOption,
    KeepIncompleteOption,
    counted,
    hidden_hints,
    incomplete_words,
    read_words,
    rejected_words,
)
from trailcheck.commands.recorded import print_json
from trailcheck.errors import InputError, UsageError
from trailcheck.ingest.formats import FORMAT_NAMES
from trailcheck.ingest.importer import ImportSummary, capture_warnings, iter_import
from trailcheck.report import render_trace
from trailcheck.store import (
    IngestSummary,
    Note,
    SessionSummary,
    Store,
    TraceSummary,
    UnknownTraceError,
)
from trailcheck.trace import Severity, Trace
from trailcheck.trace.content_gap import content_gap

EXIT_FAILED = 1
MAX_LISTED_PROBLEMS = 20
INPUT_WIDTH = 60

stdout = Console(soft_wrap=False)
stderr = Console(stderr=True, highlight=False, soft_wrap=True)

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="The store's URL (default: $TRAILCHECK_DB, else .trailcheck/trailcheck.db).",
    ),
]
StoreFormatOption = Annotated[
    str | None,
    typer.Option(
        "--format",
        "-f",
        help=f"Input format ({', '.join(FORMAT_NAMES)}); detected from the content when omitted.",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _whoami() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def _iso(ns: int | None) -> str:
    if ns is None:
        return "-"
    moment = datetime.fromtimestamp(ns / 1e9, tz=UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_since(text: str | None) -> datetime | None:
    """``--since``: an ISO date or date and time; without a zone it is UTC."""
    if text is None:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(
            f"--since {text!r}: not an ISO date or date and time (e.g. 2026-05-01 or"
            " 2026-05-01T12:00:00Z)"
        ) from None


def _print_ingest(imported: ImportSummary, stored: IngestSummary, url: str) -> None:
    problems = [f"rejected: {rejection}" for rejection in imported.rejections]
    problems += [f"conflict: {conflict}" for conflict in stored.conflicts]
    problems += [f"refused: {refusal}" for refusal in stored.refused]
    for problem in problems[:MAX_LISTED_PROBLEMS]:
        stderr.print(problem, style="red", markup=False)
    if len(problems) > MAX_LISTED_PROBLEMS:
        stderr.print(f"... and {len(problems) - MAX_LISTED_PROBLEMS} more", style="red")
    for hint in hidden_hints(imported.rejections, MAX_LISTED_PROBLEMS):
        stderr.print(hint, style="red", markup=False)
    refused = f", {len(stored.refused)} refused" if stored.refused else ""
    stderr.print(
        f"{read_words(imported)} → {counted(stored.stored, 'trace')} imported,"
        f" {stored.unchanged} unchanged, {stored.conflicted} conflicts{refused},"
        f" {rejected_words(imported)}{incomplete_words(imported)}; store {url}",
        markup=False,
    )
    for line in capture_warnings(imported):
        stderr.print(line, style="yellow", markup=False, highlight=False)


def ingest_command(
    sources: Annotated[list[Path], typer.Argument(help="Trace files to ingest.")],
    format_name: StoreFormatOption = None,
    db: DbOption = None,
    ids: IdsOption = "hex",
    keep_incomplete: KeepIncompleteOption = False,
) -> None:
    """Ingest trace files into the store: each trace whole or not at all.

    A trace already stored with the same content is left as it is (unchanged); one whose id is
    stored with other content is refused (a conflict), as is one holding a value the store
    cannot hold. Exit 1 when any record was rejected or any trace refused.
    """
    imported = ImportSummary()
    traces = iter_import(
        sources,
        format_name=format_name,
        summary=imported,
        ids=ids,
        keep_incomplete=keep_incomplete,
    )
    # The first step resolves every file's format: a missing or unreadable source stops the
    # command here, before a store is opened (or created).
    first = next(traces, None)
    with Store.open(db) as store:
        stored = store.ingest(chain([] if first is None else [first], traces))
        url = store.url
    _print_ingest(imported, stored, url)
    if not imported.ok or not stored.ok:
        raise typer.Exit(EXIT_FAILED)


def _summary_json(row: TraceSummary) -> dict[str, object]:
    return {
        "trace_id": row.trace_id,
        "started": _iso(row.started_ns) if row.started_ns is not None else None,
        "ended": _iso(row.ended_ns) if row.ended_ns is not None else None,
        "span_count": row.span_count,
        "tools": list(row.tool_names),
        "labels": list(row.labels),
        "input": row.input_text,
        "final_output": row.final_output,
        "ingested": _iso(row.ingested_ns),
        "session_id": row.session_id,
    }


def _clip(text: str | None) -> str:
    if text is None:
        return "-"
    line = " ".join(text.split())
    return line if len(line) <= INPUT_WIDTH else line[: INPUT_WIDTH - 1] + "…"


def _summary_table(rows: list[TraceSummary]) -> Table:
    table = Table("trace", "started", "spans", "tools", "labels", "input")
    for row in rows:
        table.add_row(
            row.trace_id,
            _iso(row.started_ns),
            str(row.span_count),
            " ".join(row.tool_names) or "-",
            " ".join(row.labels) or "-",
            _clip(row.input_text),
            style="red" if row.labels else None,
        )
    return table


def traces_list_command(
    label: Annotated[
        str | None, typer.Option("--label", help="Only traces with a finding of this label.")
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", help="Only traces started at or after this ISO date/time (UTC)."),
    ] = None,
    tool: Annotated[
        str | None, typer.Option("--tool", help="Only traces that called this tool.")
    ] = None,
    session: Annotated[
        str | None,
        typer.Option("--session", help="Only traces of this session (see traces sessions)."),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="At most this many traces.")
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the stored traces, in ingestion order."""
    moment = parse_since(since)
    with Store.open(db, must_exist=True) as store:
        rows = store.list_traces(label=label, since=moment, tool=tool, session=session, limit=limit)
    if as_json:
        print_json([_summary_json(row) for row in rows])
        return
    stdout.print(_summary_table(rows))
    stderr.print(f"{len(rows)} trace(s)", markup=False)


def _session_json(row: SessionSummary) -> dict[str, object]:
    return {
        "session_id": row.session_id,
        "traces": row.trace_count,
        "first_started": _iso(row.first_started_ns),
        "last_started": _iso(row.last_started_ns),
    }


def traces_sessions_command(
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="At most this many sessions.")
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the sessions (conversations) of the stored traces, by first start: each with its
    trace count and first and last start. Traces without a session are not listed."""
    with Store.open(db, must_exist=True) as store:
        rows = store.list_sessions(limit=limit)
    if as_json:
        print_json([_session_json(row) for row in rows])
        return
    table = Table("session", "traces", "first started", "last started")
    for row in rows:
        table.add_row(
            row.session_id,
            str(row.trace_count),
            _iso(row.first_started_ns),
            _iso(row.last_started_ns),
        )
    stdout.print(table)
    stderr.print(f"{len(rows)} session(s)", markup=False)


def print_gap_warning(trace: Trace) -> None:
    """One warning line under a shown trace whose message content was not recorded."""
    gap = content_gap(trace)
    if gap is not None:
        stderr.print(f"warning: {gap.reason}", style="yellow", markup=False, highlight=False)


def show_stored_trace(trace_id: str, db: str | None, *, full: bool) -> None:
    """``trailcheck traces show ID``: a stored trace, its findings and notes. The id was not a
    file's name, so the errors say that too."""
    try:
        store = Store.open(db, must_exist=True)
    except InputError as error:
        raise InputError(f"{trace_id}: no such file, and {error}") from None
    with store:
        try:
            trace = store.get_trace(trace_id)
        except UnknownTraceError:
            raise UsageError(
                f"{trace_id}: no such file, and no trace with this id in the store {store.url}"
            ) from None
        findings = store.findings(trace_id=trace_id)
        notes = store.notes(trace_id)
    stdout.print(render_trace(trace, full=full))
    print_gap_warning(trace)
    for finding in findings:
        evidence = f" [{', '.join(finding.evidence)}]" if finding.evidence else ""
        stdout.print(
            f"finding {finding.label} ({finding.severity}, {finding.source}):"
            f" {finding.reason}{evidence}",
            markup=False,
        )
    for note in notes:
        stdout.print(f"note by {note.author} at {_iso(note.created_ns)}: {note.text}", markup=False)


def note_command(
    trace_id: Annotated[str, typer.Argument(help="The stored trace the note is about.")],
    text: Annotated[str, typer.Argument(help="What went wrong, in your words.")],
    author: Annotated[
        str | None, typer.Option("--author", help="Who writes it (default: your user name).")
    ] = None,
    db: DbOption = None,
) -> None:
    """Record a free-text note on a stored trace (open coding)."""
    with Store.open(db, must_exist=True) as store:
        note = store.add_note(trace_id, text, author or _whoami())
    stderr.print(f"note {note.note_id} on trace {note.trace_id} by {note.author}", markup=False)


def _note_json(note: Note) -> dict[str, object]:
    return {
        "note_id": note.note_id,
        "trace_id": note.trace_id,
        "author": note.author,
        "created": _iso(note.created_ns),
        "text": note.text,
    }


def notes_command(
    trace_id: Annotated[
        str | None, typer.Option("--trace", help="Only the notes on this trace.")
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the notes, oldest first."""
    with Store.open(db, must_exist=True) as store:
        if trace_id is not None:
            store.get_trace(trace_id)  # an unknown id is an error, not an empty list
        notes = store.notes(trace_id)
    if as_json:
        print_json([_note_json(note) for note in notes])
        return
    table = Table("note", "trace", "author", "created", "text")
    for note in notes:
        table.add_row(
            str(note.note_id), note.trace_id, note.author, _iso(note.created_ns), note.text
        )
    stdout.print(table)
    stderr.print(f"{len(notes)} note(s)", markup=False)


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
    levels: dict[str, Severity] = {
        "low": "low",
        "medium": "medium",
        "high": "high",
        "critical": "critical",
    }
    if severity not in levels:
        raise UsageError(f"--severity {severity!r}: one of {', '.join(levels)}")
    with Store.open(db, must_exist=True) as store:
        finding = store.label(trace_id, label, who or _whoami(), severity=levels[severity])
    stderr.print(
        f"labelled trace {finding.trace_id} {finding.label} ({finding.source})", markup=False
    )
