"""The body of an OTLP/HTTP request, read within a size limit, before and after gunzip.

The limit applies three times: to the declared ``Content-Length`` (refused before any byte is
read), to the bytes actually received (a sender may declare nothing, or lie), and to the bytes
that gzip decompression yields. Decompression streams with a cap on its output, so a small
"gzip bomb" that would expand to gigabytes is refused after ``max_bytes + 1`` bytes of output,
never held in memory whole. Concatenated gzip members (RFC 1952 allows them) are all read, in
one pass over the body however many there are; a body of none (no bytes) is an empty request.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterable, Callable
from typing import Final, Literal

from trailcheck.serve.refusal import (
    BAD_REQUEST,
    PAYLOAD_TOO_LARGE,
    UNSUPPORTED_MEDIA_TYPE,
    RequestRefused,
)

__all__ = [
    "BodyEncoding",
    "body_encoding",
    "check_declared_length",
    "gunzip_capped",
    "is_gzip",
    "read_capped",
]

BodyEncoding = Literal["protobuf", "json"]

_MEDIA_TYPES: Final[dict[str, BodyEncoding]] = {
    "application/x-protobuf": "protobuf",
    "application/json": "json",
}
_GZIP_WINDOW: Final = 16 + zlib.MAX_WBITS  # zlib's flag for a gzip header and trailer
_IDENTITY: Final = frozenset({"", "identity"})
# The first piece of a gzip member fed to zlib, and the largest: a member is at least 20 bytes.
_FIRST_PIECE: Final = 64
_LARGEST_PIECE: Final = 1 << 20
# The most output one call to zlib makes, so that it is reserved before it is made.
_OUTPUT_STEP: Final = 2 * _LARGEST_PIECE


def body_encoding(content_type: str | None) -> BodyEncoding:
    """Protobuf or JSON from the Content-Type (parameters such as charset are ignored)."""
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    if media_type in _MEDIA_TYPES:
        return _MEDIA_TYPES[media_type]
    supported = " or ".join(_MEDIA_TYPES)
    raise RequestRefused(
        UNSUPPORTED_MEDIA_TYPE,
        f"unsupported Content-Type {content_type or '(none)'!r}: OTLP/HTTP posts {supported}",
    )


def is_gzip(content_encoding: str | None) -> bool:
    """True for ``gzip``; False for none or ``identity``; any other coding is refused."""
    coding = (content_encoding or "").strip().lower()
    if coding == "gzip":
        return True
    if coding in _IDENTITY:
        return False
    raise RequestRefused(
        UNSUPPORTED_MEDIA_TYPE,
        f"unsupported Content-Encoding {content_encoding!r}: only gzip (or none) is accepted",
    )


def _too_large(what: str, max_bytes: int, size: int | None = None) -> RequestRefused:
    measured = "over the limit" if size is None else f"{size} bytes, over the limit"
    return RequestRefused(PAYLOAD_TOO_LARGE, f"{what} is {measured} of {max_bytes} bytes")


def check_declared_length(content_length: str | None, max_bytes: int) -> None:
    """Refuse a declared Content-Length over the limit before reading the body."""
    if content_length is None:
        return
    try:
        declared = int(content_length)
    except ValueError:
        raise RequestRefused(
            BAD_REQUEST, f"Content-Length {content_length!r} is not a number"
        ) from None
    if declared > max_bytes:
        raise _too_large("the declared Content-Length", max_bytes, declared)


async def read_capped(chunks: AsyncIterable[bytes], max_bytes: int) -> bytes:
    """All the chunks, refused with 413 as soon as they pass ``max_bytes``."""
    received = bytearray()
    async for chunk in chunks:
        received += chunk
        if len(received) > max_bytes:
            raise _too_large("the body", max_bytes)
    return bytes(received)


def gunzip_capped(data: bytes, max_bytes: int, grow: Callable[[int], None] | None = None) -> bytes:
    """The decompressed bytes of a gzip body, refused with 413 past ``max_bytes`` of output and
    with 400 when the body is not (whole) gzip. A body of no bytes is a series of no members: an
    empty request, as a body of no bytes without gzip is.

    ``grow`` is told the bytes of output so far each time they grew, at most
    :data:`_OUTPUT_STEP` at a time, before more are made: it may stop the gunzip by raising
    (the server reserves them beside the body, and refuses with 503 when they do not fit)."""
    output = bytearray()
    body = memoryview(data)
    position = 0
    while position < len(body):
        position = _inflate_member(body, position, output, max_bytes, grow)
    return bytes(output)


def _inflate_member(
    body: memoryview,
    position: int,
    output: bytearray,
    max_bytes: int,
    grow: Callable[[int], None] | None,
) -> int:
    """Inflate the gzip member that starts at ``position`` onto ``output``; where it ends.

    zlib copies what it is given past a member's end (``unused_data``), so the member is fed in
    pieces of :data:`_FIRST_PIECE` bytes, doubling while it goes on (to :data:`_LARGEST_PIECE`):
    the copy is never longer than ``_FIRST_PIECE`` plus the member itself, and a body of many
    members is read once, not once more per member. The pieces are views, never copies. Each
    call makes at most :data:`_OUTPUT_STEP` bytes (more than a piece of incompressible bytes
    makes), so that ``grow`` hears of the output a step at a time, however compressed the
    body: what zlib did not take for that (``unconsumed_tail``) is fed again, and what it holds
    back is asked for with no more input."""
    inflater = zlib.decompressobj(_GZIP_WINDOW)
    size = _FIRST_PIECE
    while True:
        piece = body[position : position + size]
        step = min(max_bytes + 1 - len(output), _OUTPUT_STEP)
        try:
            made = inflater.decompress(piece, step)
        except zlib.error as error:
            raise RequestRefused(BAD_REQUEST, f"the gzip body is not valid: {error}") from None
        if not piece and not made:  # no more body, and zlib has nothing more: cut short
            raise RequestRefused(BAD_REQUEST, "the gzip body is truncated before its end")
        output += made
        if len(output) > max_bytes:
            raise _too_large("the body after gunzip", max_bytes)
        if made and grow is not None:
            grow(len(output))
        # zlib takes the whole piece, less what follows the member's end or did not fit a step.
        position += len(piece) - len(inflater.unconsumed_tail) - len(inflater.unused_data)
        if inflater.eof:
            return position
        size = min(2 * size, _LARGEST_PIECE)
