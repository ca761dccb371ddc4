"""What the commands over the trace store do (their options:
:mod:`trailcheck.commands.store_commands`): ``ingest``, ``traces list``, ``traces sessions``,
``traces show``, and the error-analysis commands ``note``, ``notes`` and ``label``.

Each opens the store named by ``--db`` (else ``$TRAILCHECK_DB``, else
``.trailcheck/trailcheck.db``), calls it, renders and exits: 0 done, 1 when ingest rejected a
record or refused a conflicting trace, 2 for usage and input errors (an unknown trace id among
them). Commands that only read never create a store.
"""

from __future__ import annotations

import getpass
from collections.abc import Iterator
from datetime import UTC, datetime
from itertools import chain
from pathlib import Path

import typer
from rich.table import Table

from trailcheck.commands.import_summary import (
    counted,
    incomplete_words,
    print_rejections,
    read_words,
    rejected_words,
)
from trailcheck.commands.output import print_json, stderr, stdout
from trailcheck.commands.store_commands import (
    IngestRequest,
    LabelRequest,
    NoteRequest,
    NotesRequest,
    TracesListRequest,
    TracesSessionsRequest,
)
from trailcheck.commands.traces import TracesShowRequest
from trailcheck.errors import EXIT_FAILED, InputError, UsageError
from trailcheck.extras import needs_extra
from trailcheck.importing.importer import ImportSummary, capture_warnings, iter_import
from trailcheck.redaction import RedactionTally, load_redactor, redact_traces
from trailcheck.report import render_trace
from trailcheck.store import (
    IngestSummary,
    Note,
    SessionSummary,
    Store,
    TraceFilter,
    TraceSummary,
    UnknownTraceError,
)
from trailcheck.trace import Trace
from trailcheck.trace.content_gap import content_gap

INPUT_WIDTH = 60


def open_store(db: str | None, *, must_exist: bool = False) -> Store:
    """:meth:`Store.open` for a command: a PostgreSQL URL without the ``postgres`` extra is one
    line naming it."""
    with needs_extra("postgres", "a PostgreSQL store"):
        return Store.open(db, must_exist=must_exist)


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


def _parse_time(option: str, text: str | None) -> datetime | None:
    """``--since`` or ``--until``: an ISO date or date and time; without a zone it is UTC."""
    if text is None:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(
            f"{option} {text!r}: not an ISO date or date and time (e.g. 2026-05-01 or"
            " 2026-05-01T12:00:00Z)"
        ) from None


def parse_trace_filter(
    *,
    label: str | None,
    tool: str | None,
    session: str | None,
    since: str | None,
    until: str | None,
) -> TraceFilter:
    """The stored traces a command reads (``traces list``, ``score``), from its options."""
    return TraceFilter(
        label=label,
        tool=tool,
        session=session,
        since=_parse_time("--since", since),
        until=_parse_time("--until", until),
    )


def _print_ingest(imported: ImportSummary, stored: IngestSummary, url: str) -> None:
    problems = [f"conflict: {conflict}" for conflict in stored.conflicts]
    problems += [f"refused: {refusal}" for refusal in stored.refused]
    print_rejections(imported.rejections, problems=problems)
    refused = f", {len(stored.refused)} refused" if stored.refused else ""
    stderr.print(
        f"{read_words(imported)} → {counted(stored.stored, 'trace')} imported,"
        f" {stored.unchanged} unchanged, {stored.conflicted} conflicts{refused},"
        f" {rejected_words(imported)}{incomplete_words(imported)}; store {url}",
        markup=False,
    )
    for line in capture_warnings(imported):
        stderr.print(line, style="yellow", markup=False, highlight=False)


def _print_redactions(tally: RedactionTally) -> None:
    rules = ", ".join(f"{rule} {count}" for rule, count in sorted(tally.by_rule.items()))
    shown = f" ({rules})" if rules else ""
    stderr.print(
        f"redacted: {counted(tally.redactions, 'redaction')} in"
        f" {counted(tally.traces, 'trace')}{shown}",
        markup=False,
    )


def ingest_command(request: IngestRequest) -> None:
    """The body of :func:`trailcheck.commands.store_commands.ingest_command`."""
    # A bad rules file stops the command before a trace is read or a store opened.
    redactor = None if request.redact is None else load_redactor(request.redact)
    imported = ImportSummary()
    traces = iter_import(
        request.sources,
        format_name=request.format_name,
        summary=imported,
        ids=request.ids,
        keep_incomplete=request.keep_incomplete,
    )
    # The first step resolves every file's format: a missing or unreadable source stops the
    # command here, before a store is opened (or created).
    first = next(traces, None)
    read: Iterator[Trace] = chain([] if first is None else [first], traces)
    tally = RedactionTally()
    if redactor is not None:
        read = redact_traces(read, redactor, tally)
    with open_store(request.db) as store:
        stored = store.ingest(read, bulk=True)
        url = store.url
    _print_ingest(imported, stored, url)
    if redactor is not None:
        _print_redactions(tally)
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


