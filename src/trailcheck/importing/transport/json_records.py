"""Records of a JSON input: one document (a record, or an array of records) or JSON Lines.

The input is one JSON document when it parses whole. Otherwise it is JSON Lines, one record per
non-blank line, provided its first or second non-blank line is a whole JSON object or array on its
own (so a file whose first line is broken still has its other lines read); when neither is, it is
one broken document, reported once, at the line where it breaks.

Every record knows where it is: its index among the input's records, the field path of the record
in a document (``[17]`` in an array, empty for a line or a lone record) and the line where it
starts. For a JSON Lines record the line is known as it is read; for an element of an array it is
found by scanning the document, which only a rejection needs, so the scan runs on first use and
once per document.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any, BinaryIO, Final

import orjson

from trailcheck.importing.records import Rejection
from trailcheck.importing.transport.record_stream import (
    MAX_RECORD_BYTES,
    Line,
    bounded_lines,
    oversized_record,
    remaining_bytes,
)
from trailcheck.json_text import (
    JsonValueError,
    check_json,
    decode_json,
    element_errors,
    loads_json,
)

_UTF8_BOM: Final = b"\xef\xbb\xbf"

# How a reader rejects a part that is not JSON, given its Rejection and its text.
RejectBroken = Callable[[Rejection, bytes], Iterable[Rejection]]

# The tokens that matter for finding where elements start: strings (skipped whole, so brackets
# and newlines inside them do not count), brackets, commas, newlines and bare scalars.
_JSON_TOKEN: Final = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{},\n]|[^\s\[\]{},"]+')


@dataclass(frozen=True, slots=True)
class JsonRecord:
    """One record of a JSON input, with where it is. ``start_line()`` may scan the document."""

    value: Any
    index: int
    path: str
    start_line: Callable[[], int | None]


def read_json_records(
    data: bytes,
    source: str,
    *,
    array_is_one_record: Callable[[list[Any]], bool],
    reject_broken: RejectBroken | None = None,
) -> Iterator[JsonRecord | Rejection]:
    """The records of ``data``, in order, and a Rejection for each part that is not JSON.

    A document that is an array holds one record per element, unless ``array_is_one_record``
    says the array is itself a record (a bare list of messages, say). Any other document is one
    record. A line of JSON Lines is always one record.

    ``reject_broken`` turns the Rejection of a part that is not JSON (a line, or the whole
    broken document) into the reader's, given the part's text: a reader may say what its
    readable prefix shows (:mod:`trailcheck.importing.transport.cut_json`). By default it is
    yielded as is.
    """
    reject = reject_broken or _as_is
    if data.startswith(_UTF8_BOM):
        # The byte order mark says how the text is encoded; it is not part of the JSON.
        data = data[len(_UTF8_BOM) :]
    if not data.strip():
        return
    try:
        document = decode_json(data)
    except orjson.JSONDecodeError as error:
        yield from _json_lines_or_broken_document(data, source, error, reject)
        return
    except JsonValueError as error:
        yield _refused(source, _first_content_line(data), error)
        return
    first_line = _first_content_line(data)
    if isinstance(document, list) and not array_is_one_record(document):
        yield from _array_records(data, source, document)
        return
    try:
        check_json(data, document)
    except JsonValueError as error:
        yield _refused(source, first_line, error)
        return
    yield JsonRecord(document, 0, "", _fixed_line(first_line))


def _array_records(
    data: bytes, source: str, document: list[Any]
) -> Iterator[JsonRecord | Rejection]:
    """The records of an array document; one that breaks a rule of JSON text
    (:mod:`~trailcheck.json_text`) is rejected alone, at its line."""
    try:
        check_json(data, document)
        errors: dict[int, JsonValueError] = {}
    except JsonValueError:
        errors = element_errors(data, document)
    element_lines = _ElementLines(data)
    for index, element in enumerate(document):
        error = errors.get(index)
        if error is None:
            yield JsonRecord(element, index, f"[{index}]", _line_of(element_lines, index))
        else:
            field = f"[{index}].{error.field}" if error.field else f"[{index}]"
            yield Rejection(source, error.message, line=element_lines.line(index), field=field)


def _refused(source: str, line: int, error: JsonValueError) -> Rejection:
    return Rejection(source, error.message, line=line, field=error.field or None)


def _as_is(rejection: Rejection, _: bytes) -> Iterable[Rejection]:
    return (rejection,)


def _json_lines_or_broken_document(
    data: bytes, source: str, document_error: orjson.JSONDecodeError, reject: RejectBroken
) -> Iterator[JsonRecord | Rejection]:
    lines = [(number, text) for number, text in enumerate(data.split(b"\n"), 1) if text.strip()]
    if not any(_is_json_container(text) for _, text in lines[:2]):
        # Not JSON Lines either: one broken document, reported where it breaks.
        broken = Rejection(
            source,
            f"not valid JSON: {document_error.msg} (column {document_error.colno})",
            line=document_error.lineno,
        )
        yield from reject(broken, data)
        return
    for index, (number, text) in enumerate(lines):
        yield from _line_record(text, number, index, source, reject)


def _line_record(
    text: bytes, number: int, index: int, source: str, reject: RejectBroken
) -> Iterable[JsonRecord | Rejection]:
    """The record on line ``number`` of JSON Lines, the ``index``-th non-blank one."""
    try:
        value = loads_json(text)
    except orjson.JSONDecodeError as error:
        broken = Rejection(
            source,
            f"not valid JSON: {error.msg} (at character {error.pos + 1} of the line)",
            line=number,
        )
        return reject(broken, text)
    except JsonValueError as error:
        return (_refused(source, number, error),)
    return (JsonRecord(value, index, "", _fixed_line(number)),)


def read_json_file_records(
    stream: BinaryIO,
    source: str,
    *,
    array_is_one_record: Callable[[list[Any]], bool],
    reject_broken: RejectBroken | None = None,
    limit: int = MAX_RECORD_BYTES,
) -> Iterator[JsonRecord | Rejection]:
    """:func:`read_json_records` of a file from where ``stream`` is, holding at most one record
    (``limit`` bytes) in memory. A file of up to ``limit`` bytes is read whole, by the same rule.
    A larger one cannot be one document that is read: it is JSON Lines, read line by line (a
    line over ``limit`` is a Rejection naming its line and offset), when its first or second
    non-blank line is a whole JSON object or array, as the rule has it; otherwise it is one
    Rejection, naming the document's offset and size and asking for JSON Lines."""
    start = stream.tell()
    if stream.read(len(_UTF8_BOM)) != _UTF8_BOM:
        stream.seek(start)
    size = remaining_bytes(stream)
    if size <= limit:
        yield from read_json_records(
            stream.read(),
            source,
            array_is_one_record=array_is_one_record,
            reject_broken=reject_broken,
        )
        return
    start = stream.tell()
    firsts = list(islice(_content_lines(bounded_lines(stream, source, limit=limit)), 2))
    stream.seek(start)
    if not any(isinstance(first, Line) and _is_json_container(first.text) for first in firsts):
        yield _oversized_document(source, firsts[0], start, size, limit)
        return
    reject = reject_broken or _as_is
    lines = _content_lines(bounded_lines(stream, source, limit=limit))
    for index, line in enumerate(lines):
        if isinstance(line, Rejection):
            yield line
        else:
            yield from _line_record(
                line.text.removesuffix(b"\n"), line.number, index, source, reject
            )


