"""Gunzip of a body of many gzip members: every member read, in one pass over the body.

The pass is checked by counting what the decoder asks of zlib (inflaters made, bytes fed, bytes
zlib copies aside past a member's end), never by timing it: a body of twice the members costs
twice the work, where reading the rest of the body again after each member cost the square.
"""

from __future__ import annotations

import gzip
import itertools
import random
import zlib
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.serve.memory_store import MemoryStore
from trailcheck.serve import body as body_module
from trailcheck.serve.body import gunzip_capped
from trailcheck.serve.refusal import RequestRefused


def member(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def members(count: int) -> tuple[bytes, bytes]:
    """A body of ``count`` one-byte members, some empty, and what it decompresses to."""
    parts = [bytes([index % 7]) * (index % 3) for index in range(count)]
    return b"".join(member(part) for part in parts), b"".join(parts)


@dataclass
class ZlibWork:
    """What the decoder asked of zlib."""

    inflaters: int = 0
    calls: int = 0
    fed: int = 0
    copied: int = 0  # unused_data and unconsumed_tail: zlib copies them out of the input

    def reset(self) -> None:
        self.inflaters = self.calls = self.fed = self.copied = 0


class _CountingInflater:
    def __init__(self, work: ZlibWork, wbits: int) -> None:
        self._work = work
        self._inflater = zlib.decompressobj(wbits)
        work.inflaters += 1

    def decompress(self, data: Any, max_length: int = 0) -> bytes:
        self._work.calls += 1
        self._work.fed += len(data)
        output = self._inflater.decompress(data, max_length)
        self._work.copied += len(self.unused_data) + len(self.unconsumed_tail)
        return output

    @property
    def eof(self) -> bool:
        return self._inflater.eof

    @property
    def unused_data(self) -> bytes:
        return self._inflater.unused_data

    @property
    def unconsumed_tail(self) -> bytes:
        return self._inflater.unconsumed_tail


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> ZlibWork:
    """What the decoder asks of zlib from here on (``reset()`` starts the count again)."""
    counted = ZlibWork()
    counting_zlib = SimpleNamespace(
        MAX_WBITS=zlib.MAX_WBITS,
        error=zlib.error,
        decompressobj=lambda wbits: _CountingInflater(counted, wbits),
    )
    monkeypatch.setattr(body_module, "zlib", counting_zlib)
    return counted


# --- what is read ----------------------------------------------------------------------------


def test_many_tiny_members_are_all_read() -> None:
    body, expected = members(5000)
    assert gunzip_capped(body, len(expected)) == expected


def test_members_with_no_output_add_nothing() -> None:
    assert gunzip_capped(member(b"") * 100, 10) == b""
    assert gunzip_capped(member(b"") + member(b"ab") + member(b"") + member(b"c"), 3) == b"abc"


def test_large_members_between_small_ones() -> None:
    noise = random.Random(35).randbytes(3 * 1024 * 1024)  # incompressible: several pieces each
    body = member(b"a") + member(noise) + member(b"") + member(noise[:70_000]) + member(b"z")
    expected = b"a" + noise + noise[:70_000] + b"z"
    assert gunzip_capped(body, len(expected)) == expected


def test_a_body_of_no_bytes_is_an_empty_request() -> None:
    # RFC 1952: a gzip file is a series of members, and a series may be empty (Python's
    # gzip.decompress(b"") is b""); OTLP reads the empty body as an empty export.
    assert gunzip_capped(b"", 10) == b""
    assert gunzip_capped(b"", 0) == b""


def test_a_member_of_nothing_is_an_empty_request() -> None:
    # An exporter gzipping an empty export sends one member of no bytes (20 bytes of gzip).
    assert gunzip_capped(member(b""), 0) == b""


@pytest.mark.parametrize("content", [b"", member(b""), member(b"") * 3])
@pytest.mark.parametrize("path", ["/v1/traces", "/v1/logs"])
def test_an_empty_gzip_export_is_accepted_and_stores_nothing(
    client: TestClient, store: MemoryStore, path: str, content: bytes
) -> None:
    response = client.post(
        path,
        content=content,
        headers={"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"},
    )
    assert response.status_code == 200, response.text
    assert store.traces == {}


# --- what is refused -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cut",
    [
        pytest.param(lambda whole: whole[:-1], id="last member without its trailer's last byte"),
        pytest.param(lambda whole: whole[:-8], id="last member without its trailer"),
        pytest.param(lambda whole: whole + member(b"x" * 500)[:15], id="a member cut short"),
        pytest.param(lambda whole: whole + member(b"")[:5], id="a member cut in its header"),
    ],
)
def test_a_truncated_last_member_is_400(cut: Any) -> None:
    body, expected = members(300)
    with pytest.raises(RequestRefused, match="truncated before its end") as raised:
        gunzip_capped(cut(body), 10 * len(expected))
    assert raised.value.status == 400


