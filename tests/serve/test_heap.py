"""Giving freed memory back when idle, with a resident set, a trim and a clock the test drives:
it trims only once the resident set grew by the threshold over the least it has been, and after
a trim that gave little back it waits, twice as long each time, up to a minute."""

from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass, field

import pytest

from trailcheck.serve.heap import TRIM_GROWTH_BYTES, HeapTrim, resident_bytes, trim_heap

MiB = 1024 * 1024


@dataclass
class FakeProcess:
    """A resident set the test sets, a trim that frees ``frees`` bytes, and a clock in seconds."""

    resident: int | None = 100 * MiB
    frees: int = 0
    can_trim: bool = True
    now_s: float = 1000.0
    trims: list[float] = field(default_factory=list)

    def read_resident(self) -> int | None:
        return self.resident

    def trim(self) -> bool:
        if not self.can_trim:
            return False
        self.trims.append(self.now_s)
        assert self.resident is not None
        self.resident -= self.frees
        return True

    def clock(self) -> float:
        return self.now_s

    def heap_trim(self) -> HeapTrim:
        return HeapTrim(resident=self.read_resident, trim=self.trim, clock=self.clock)


def test_it_trims_once_the_resident_set_grew_by_the_threshold() -> None:
    process = FakeProcess(frees=200 * MiB)
    heap_trim = process.heap_trim()
    process.resident = 100 * MiB + TRIM_GROWTH_BYTES - 1
    assert not heap_trim()
    assert process.trims == []

    process.resident = 300 * MiB  # a burst of large bodies, freed but kept by malloc
    assert heap_trim()
    assert process.trims == [1000.0]
    assert process.resident == 100 * MiB  # back to the baseline


def test_the_threshold_is_over_the_least_resident_set_seen() -> None:
    process = FakeProcess(resident=120 * MiB, frees=30 * MiB)
    heap_trim = process.heap_trim()
    process.resident = 90 * MiB  # less than at the start: the new least
    assert not heap_trim()
    process.resident = 90 * MiB + TRIM_GROWTH_BYTES  # over the least by the threshold
    assert heap_trim()
    assert len(process.trims) == 1


def test_after_a_futile_trim_it_waits_twice_as_long_each_time_up_to_a_minute() -> None:
    process = FakeProcess(frees=MiB - 1)  # gives back less than a MiB: the memory is in use
    heap_trim = process.heap_trim()
    process.resident = 500 * MiB
    while len(process.trims) < 10:
        heap_trim()  # called every quarter second while idle, as the server's watch does
        process.now_s += 0.25
    waits = [later - earlier for earlier, later in itertools.pairwise(process.trims)]
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 64.0, 64.0]


def test_a_trim_that_gives_memory_back_needs_no_wait() -> None:
    process = FakeProcess(frees=MiB - 1)
    heap_trim = process.heap_trim()
    process.resident = 500 * MiB
    assert heap_trim()  # futile: the next waits a second
    assert not heap_trim()
    process.now_s += 1.0
    process.frees = 300 * MiB
    assert heap_trim()  # gave back: no wait before the next
    process.resident += 200 * MiB
    assert heap_trim()
    assert process.trims == [1000.0, 1001.0, 1001.0]


def test_without_a_resident_set_or_a_malloc_trim_it_does_nothing() -> None:
    no_proc = FakeProcess(resident=None)
    assert not no_proc.heap_trim()()
    assert no_proc.trims == []

    no_trim = FakeProcess(can_trim=False)
    heap_trim = no_trim.heap_trim()
    no_trim.resident = 900 * MiB
    assert not heap_trim()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc, glibc")
def test_on_linux_the_resident_set_is_read_and_the_heap_trimmed() -> None:
    before = resident_bytes()
    assert before is not None
    assert before > MiB
    assert trim_heap() is True
