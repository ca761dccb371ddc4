"""Reading a body within its limit: declared, received, and after gunzip."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import AsyncIterator

import pytest

from trailcheck.serve.body import (
    body_encoding,
    check_declared_length,
    gunzip_capped,
    is_gzip,
    read_capped,
)
from trailcheck.serve.refusal import RequestRefused


def _read(chunks: list[bytes], limit: int) -> bytes:
    async def stream() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    return asyncio.run(read_capped(stream(), limit))


def test_read_capped_joins_chunks_up_to_the_limit() -> None:
    assert _read([b"ab", b"cd", b""], 4) == b"abcd"


def test_read_capped_refuses_one_byte_over() -> None:
    with pytest.raises(RequestRefused) as raised:
        _read([b"ab", b"cde"], 4)
    assert raised.value.status == 413


def test_gunzip_round_trips_and_reads_concatenated_members() -> None:
    assert gunzip_capped(gzip.compress(b"x" * 1000), 1000) == b"x" * 1000
    assert gunzip_capped(gzip.compress(b"ab") + gzip.compress(b"cd"), 4) == b"abcd"


@pytest.mark.parametrize(
    ("body", "limit", "status", "message"),
    [
        (gzip.compress(b"x" * 1001), 1000, 413, "after gunzip is over the limit of 1000"),
        (gzip.compress(b"x" * 5000)[:-12], 10_000, 400, "truncated"),
        (b"\x1f\x8b", 10, 400, "truncated"),
        (b"plain", 10, 400, "not valid"),
        (gzip.compress(b"ab") + gzip.compress(b"cd"), 3, 413, "after gunzip"),
    ],
)
def test_gunzip_refusals(body: bytes, limit: int, status: int, message: str) -> None:
    with pytest.raises(RequestRefused, match=message) as raised:
        gunzip_capped(body, limit)
    assert raised.value.status == status


def test_a_bomb_is_refused_without_inflating_it_whole() -> None:
    bomb = gzip.compress(b"\0" * (64 * 1024 * 1024), compresslevel=9)
    with pytest.raises(RequestRefused) as raised:
        gunzip_capped(bomb, 1024)
    assert raised.value.status == 413


def test_declared_length() -> None:
    check_declared_length(None, 10)
    check_declared_length("10", 10)
    with pytest.raises(RequestRefused, match="11 bytes, over the limit of 10") as raised:
        check_declared_length("11", 10)
    assert raised.value.status == 413
    with pytest.raises(RequestRefused, match="not a number"):
        check_declared_length("ten", 10)


def test_content_types_and_encodings() -> None:
    assert body_encoding("application/x-protobuf") == "protobuf"
    assert body_encoding("Application/JSON; charset=utf-8") == "json"
    with pytest.raises(RequestRefused) as raised:
        body_encoding("application/xml")
    assert raised.value.status == 415
    assert is_gzip("GZIP")
    assert not is_gzip(None)
    assert not is_gzip("identity")
    with pytest.raises(RequestRefused):
        is_gzip("deflate")
