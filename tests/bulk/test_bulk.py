"""Chunks of whole lines, and results in input order from worker processes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.waiting import GUARD_S
from trailcheck.bulk import chunk_lines, line_chunks, ordered_map
from trailcheck.bulk.pool import start_method

pytestmark = pytest.mark.live


def _lines_of(path: Path, chunk_bytes: int) -> list[tuple[int, bytes]]:
    """Each line with its number in the file: a chunk's numbers after the lines before it."""
    numbered: list[tuple[int, bytes]] = []
    for chunk in line_chunks(path, chunk_bytes):
        assert chunk.starts_file == (not numbered)
        numbered += [(len(numbered) + number, line) for number, line in chunk_lines(chunk)]
    return numbered


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=30),
    last_newline=st.booleans(),
    chunk_bytes=st.integers(min_value=1, max_value=64),
)
def test_chunks_cover_the_file_exactly_with_each_line_numbered_as_a_file_read_numbers_it(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[bytes],
    last_newline: bool,
    chunk_bytes: int,
) -> None:
    data = b"\n".join(lines) + (b"\n" if last_newline and lines else b"")
    path = tmp_path_factory.mktemp("chunks") / "input.jsonl"
    path.write_bytes(data)
    with path.open("rb") as stream:
        expected = list(enumerate(stream, start=1))
    assert _lines_of(path, chunk_bytes) == expected
    chunks = list(line_chunks(path, chunk_bytes))
    assert sum(chunk.length for chunk in chunks) == len(data)
    assert all(chunk.length > 0 for chunk in chunks)


def test_a_carriage_return_inside_a_line_does_not_end_it(tmp_path: Path) -> None:
    path = tmp_path / "input.jsonl"
    path.write_bytes(b'{"a":\r1}\n{"b":2}\n')
    assert _lines_of(path, 4) == [(1, b'{"a":\r1}\n'), (2, b'{"b":2}\n')]


def _square(number: int) -> int:
    if number == 13:
        raise ValueError("13 is refused")
    return number * number


def _pid(_: int) -> int:
    return os.getpid()


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_results_come_in_input_order(workers: int) -> None:
    assert list(ordered_map(_square, range(12), workers=workers)) == [n * n for n in range(12)]


def test_work_runs_in_worker_processes_only_when_there_is_more_than_one() -> None:
    assert set(ordered_map(_pid, range(4), workers=1)) == {os.getpid()}
    assert os.getpid() not in set(ordered_map(_pid, range(8), workers=2))
    assert list(ordered_map(_pid, [], workers=2)) == []


def test_a_worker_error_is_raised_in_its_turn_after_the_results_before_it() -> None:
    results = ordered_map(_square, range(20), workers=2)
    assert [next(results) for _ in range(13)] == [n * n for n in range(13)]
    with pytest.raises(ValueError, match="13 is refused"):
        next(results)


def test_workers_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        list(ordered_map(_square, range(3), workers=0))


# Held by a thread of the parent in the test below; a worker takes it for each item.
_LOCK = threading.Lock()


def _square_under_lock(number: int) -> int:
    with _LOCK:
        return number * number


def test_workers_never_inherit_a_lock_another_thread_holds() -> None:
    # A worker forked now would start with _LOCK held by a thread it does not have, and wait
    # for it forever; workers started from a fork server get the lock free.
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with _LOCK:
            held.set()
            release.wait(GUARD_S)  # a guard against a hang only

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        held.wait(GUARD_S)
        assert start_method() == "forkserver"
        assert list(ordered_map(_square_under_lock, range(6), workers=2)) == [
            n * n for n in range(6)
        ]
    finally:
        release.set()
        holder.join()


def test_a_process_of_one_thread_forks_its_workers() -> None:
    # Fast to start, with the parent's imports. (Run where no other thread is alive: a test
    # process that has used Ray keeps Ray's threads, and then the fork server is right.)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from trailcheck.bulk.pool import start_method; print(start_method())",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=GUARD_S,  # a guard against a hang only
    )
    assert done.stdout.strip() == "fork"
