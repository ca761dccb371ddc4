"""OTLP trace and span ids, as the lowercase hex trailcheck keeps them.

Protobuf carries an id as raw bytes (:func:`bytes_id`). OTLP/JSON writes it as hex
(:func:`hex_id`), unlike the protobuf JSON mapping, which writes every bytes field in base64:
protobuf-to-JSON tools (``google.protobuf.json_format.MessageToJson`` and its kin) therefore write
ids in base64 (:func:`base64_id`). Which encoding an OTLP/JSON file uses is the reader's
:data:`IdEncoding`, one for the whole file: an id in the other encoding is rejected, never
guessed, since a hex id is valid base64 text too. The rejection carries a hint naming the
encoding it looks like; the OTLP/JSON reader keeps the hint on the first such rejection of each
file only.
"""

from __future__ import annotations

import binascii
import contextlib
import dataclasses
import re
from collections.abc import Iterable, Iterator
from typing import Final, Literal

from trailcheck.errors import RecordError
from trailcheck.importing.records import Rejection, SpanItem
from trailcheck.importing.transport.otlp_values import decode_base64, shown

__all__ = [
    "BASE64_IDS_HINT",
    "HEX_IDS_HINT",
    "IdEncoding",
    "base64_id",
    "bytes_id",
    "hex_id",
    "hint_once",
    "json_id",
]

IdEncoding = Literal["hex", "base64"]

BASE64_IDS_HINT: Final = (
    "it looks like base64, as protobuf-to-JSON tools write ids, but OTLP/JSON writes them in"
    " hex; import a file with base64 ids with --ids base64"
)
HEX_IDS_HINT: Final = (
    "it looks like hex, as OTLP/JSON writes ids, but the file is read with base64 ids"
    " (--ids base64)"
)

_HEX: Final = re.compile(r"[0-9a-fA-F]*")
# Standard or URL-safe base64, padded or not: what the protobuf JSON mapping accepts for bytes.
_BASE64: Final = re.compile(r"[A-Za-z0-9+/_-]*={0,2}")


def json_id(text: str, size: int, path: str, ids: IdEncoding) -> str:
    """An OTLP/JSON id of ``size`` bytes written in ``ids``, as lowercase hex."""
    return base64_id(text, size, path) if ids == "base64" else hex_id(text, size, path)


def hex_id(text: str, size: int, path: str) -> str:
    """An id of ``size`` bytes written as hex (any case), as lowercase hex."""
    if len(text) != 2 * size or not _HEX.fullmatch(text):
        looks_base64 = len(text) == 4 * -(-size // 3) and _BASE64.fullmatch(text)
        raise RecordError(
            f"must be {2 * size} hex digits, got {shown(text)}",
            field=path,
            hint=BASE64_IDS_HINT if looks_base64 else None,
        )
    return _nonzero(text.lower(), path)


def base64_id(text: str, size: int, path: str) -> str:
    """An id of ``size`` bytes written in base64 (standard or URL-safe, padded or not), as
    lowercase hex."""
    raw = None
    if _BASE64.fullmatch(text):
        with contextlib.suppress(binascii.Error):
            raw = decode_base64(text)
    if raw is None or len(raw) != size:
        got = "not base64" if raw is None else f"{len(raw)} bytes"
        looks_hex = len(text) == 2 * size and _HEX.fullmatch(text)
        raise RecordError(
            f"must be {size} bytes in base64, got {shown(text)} ({got})",
            field=path,
            hint=HEX_IDS_HINT if looks_hex else None,
        )
    return _nonzero(raw.hex(), path)


def bytes_id(raw: bytes, size: int, path: str) -> str:
    """An id of ``size`` raw bytes (protobuf), as lowercase hex."""
    if len(raw) != size:
        raise RecordError(f"must be {size} bytes, got {len(raw)}", field=path)
    return _nonzero(raw.hex(), path)


def _nonzero(hex_text: str, path: str) -> str:
    if not hex_text.strip("0"):
        raise RecordError("is all zeros, which OpenTelemetry defines as no id", field=path)
    return hex_text


def hint_once(items: Iterable[SpanItem]) -> Iterator[SpanItem]:
    """The items of one input, each hint kept on the first Rejection that gives it: ids that
    look like base64 rarely come alone, and the reason is the same for every one of them."""
    given: set[str] = set()
    for item in items:
        hint = item.hint if isinstance(item, Rejection) else None
        if isinstance(item, Rejection) and hint in given:
            item = dataclasses.replace(item, hint=None)
        elif hint is not None:
            given.add(hint)
        yield item