def traces_list_command(request: TracesListRequest) -> None:
    """The body of :func:`trailcheck.commands.store_commands.traces_list_command`."""
    where = parse_trace_filter(
        label=request.label,
        tool=request.tool,
        session=request.session,
        since=request.since,
        until=request.until,
    )
    with open_store(request.db, must_exist=True) as store:
        rows = store.list_traces(where, limit=request.limit)
    if request.as_json:
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


def traces_sessions_command(request: TracesSessionsRequest) -> None:
    """The body of :func:`trailcheck.commands.store_commands.traces_sessions_command`."""
    with open_store(request.db, must_exist=True) as store:
        rows = store.list_sessions(limit=request.limit)
    if request.as_json:
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


def _the_trace_starting_with(store: Store, prefix: str) -> str:
    """The one stored trace id that starts with ``prefix``; a UsageError naming the candidates
    when several do, or saying that none does."""
    shown = 5
    candidates = store.trace_ids_starting_with(prefix, limit=shown + 1)
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise UsageError(
            f"{prefix}: no such file, and no trace with this id (or starting so) in the store"
            f" {store.url}"
        )
    listed = ", ".join(candidates[:shown]) + (", ..." if len(candidates) > shown else "")
    raise UsageError(f"{prefix}: several stored traces start so ({listed}); give more of the id")


def show_stored_trace(trace_id: str, db: str | None, *, full: bool) -> None:
    """``trailcheck traces show ID``: a stored trace, its findings and notes. The id was not a
    file's name, so the errors say that too."""
    try:
        store = open_store(db, must_exist=True)
    except InputError as error:
        raise InputError(f"{trace_id}: no such file, and {error}") from None
    with store:
        try:
            trace = store.get_trace(trace_id)
        except UnknownTraceError:
            trace = store.get_trace(_the_trace_starting_with(store, trace_id))
        trace_id = trace.trace_id
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


def traces_show_command(request: TracesShowRequest) -> None:
    """The body of :func:`trailcheck.commands.traces.traces_show`."""
    target, trace_id, format_name, full = (
        request.target,
        request.trace_id,
        request.format_name,
        request.full,
    )
    source = Path(target)
    if trace_id is None and format_name is None and not source.exists():
        show_stored_trace(target, request.db, full=full)
        return
    summary = ImportSummary()
    for trace in iter_import([source], format_name=format_name, summary=summary):
        if trace_id is None or trace.trace_id == trace_id:
            stdout.print(render_trace(trace, full=full))
            print_gap_warning(trace)
            return
    rejected = [r for r in summary.rejections if trace_id is None or r.trace_id == trace_id]
    if rejected:
        raise InputError(f"{source}: no readable trace to show; first problem: {rejected[0]}")
    wanted = f"trace {trace_id!r}" if trace_id else "a trace"
    raise UsageError(f"{source}: has no {wanted} ({summary.imported} readable traces)")


def note_command(request: NoteRequest) -> None:
    """The body of :func:`trailcheck.commands.store_commands.note_command`."""
    with open_store(request.db, must_exist=True) as store:
        note = store.add_note(request.trace_id, request.text, request.author or _whoami())
    stderr.print(f"note {note.note_id} on trace {note.trace_id} by {note.author}", markup=False)


def _note_json(note: Note) -> dict[str, object]:
    return {
        "note_id": note.note_id,
        "trace_id": note.trace_id,
        "author": note.author,
        "created": _iso(note.created_ns),
        "text": note.text,
    }


def notes_command(request: NotesRequest) -> None:
    """The body of :func:`trailcheck.commands.store_commands.notes_command`."""
    trace_id = request.trace_id
    with open_store(request.db, must_exist=True) as store:
        if trace_id is not None:
            store.get_trace(trace_id)  # an unknown id is an error, not an empty list
        notes = store.notes(trace_id)
    if request.as_json:
        print_json([_note_json(note) for note in notes])
        return
    table = Table("note", "trace", "author", "created", "text")
    for note in notes:
        table.add_row(
            str(note.note_id), note.trace_id, note.author, _iso(note.created_ns), note.text
        )
    stdout.print(table)
    stderr.print(f"{len(notes)} note(s)", markup=False)


def label_command(request: LabelRequest) -> None:
    """The body of :func:`trailcheck.commands.store_commands.label_command`."""
    with open_store(request.db, must_exist=True) as store:
        finding = store.label(
            request.trace_id, request.label, request.who or _whoami(), severity=request.severity
        )
    stderr.print(
        f"labelled trace {finding.trace_id} {finding.label} ({finding.source})", markup=False
    )