@pytest.mark.parametrize(
    "tail", [b"\0" * 20, b"plain text after the members", member(b"ab")[:2] + b"\0" * 30]
)
def test_bytes_after_the_members_that_are_not_gzip_are_400(tail: bytes) -> None:
    body, expected = members(300)
    with pytest.raises(RequestRefused, match="not valid") as raised:
        gunzip_capped(body + tail, 10 * len(expected))
    assert raised.value.status == 400


def test_the_cap_counts_every_member() -> None:
    body, expected = members(3000)
    assert gunzip_capped(body, len(expected)) == expected
    with pytest.raises(RequestRefused, match="after gunzip is over the limit") as raised:
        gunzip_capped(body, len(expected) - 1)
    assert raised.value.status == 413


def test_a_bomb_of_many_members_stops_at_the_cap(work: ZlibWork) -> None:
    bomb = member(b"\0" * (1024 * 1024)) * 64
    with pytest.raises(RequestRefused) as raised:
        gunzip_capped(bomb, 4 * 1024 * 1024)
    assert raised.value.status == 413
    assert work.inflaters == 5  # four members fit, the fifth passes the cap


# --- one pass over the body ------------------------------------------------------------------


def test_the_work_is_linear_in_the_members(work: ZlibWork) -> None:
    done: list[ZlibWork] = []
    for count in (1000, 2000, 4000):
        body, expected = members(count)
        work.reset()
        assert gunzip_capped(body, len(expected)) == expected
        assert work.inflaters == count
        assert work.calls == count  # a one-byte member fits in the first piece fed
        # Each member is fed at most one first piece more than its length, and what zlib
        # copies past a member's end is shorter than that piece. Reading the rest of the body
        # again after each member fed count/2 times the body.
        assert work.fed <= 2 * len(body) + 64 * count
        assert work.copied <= len(body) + 64 * count
        done.append(replace(work))
    for smaller, larger in itertools.pairwise(done):
        assert larger.fed <= 2.1 * smaller.fed
        assert larger.copied <= 2.1 * smaller.copied


def test_one_large_member_is_fed_once(work: ZlibWork) -> None:
    noise = random.Random(7).randbytes(5 * 1024 * 1024)
    body = member(noise)
    assert gunzip_capped(body, len(noise)) == noise
    assert work.inflaters == 1
    assert work.fed == len(body)
    assert work.copied == 0


# --- the output reserved as it grows -----------------------------------------------------------

STEP = 2 * 1024 * 1024  # body._OUTPUT_STEP


def test_grow_hears_of_the_output_a_step_at_a_time_however_compressed() -> None:
    payload = b"\0" * (9 * 1024 * 1024 + 5)  # ~9 KB of gzip: one call would make it all
    told: list[int] = []
    assert gunzip_capped(member(payload), len(payload), told.append) == payload
    assert told[-1] == len(payload)
    assert told == sorted(told)
    steps = [later - earlier for earlier, later in itertools.pairwise([0, *told])]
    assert max(steps) <= STEP
    assert len(told) >= len(payload) // STEP


def test_grow_counts_every_member() -> None:
    body, expected = members(300)
    told: list[int] = []
    assert gunzip_capped(body, len(expected), told.append) == expected
    assert told[-1] == len(expected)


def test_a_grow_that_refuses_stops_the_gunzip_within_a_step() -> None:
    made: list[int] = []

    def room_for_3_mib(gunzipped: int) -> None:
        made.append(gunzipped)
        if gunzipped > 3 * 1024 * 1024:
            raise RequestRefused(503, "no room")

    with pytest.raises(RequestRefused, match="no room"):
        gunzip_capped(member(b"\0" * (12 * 1024 * 1024)), 16 * 1024 * 1024, room_for_3_mib)
    assert made[-1] <= 3 * 1024 * 1024 + STEP  # never more than a step past the room


def test_output_in_steps_is_whole_however_the_steps_fall_across_members() -> None:
    payload = random.Random(35).randbytes(1000) * 3000  # 3 MB each, ~60 KB of gzip
    body = member(payload) + member(b"") + member(payload[:-7]) + member(b"end")
    expected = payload + payload[:-7] + b"end"
    told: list[int] = []
    assert gunzip_capped(body, len(expected), told.append) == expected
    assert told[-1] == len(expected)
    with pytest.raises(RequestRefused, match="truncated before its end"):
        gunzip_capped(body[:-1], len(expected), told.append)
