"""The trace formats trailcheck reads, and detection of a file's format by its content."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import BinaryIO, Final

from trailcheck.errors import InputError, UsageError
from trailcheck.importing.message_logs import looks_like_openai_messages, read_openai_messages
from trailcheck.importing.otlp import read_otlp_json, read_otlp_proto
from trailcheck.importing.records import ImportItem, SpanItem
from trailcheck.importing.span_jsonl import (
    looks_like_span_jsonl,
    read_span_jsonl,
    read_span_jsonl_spans,
)
from trailcheck.importing.tau_bench import looks_like_tau_bench, read_tau_bench
from trailcheck.importing.trailcheck_jsonl import looks_like_trailcheck_jsonl, read_trailcheck_jsonl
from trailcheck.importing.trailcheck_parquet import (
    PARQUET_MAGIC,
    looks_like_trailcheck_parquet,
    read_trailcheck_parquet,
)
from trailcheck.importing.transport.otlp_ids import IdEncoding
from trailcheck.importing.transport.otlp_json import looks_like_otlp_json, read_otlp_json_items
from trailcheck.importing.transport.otlp_proto import looks_like_otlp_proto
from trailcheck.importing.transport.otlp_proto_file import read_otlp_proto_items
from trailcheck.importing.who_and_when import looks_like_who_and_when, read_who_and_when

# Detection reads this much, and more up to FIRST_LINE_LIMIT to see a whole first line.
DETECTION_BYTES = 1 << 20
FIRST_LINE_LIMIT = 64 << 20
UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class TraceFormat:
    """A readable format: its CLI name, how to recognise it and how to read it.

    A span-based format also has ``read_spans``, its spans (and GenAI log events) before
    assembly into traces, so an import can assemble the spans of several files together (a
    trace may be split across them, its log records in a file of their own);
    ``read`` is then those spans assembled, for one file on its own.
    """

    name: str
    description: str
    looks_like: Callable[[bytes], bool]
    read: Callable[[BinaryIO, str], Iterator[ImportItem]]
    read_spans: Callable[[BinaryIO, str], Iterator[SpanItem]] | None = None


OTLP_JSON: Final = TraceFormat(
    "otlp-json",
    "OTLP/JSON trace (and log) exports, or the collector's file exporter (one per line)",
    looks_like_otlp_json,
    read_otlp_json,
    read_otlp_json_items,
)

# Detection tries these in order; the binary protobuf check comes last because it is the loosest.
# tau-bench results are OpenAI messages under "traj" with a task and reward beside them, so they
# are tried just before the general OpenAI reader, which would also take them. Who&When logs are
# objects with a history of {content, role, name} messages, which no other reader takes.
TRAILCHECK_FORMAT: Final = "trailcheck"
TRAILCHECK_PARQUET_FORMAT: Final = "trailcheck-parquet"
TRAILCHECK_PARQUET: Final = TraceFormat(
    TRAILCHECK_PARQUET_FORMAT,
    "Parquet with one trace per row, its trailcheck JSON in the column 'trace'",
    looks_like_trailcheck_parquet,
    read_trailcheck_parquet,
)

FORMATS: tuple[TraceFormat, ...] = (
    TRAILCHECK_PARQUET,
    TraceFormat(
        TRAILCHECK_FORMAT,
        "trailcheck JSONL: one Trace per line",
        looks_like_trailcheck_jsonl,
        read_trailcheck_jsonl,
    ),
    TraceFormat(
        "spans",
        "JSONL with one span per line (trace_id, span_id, parent_span_id, attributes, ...)",
        looks_like_span_jsonl,
        read_span_jsonl,
        read_span_jsonl_spans,
    ),
    OTLP_JSON,
    TraceFormat(
        "who-and-when",
        "Who&When failure logs: question, ground_truth and history (one message per agent step)",
        looks_like_who_and_when,
        read_who_and_when,
    ),
    TraceFormat(
        "tau-bench",
        "tau-bench results: task_id, reward, trial, info (the task) and traj (OpenAI messages)",
        looks_like_tau_bench,
        read_tau_bench,
    ),
    TraceFormat(
        "openai",
        "OpenAI chat message lists with tool_calls, one conversation per record",
        looks_like_openai_messages,
        read_openai_messages,
    ),
    TraceFormat(
        "otlp-proto",
        "OTLP protobuf ExportTraceServiceRequest bytes",
        looks_like_otlp_proto,
        read_otlp_proto,
        read_otlp_proto_items,
    ),
)

FORMAT_NAMES: tuple[str, ...] = tuple(fmt.name for fmt in FORMATS)


def get_format(name: str) -> TraceFormat:
    """The format called ``name``; a UsageError listing the known names otherwise."""
    for fmt in FORMATS:
        if fmt.name == name:
            return fmt
    raise UsageError(f"unknown format {name!r}; known formats: {', '.join(FORMAT_NAMES)}")


def reading_ids(fmt: TraceFormat, ids: IdEncoding) -> TraceFormat:
    """``fmt``, reading trace and span ids written in ``ids``. Only OTLP/JSON writes ids as text
    whose encoding a tool may change (protobuf-to-JSON tools write base64); protobuf carries
    raw bytes, and the other formats have one spelling. They are returned as they are."""
    if fmt is not OTLP_JSON or ids == "hex":
        return fmt
    return replace(
        fmt,
        read=partial(read_otlp_json, ids=ids),
        read_spans=partial(read_otlp_json_items, ids=ids),
    )


def skip_byte_order_mark(stream: BinaryIO) -> None:
    """Move past a UTF-8 byte order mark (some Windows tools write one); JSON readers refuse it."""
    if stream.read(len(UTF8_BOM)) != UTF8_BOM:
        stream.seek(0)


def _head(stream: BinaryIO) -> bytes:
    """The first DETECTION_BYTES, extended to the end of the first non-blank line (a JSONL
    record can be longer than any fixed window), up to FIRST_LINE_LIMIT."""
    head = stream.read(DETECTION_BYTES)
    while len(head) < FIRST_LINE_LIMIT and b"\n" not in head.lstrip():
        more = stream.read(DETECTION_BYTES)
        if not more:
            break
        head += more
    return head


def reads_as_trailcheck(path: Path, format_name: str | None) -> bool:
    """Whether ``path`` holds trailcheck's own records, JSONL or Parquet (which the bulk path
    reads): named so, or detected so. An InputError, as the import would give, when it cannot
    be read or its format cannot be told."""
    if format_name is not None:
        if format_name not in (TRAILCHECK_FORMAT, TRAILCHECK_PARQUET_FORMAT):
            return False
        # The bulk path reads by content; a named format that the content contradicts goes to
        # the import path, which reads it as named and says what is wrong.
        return path.is_file() and is_parquet(path) == (format_name == TRAILCHECK_PARQUET_FORMAT)
    if path.is_dir() or not path.exists():
        return False  # the import says why
    try:
        return detect_format(path).name in (TRAILCHECK_FORMAT, TRAILCHECK_PARQUET_FORMAT)
    except OSError:
        return False  # the import says why


def is_parquet(path: Path) -> bool:
    """Whether ``path`` starts as a Parquet file does (False when it cannot be read: the
    reader that opens it says why)."""
    try:
        with path.open("rb") as stream:
            return stream.read(len(PARQUET_MAGIC)) == PARQUET_MAGIC
    except OSError:
        return False


def refuse_empty(path: Path) -> None:
    """An InputError when the file holds nothing but blanks (and a byte order mark): whatever its
    format, such a file is most often an export that failed, not one with no traces."""
    with path.open("rb") as stream:
        skip_byte_order_mark(stream)
        while chunk := stream.read(DETECTION_BYTES):
            if chunk.strip():
                return
    raise InputError(f"{path}: the file is empty")


def detect_format(path: Path) -> TraceFormat:
    """The format of a file, judged by its first bytes; an InputError when none fits."""
    if is_parquet(path):
        return TRAILCHECK_PARQUET  # binary: its head need not end a line anywhere
    with path.open("rb") as stream:
        skip_byte_order_mark(stream)
        head = _head(stream)
    if not head.strip():
        raise InputError(f"{path}: the file is empty")
    for fmt in FORMATS:
        if fmt.looks_like(head):
            return fmt
    raise InputError(
        f"{path}: cannot tell the format from its content; name it with --format"
        f" ({', '.join(FORMAT_NAMES)})"
    )
