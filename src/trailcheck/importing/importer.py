"""Import trace files: detect each file's format, read it, count what was read, imported and
rejected, and refuse a trace id seen twice in one import.

Files of a per-record format (trailcheck JSONL, OpenAI messages) are read one after another and
their traces yielded as they are read. The spans of every file of a span-based format (span
JSONL, OTLP/JSON, OTLP protobuf) are pooled and assembled together once the last file is read,
so a trace split across files (rotated collector output) is imported whole
(:mod:`~trailcheck.importing.span_pool` says how parts, copies and disagreeing files are told
apart); those traces come after the others. Being one input, the pooled files also share the
rule that a part which cannot be read withholds every trace (it may have held a span of any of
them; :mod:`~trailcheck.importing.complete_traces`), and ``keep_incomplete``, which imports those
traces marked incomplete instead (:mod:`~trailcheck.trace.incomplete`).

Memory follows the largest record and the largest trace, not the files. A span-based file is
read one record at a time (a line, a document, a protobuf ``resourceSpans``; one over
:data:`~trailcheck.importing.transport.record_stream.MAX_RECORD_BYTES` is rejected, naming file and
offset), and its spans wait until the last file is read, since a trace's spans may come in any
order and no export says when a trace is whole (in memory for a small input, on disk for a
large one: :mod:`~trailcheck.importing.span_store`); then the traces are assembled one at a time.
Per-record files are streamed.

``ids`` says how OTLP/JSON files write trace and span ids (hex, as OTLP/JSON does, or base64,
as protobuf-to-JSON tools do); it holds for every OTLP/JSON file of the import and for no other
format (:func:`~trailcheck.importing.formats.reading_ids`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from trailcheck.errors import InputError
from trailcheck.importing.complete_traces import complete_traces
from trailcheck.importing.formats import (
    TraceFormat,
    detect_format,
    get_format,
    reading_ids,
    refuse_empty,
    skip_byte_order_mark,
)
from trailcheck.importing.log_join import LogTally
from trailcheck.importing.records import (
    IgnoredLogs,
    ImportItem,
    LogEvent,
    RawSpan,
    Rejection,
    SpanItem,
)
from trailcheck.importing.span_pool import PooledSpans
from trailcheck.importing.span_store import SpanStore, open_span_store
from trailcheck.importing.transport.otlp_ids import IdEncoding
from trailcheck.importing.unread import UNREAD_METADATA_KEY
from trailcheck.trace import Trace
from trailcheck.trace.content_gap import GapTally
from trailcheck.trace.incomplete import INCOMPLETE_KEY


@dataclass(slots=True)
class ImportSummary:
    """What an import did, counted in spans and traces; ``rejections`` name each record at fault.

    ``spans``: the spans read, whatever became of their traces (those of span-based files, and
    of each trace a per-record file holds). ``imported``: the traces imported. ``rejected``: the
    traces not imported, each counted once: every trace id of a span-based file that was not
    imported from it, each further copy of a trace, and each rejected record of a per-record file
    (one record is one trace). ``untraced``: rejected parts of span-based files that name no trace
    (a line that is not JSON, a span whose trace id cannot be read, another signal's document):
    how many traces they held, if any, is unknown, so they are not counted as traces.
    ``incomplete``: the traces imported marked incomplete (``keep_incomplete``), among
    ``imported``. ``partly_read``: the traces imported with parts kept verbatim but not
    interpreted (their reading report, :mod:`trailcheck.importing.unread`), among ``imported``.
    """

    spans: int = 0
    imported: int = 0
    rejected: int = 0
    untraced: int = 0
    incomplete: int = 0
    partly_read: int = 0
    rejections: list[Rejection] = field(default_factory=list)
    formats: dict[str, str] = field(default_factory=dict)
    logs: LogTally = field(default_factory=LogTally)
    gaps: GapTally = field(default_factory=GapTally)

    @property
    def ok(self) -> bool:
        return not self.rejections


def capture_warnings(summary: ImportSummary) -> list[str]:
    """What an import could not see, one line per kind: GenAI log records that joined no span,
    and traces whose instrumentation recorded no message content (with the fix)."""
    lines: list[str] = []
    logs = summary.logs
    if logs.unjoined or logs.unlinked:
        lines.append(
            f"warning: {logs.unjoined + logs.unlinked} GenAI log record(s) joined no span"
            f" ({logs.unjoined} name a span not in the input, {logs.unlinked} name none):"
            " import the trace files they belong to in the same command"
        )
    if logs.other:
        lines.append(f"note: {logs.other} log record(s) that are not GenAI events were ignored")
    if summary.incomplete:
        lines.append(
            f"warning: {summary.incomplete} trace(s) imported incomplete (kept with"
            " --keep-incomplete): a part of the input that could not be read may have held a"
            f" span of each; they are marked in metadata {INCOMPLETE_KEY!r}, and grading and"
            " detection give no verdict on them"
        )
    if summary.partly_read:
        lines.append(
            f"note: {summary.partly_read} trace(s) hold parts trailcheck kept verbatim without"
            f" interpreting them (an unknown role, block or attribute shape): listed in metadata"
            f" {UNREAD_METADATA_KEY!r} and by `trailcheck traces show`"
        )
    lines.extend(summary.gaps.warnings())
    return lines


def _resolve_format(path: Path, format_name: str | None) -> TraceFormat:
    if path.is_dir():
        raise InputError(f"{path}: is a directory; name the trace files in it")
    if not path.exists():
        raise InputError(f"{path}: no such file")
    try:
        if not format_name:
            return detect_format(path)
        fmt = get_format(format_name)
        refuse_empty(path)
        return fmt
    except OSError as error:
        raise InputError(f"{path}: cannot be read: {error.strerror or error}") from None


def iter_import(
    paths: Sequence[Path],
    *,
    format_name: str | None = None,
    summary: ImportSummary,
    ids: IdEncoding = "hex",
    keep_incomplete: bool = False,
) -> Iterator[Trace]:
    """Yield the valid traces of every file, recording each rejection in ``summary``: those of
    per-record files in file order, then those assembled from the span-based files together.
    ``ids``: how OTLP/JSON files write trace and span ids (see the module docstring).
    ``keep_incomplete``: import, marked incomplete, the traces of span-based files withheld only
    because an unreadable part of them may have held one of their spans.

    Every file's format is resolved before any is read, so a usage or unreadable-input error
    stops the import before anything was imported.
    """
    resolved = [(path, reading_ids(_resolve_format(path, format_name), ids)) for path in paths]
    first_seen: dict[str, str] = {}
    span_bytes = sum(path.stat().st_size for path, fmt in resolved if fmt.read_spans)
    with ExitStack() as cleanup:
        pooled: _PooledRead | None = None
        for path, fmt in resolved:
            source = str(path)
            summary.formats[source] = fmt.name
            with path.open("rb") as stream:
                skip_byte_order_mark(stream)
                if fmt.read_spans is not None:
                    if pooled is None:
                        pooled = _PooledRead(open_span_store(span_bytes))
                        cleanup.callback(pooled.store.close)
                    pooled.read(fmt.read_spans(stream, source), source, summary)
                    continue
                for item in fmt.read(stream, source):
                    if isinstance(item, Trace):
                        summary.spans += len(item.spans)
                    accepted = _accept(item, source, first_seen, summary)
                    if accepted is None:
                        summary.rejected += 1
                    else:
                        yield accepted
        if pooled is not None:
            yield from _pooled_traces(pooled, first_seen, summary, keep_incomplete)


@dataclass(slots=True)
class _PooledRead:
    """The span-based files of an import as they are read: their spans and log events stored
    until every file is read (:mod:`~trailcheck.importing.span_store`), their Rejections in input
    order."""

    store: SpanStore
    files: list[str] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)

    def read(self, items: Iterable[SpanItem], source: str, summary: ImportSummary) -> None:
        """Take in the items of one file, counting the spans read, the rejected parts that name
        no trace, and the log records set aside."""
        self.files.append(source)
        for item in items:
            if isinstance(item, RawSpan):
                if item.source is None:
                    item.source = source
                self.store.add_span(item)
                summary.spans += 1
            elif isinstance(item, LogEvent):
                self.store.add_log(item)
            elif isinstance(item, IgnoredLogs):
                summary.logs.other += item.other
                summary.logs.unlinked += item.unlinked
            else:
                self.rejections.append(item)
                if item.trace_id is None:
                    summary.untraced += 1


def _pooled_traces(
    pooled: _PooledRead, first_seen: dict[str, str], summary: ImportSummary, keep_incomplete: bool
) -> Iterator[Trace]:
    """The traces of the span-based files, assembled together one at a time, with the GenAI log
    events of any of them joined to their spans."""
    store = pooled.store
    store.finish()
    summary.logs.joined, summary.logs.unjoined = store.joined_logs()
    named = {r.trace_id for r in pooled.rejections if r.trace_id is not None}
    read = store.trace_count() + sum(not store.holds_trace(trace_id) for trace_id in named)
    pool = PooledSpans(store)
    found = pool.findings()
    summary.rejected += sum(len(copies) for copies in found.copies.values())
    rejections = [*pooled.rejections, *found.refusals]
    files = ", ".join(pooled.files)
    imported = 0
    for item in complete_traces(rejections, pool, files, keep_incomplete=keep_incomplete):
        if isinstance(item, Rejection):
            summary.rejections.append(item)
            continue
        sources = pool.sources_of(item.trace_id)
        where = first_seen.get(item.trace_id, sources)
        # Pooled traces are one per id: only a per-record file's trace can come before.
        accepted = _accept(item, sources, first_seen, summary, remember=False)
        summary.rejections.extend(
            already_imported(copy, item.trace_id, where)
            for copy in found.copies.pop(item.trace_id, ())
        )
        if accepted is not None:
            imported += 1
            yield accepted
    summary.rejected += read - imported
    summary.rejections.extend(_copies_of_rejected_traces(found.copies, pool))


def _copies_of_rejected_traces(
    copies: dict[str, list[str]], pool: PooledSpans
) -> Iterator[Rejection]:
    """For each copy of a trace that was not imported, why the copy was not imported either."""
    for trace_id, files in copies.items():
        for copy in files:
            yield Rejection(
                copy,
                f"trace {trace_id!r} not imported: its spans here repeat those in"
                f" {pool.sources_of(trace_id)}, where it was rejected (see above)",
                field="trace_id",
                trace_id=trace_id,
            )


def already_imported(source: str, trace_id: str, where: str) -> Rejection:
    """The rejection of a trace whose id an earlier record of the import already had."""
    return Rejection(
        source,
        f"trace id {trace_id!r} was already imported from {where}",
        field="trace_id",
        trace_id=trace_id,
    )


def _accept(
    item: ImportItem,
    source: str,
    first_seen: dict[str, str],
    summary: ImportSummary,
    *,
    remember: bool = True,
) -> Trace | None:
    if isinstance(item, Rejection):
        summary.rejections.append(item)
        return None
    where = first_seen.get(item.trace_id)
    if where is not None:
        summary.rejections.append(already_imported(source, item.trace_id, where))
        return None
    if remember:
        first_seen[item.trace_id] = source
    summary.imported += 1
    if INCOMPLETE_KEY in item.metadata:
        summary.incomplete += 1
    if UNREAD_METADATA_KEY in item.metadata:
        summary.partly_read += 1
    summary.gaps.add(item)
    return item


def import_traces(
    paths: Sequence[Path],
    sink: Callable[[Trace], None],
    *,
    format_name: str | None = None,
    ids: IdEncoding = "hex",
    keep_incomplete: bool = False,
) -> ImportSummary:
    """Send every valid trace of ``paths`` to ``sink``; return the summary. ``ids``: how
    OTLP/JSON files write trace and span ids, ``hex`` (OTLP/JSON) or ``base64``.
    ``keep_incomplete``: see :func:`iter_import`."""
    summary = ImportSummary()
    traces = iter_import(
        paths, format_name=format_name, summary=summary, ids=ids, keep_incomplete=keep_incomplete
    )
    for trace in traces:
        sink(trace)
    return summary
