"""The spans and GenAI log events of a large import, kept on disk until their traces are
assembled: the :class:`~trailcheck.importing.span_store.SpanStore` of an input too large to hold.

Each span is written, as it is read, to a SQLite database in a temporary file, with its trace id;
once every file is read, the traces are read back one at a time, in the order of their first
span, each with its spans (and log events) in input order. Memory then follows the largest
trace, not the input (SQLite's page cache is bounded too); the temporary file holds about as many
bytes as the input, in the system's temporary folder (``TMPDIR``), and is deleted when the spill
is closed.

Spans and events are stored pickled: the file is created here, private to this process (mode
0600, in a folder of its own), read back only by it, and deleted after.
"""

from __future__ import annotations

import dataclasses
import pickle
import sqlite3
import tempfile
from collections.abc import Iterator
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any, Final

from trailcheck.importing.records import LogEvent, RawSpan

__all__ = ["SpanSpill"]

# Rows written per statement, and the page cache SQLite may keep (its bound on memory).
_BATCH: Final = 2000
_CACHE_KIB: Final = 32 << 10
_PROTOCOL: Final = pickle.HIGHEST_PROTOCOL
_SPAN_FIELDS: Final = tuple(field.name for field in dataclasses.fields(RawSpan))

_SCHEMA: Final = """
CREATE TABLE spans (
    seq INTEGER PRIMARY KEY, trace_id TEXT NOT NULL, span_id TEXT NOT NULL,
    file INTEGER NOT NULL, span BLOB NOT NULL
);
CREATE TABLE logs (seq INTEGER PRIMARY KEY, trace_id TEXT NOT NULL, span_id TEXT NOT NULL,
    event BLOB NOT NULL);
"""
# Built once every span is in: the traces by their first span, and each one's spans.
_INDEXES: Final = """
CREATE INDEX spans_by_trace ON spans (trace_id, seq, file, span_id);
CREATE INDEX logs_by_trace ON logs (trace_id, seq);
CREATE TABLE traces (first INTEGER PRIMARY KEY, trace_id TEXT NOT NULL);
INSERT INTO traces SELECT MIN(seq), trace_id FROM spans GROUP BY trace_id;
"""
# The traces in order of their first span, each span in input order (CROSS JOIN keeps that
# order of the loops, so SQLite sorts nothing).
_IN_TRACE_ORDER: Final = (
    "FROM traces t CROSS JOIN spans s ON s.trace_id = t.trace_id ORDER BY t.first, s.seq"
)


