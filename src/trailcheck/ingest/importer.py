"""Import trace files: detect each file's format, read it, count what was read, imported and
rejected, and refuse a trace id seen twice in one import."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from trailcheck.errors import InputError
from trailcheck.ingest.formats import (
    TraceFormat,
    detect_format,
    get_format,
    skip_byte_order_mark,
)
from trailcheck.ingest.records import ImportItem, Rejection
from trailcheck.trace import Trace


@dataclass(slots=True)
class ImportSummary:
    """What an import did. ``read`` counts records: every one is either imported or rejected."""

    imported: int = 0
    rejections: list[Rejection] = field(default_factory=list)
    formats: dict[str, str] = field(default_factory=dict)

    @property
    def rejected(self) -> int:
        return len(self.rejections)

    @property
    def read(self) -> int:
        return self.imported + self.rejected

    @property
    def ok(self) -> bool:
        return not self.rejections


def _resolve_format(path: Path, format_name: str | None) -> TraceFormat:
    if path.is_dir():
        raise InputError(f"{path}: is a directory; name the trace files in it")
    if not path.exists():
        raise InputError(f"{path}: no such file")
    try:
        return get_format(format_name) if format_name else detect_format(path)
    except OSError as error:
        raise InputError(f"{path}: cannot be read: {error.strerror or error}") from None


def iter_import(
    paths: Sequence[Path], *, format_name: str | None = None, summary: ImportSummary
) -> Iterator[Trace]:
    """Yield the valid traces of every file in order, recording each rejection in ``summary``.

    Every file's format is resolved before any is read, so a usage or unreadable-input error
    stops the import before anything was imported.
    """
    resolved = [(path, _resolve_format(path, format_name)) for path in paths]
    first_seen: dict[str, str] = {}
    for path, fmt in resolved:
        summary.formats[str(path)] = fmt.name
        with path.open("rb") as stream:
            skip_byte_order_mark(stream)
            for item in fmt.read(stream, str(path)):
                accepted = _accept(item, str(path), first_seen, summary)
                if accepted is not None:
                    yield accepted


def _accept(
    item: ImportItem, source: str, first_seen: dict[str, str], summary: ImportSummary
) -> Trace | None:
    if isinstance(item, Rejection):
        summary.rejections.append(item)
        return None
    where = first_seen.get(item.trace_id)
    if where is not None:
        summary.rejections.append(
            Rejection(
                source,
                f"trace id {item.trace_id!r} was already imported from {where}",
                field="trace_id",
                trace_id=item.trace_id,
            )
        )
        return None
    first_seen[item.trace_id] = source
    summary.imported += 1
    return item


def import_traces(
    paths: Sequence[Path],
    sink: Callable[[Trace], None],
    *,
    format_name: str | None = None,
) -> ImportSummary:
    """Send every valid trace of ``paths`` to ``sink``; return the summary."""
    summary = ImportSummary()
    for trace in iter_import(paths, format_name=format_name, summary=summary):
        sink(trace)
    return summary