def _oversized_document(
    source: str, first: Line | Rejection, start: int, size: int, limit: int
) -> Rejection:
    """The Rejection of a file over the bound that is not JSON Lines: one document, from its
    first non-blank line (a file over the bound is not blank) to the end."""
    line, offset = (first.number, first.offset) if isinstance(first, Line) else (first.line, start)
    return oversized_record(
        source,
        what="a JSON document",
        offset=offset,
        size=size - (offset - start),
        limit=limit,
        line=line,
        advice="; a file this large is read as JSON Lines: write one document per line (as the"
        " OpenTelemetry Collector's file exporter does)",
    )


def _content_lines(lines: Iterable[Line | Rejection]) -> Iterator[Line | Rejection]:
    """The lines that are not blank (a line over the bound, not read, is not blank)."""
    return (line for line in lines if isinstance(line, Rejection) or line.text.strip())


def _is_json_container(text: bytes) -> bool:
    """A whole object or array: what a line of JSON Lines holds, and a line of a pretty-printed
    document (``{``, ``"key": 1,``) almost never does."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return isinstance(value, dict | list)


def _fixed_line(number: int) -> Callable[[], int | None]:
    return lambda: number


def _line_of(element_lines: _ElementLines, index: int) -> Callable[[], int | None]:
    return lambda: element_lines.line(index)


def _first_content_line(data: bytes) -> int:
    return 1 + data[: len(data) - len(data.lstrip())].count(b"\n")


class _ElementLines:
    """The line where each element of a top-level JSON array starts, found on first use."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._lines: list[int] | None = None

    def line(self, index: int) -> int | None:
        if self._lines is None:
            self._lines = _array_element_lines(self._data)
        return self._lines[index] if index < len(self._lines) else None


def _array_element_lines(data: bytes) -> list[int]:
    """Start lines of the elements of the array ``data`` holds (valid JSON: orjson read it)."""
    starts: list[int] = []
    depth = 0
    line = 1
    expecting_element = False
    for match in _JSON_TOKEN.finditer(data):
        token = match.group()
        if token == b"\n":
            line += 1
            continue
        if depth == 1 and expecting_element and token != b"]":
            starts.append(line)
            expecting_element = False
        if token in (b"[", b"{"):
            depth += 1
            expecting_element = depth == 1
        elif token in (b"]", b"}"):
            depth -= 1
        elif token == b"," and depth == 1:
            expecting_element = True
    return starts


def first_line_record(head: bytes, containing: bytes = b"") -> Any:
    """The JSON value on the first non-blank line of ``head`` (for format detection), or
    ``None`` when there is none, it does not parse (e.g. cut off by the end of ``head``), or its
    text lacks ``containing`` (a detector's key: a first line of many megabytes, such as a
    one-line OTLP export, is then not parsed for a format it cannot be)."""
    first = next((line for line in head.splitlines() if line.strip()), None)
    if first is None or containing not in first:
        return None
    try:
        return orjson.loads(first)
    except orjson.JSONDecodeError:
        return None
