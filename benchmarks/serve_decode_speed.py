"""Decoding hostile bodies in ``trailcheck serve``: gzip of many members, and a logs body of tiny
fields, against zlib on the same bytes.

(1) Bodies of 1, 4 and 16 MB made of gzip members of 16 random bytes each (about 36 bytes of
gzip a member): ``gunzip_capped`` of each, against the baseline ``zlib.decompress`` of one member
holding the same payload; beside it the floor of the format, ``zlib.decompress`` of each member
on its own in a loop (its members known beforehand); and, up to ``--previous-mb``, the previous
decoder, which handed zlib the rest of the body again after each member (kept to show what that
cost).
(2) A logs body of 16 KB of gzip (16 MB of zero bytes inflated): what the receiver does with it
(``gunzip_capped``, then ``decode_logs_export``, which refuses it) against ``zlib.decompress``
of it; and the walk in Python of its fields that ``/v1/logs`` ran first before issue 35 (it is
still what ``holds_log_records`` does with bytes that are not whole protobuf, a file cut off).

Prints medians over the rounds, the ratio to the baseline, and the load::

    uv run python benchmarks/serve_decode_speed.py [--rounds 3] [--previous-mb 1]
"""

from __future__ import annotations

import argparse
import gzip
import random
import statistics
import time
import zlib
from collections.abc import Callable
from functools import partial
from typing import Any

from scale_speed import loadavg
from trailcheck.importing.transport.otlp_proto import holds_log_records
from trailcheck.serve.body import gunzip_capped
from trailcheck.serve.log_export import decode_logs_export
from trailcheck.serve.refusal import RequestRefused

MB = 1024 * 1024
GZIP_WINDOW = 16 + zlib.MAX_WBITS
MEMBER_PAYLOAD = 16


def seconds(work: Callable[[], Any], rounds: int) -> float:
    """The median wall time of ``work()`` over ``rounds``."""
    times = []
    for _ in range(rounds):
        began = time.perf_counter()
        work()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def members_body(size: int, seed: int = 35) -> tuple[list[bytes], bytes]:
    """About ``size`` bytes of gzip members, and the payload they hold."""
    rng = random.Random(seed)
    parts: list[bytes] = []
    members: list[bytes] = []
    total = 0
    while total < size:
        part = rng.randbytes(MEMBER_PAYLOAD)
        member = gzip.compress(part, mtime=0)
        parts.append(part)
        members.append(member)
        total += len(member)
    return members, b"".join(parts)


def previous_gunzip(data: bytes) -> bytes:
    """The decoder before issue 35: the rest of the body went to a new inflater after each member
    (``unused_data``, a copy of it), so a body of n members was copied n times."""
    output = bytearray()
    remaining = data
    while remaining:
        inflater = zlib.decompressobj(GZIP_WINDOW)
        output += inflater.decompress(remaining)
        remaining = inflater.unused_data
    return bytes(output)


def each_member(members: list[bytes]) -> None:
    for member in members:
        zlib.decompress(member, GZIP_WINDOW)


def refused(body: bytes) -> None:
    try:
        decode_logs_export(gunzip_capped(body, 16 * MB), "protobuf")
    except RequestRefused:
        return
    raise AssertionError("a body of zero bytes was not refused")


def gzip_members(rounds: int, previous_mb: int) -> None:
    print(f"(1) gzip members of {MEMBER_PAYLOAD} random bytes, median of {rounds} round(s)")
    print(
        f"{'body':>6} {'members':>8} {'baseline':>9} {'each member':>12} {'gunzip_capped':>14}"
        f" {'ratio':>6} {'us/member':>9} {'previous':>10}"
    )
    for size_mb in (1, 4, 16):
        members, payload = members_body(size_mb * MB)
        body, count = b"".join(members), len(members)
        single = gzip.compress(payload, mtime=0)
        assert gunzip_capped(body, 64 * MB) == payload == zlib.decompress(single, GZIP_WINDOW)
        baseline = seconds(partial(zlib.decompress, single, GZIP_WINDOW), rounds)
        floor = seconds(partial(each_member, members), rounds)
        ours = seconds(partial(gunzip_capped, body, 64 * MB), rounds)
        previous = "skipped"
        if size_mb <= previous_mb:
            previous = f"{seconds(partial(previous_gunzip, body), 1):9.3f}s"
        print(
            f"{size_mb:>4}MB {count:>8} {baseline:8.4f}s {floor:11.4f}s {ours:13.4f}s"
            f" {ours / baseline:5.0f}x"
            f" {ours / count * 1e6:9.2f} {previous:>10}"
        )


def logs_body(rounds: int) -> None:
    inflated = bytes(16 * MB)
    body = gzip.compress(inflated, compresslevel=9, mtime=0)
    baseline = seconds(lambda: zlib.decompress(body, GZIP_WINDOW), rounds)
    ours = seconds(lambda: refused(body), rounds)
    walk = seconds(lambda: holds_log_records(inflated), 1)
    print(f"(2) a logs body of {len(body) / 1024:.0f} KB of gzip, 16 MB of zero bytes inflated")
    print(f"zlib.decompress (baseline)                {baseline:8.4f}s   1.0x")
    print(f"gunzip_capped + decode_logs_export (400)  {ours:8.4f}s {ours / baseline:5.1f}x")
    print(f"the previous pre-scan (a walk in Python)  {walk:8.4f}s {walk / baseline:5.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--previous-mb", type=int, default=1, help="run the previous decoder up to this size"
    )
    args = parser.parse_args()
    print(f"load average before: {loadavg()}")
    gzip_members(args.rounds, args.previous_mb)
    logs_body(args.rounds)
    print(f"load average after: {loadavg()}")


if __name__ == "__main__":
    main()