class SpanSpill:
    """Spans and log events written to a temporary SQLite file as they are read, and read back
    trace by trace once :meth:`finish` is called (see the module docstring). Each span names
    its file (``source``)."""

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="trailcheck-spans-")
        self._db = sqlite3.connect(Path(self._folder.name) / "spans.sqlite")
        for pragma in ("journal_mode = OFF", "synchronous = OFF", f"cache_size = -{_CACHE_KIB}"):
            self._db.execute(f"PRAGMA {pragma}")
        self._db.executescript(_SCHEMA)
        self._files: dict[str, int] = {}
        self._spans: list[tuple[str, str, int, bytes]] = []
        self._logs: list[tuple[str, str, bytes]] = []
        self._finished = False

    def close(self) -> None:
        """Delete the temporary file."""
        self._db.close()
        self._folder.cleanup()

    def add_span(self, span: RawSpan) -> None:
        assert span.source is not None, "a spilled span names its file"
        file = self._files.setdefault(span.source, len(self._files))
        self._spans.append((span.trace_id, span.span_id, file, _pickled_span(span)))
        if len(self._spans) >= _BATCH:
            self._flush()

    def add_log(self, log: LogEvent) -> None:
        self._logs.append((log.trace_id, log.span_id, pickle.dumps(log, _PROTOCOL)))
        if len(self._logs) >= _BATCH:
            self._flush()

    def finish(self) -> None:
        """Every span is in: index them by trace. Reading back is allowed from here."""
        self._flush()
        self._db.executescript(_INDEXES)
        self._finished = True

    def trace_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM traces").fetchone()[0])

    def holds_trace(self, trace_id: str) -> bool:
        query = "SELECT 1 FROM spans WHERE trace_id = ? LIMIT 1"
        return self._db.execute(query, (trace_id,)).fetchone() is not None

    def joined_logs(self) -> tuple[int, int]:
        """How many log events name a span that was read, and how many name one that was not."""
        joined = "SELECT COUNT(*) FROM logs l WHERE EXISTS (SELECT 1 FROM spans s"
        joined += " WHERE s.trace_id = l.trace_id AND s.span_id = l.span_id)"
        count = int(self._db.execute(joined).fetchone()[0])
        return count, int(self._db.execute("SELECT COUNT(*) FROM logs").fetchone()[0]) - count

    def trace_parts(self) -> Iterator[tuple[str, list[tuple[str, str]]]]:
        """Each trace, in order of its first span, with the file and span id of each of its
        spans in input order (read from the index alone: no span is unpickled)."""
        files = list(self._files)
        rows = self._db.execute(f"SELECT s.trace_id, s.file, s.span_id {_IN_TRACE_ORDER}")
        for trace_id, members in groupby(rows, key=itemgetter(0)):
            yield trace_id, [(files[file], span_id) for _, file, span_id in members]

    def parts_of(self, trace_id: str) -> list[tuple[str, str]]:
        """:meth:`trace_parts` of one trace."""
        files = list(self._files)
        query = "SELECT file, span_id FROM spans WHERE trace_id = ? ORDER BY seq"
        return [(files[file], span_id) for file, span_id in self._db.execute(query, (trace_id,))]

    def traces(self) -> Iterator[tuple[str, list[RawSpan], list[LogEvent]]]:
        """Each trace, in order of its first span, with its spans and its log events, each in
        input order."""
        rows = self._db.execute(f"SELECT s.trace_id, s.span {_IN_TRACE_ORDER}")
        any_logs = self._db.execute("SELECT 1 FROM logs LIMIT 1").fetchone() is not None
        for trace_id, members in groupby(rows, key=itemgetter(0)):
            spans = [_unpickled_span(blob) for _, blob in members]
            yield trace_id, spans, self._logs_of(trace_id) if any_logs else []

    def trace(self, trace_id: str) -> tuple[list[RawSpan], list[LogEvent]]:
        """The spans and log events of one trace, each in input order."""
        query = "SELECT span FROM spans WHERE trace_id = ? ORDER BY seq"
        spans = [_unpickled_span(blob) for (blob,) in self._db.execute(query, (trace_id,))]
        return spans, self._logs_of(trace_id)

    def _logs_of(self, trace_id: str) -> list[LogEvent]:
        query = "SELECT event FROM logs WHERE trace_id = ? ORDER BY seq"
        return [_unpickled(blob) for (blob,) in self._db.execute(query, (trace_id,))]

    def _flush(self) -> None:
        assert not self._finished, "spans added after finish()"
        with self._db:
            self._db.executemany(
                "INSERT INTO spans (trace_id, span_id, file, span) VALUES (?, ?, ?, ?)",
                self._spans,
            )
            self._db.executemany(
                "INSERT INTO logs (trace_id, span_id, event) VALUES (?, ?, ?)", self._logs
            )
        self._spans.clear()
        self._logs.clear()


def _pickled_span(span: RawSpan) -> bytes:
    # Its fields, not the object: a list pickles and unpickles in C, a dataclass does not.
    return pickle.dumps([getattr(span, name) for name in _SPAN_FIELDS], _PROTOCOL)


def _unpickled_span(blob: bytes) -> RawSpan:
    return RawSpan(*_unpickled(blob))


def _unpickled(blob: bytes) -> Any:
    # Written by _pickled into this process's own private file (see the module docstring).
    return pickle.loads(blob)
