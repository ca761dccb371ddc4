"""Giving freed memory back to the system after a burst of large requests.

glibc's malloc keeps the memory a process frees for its own reuse, in the middle of its heap,
and once a large buffer was freed it raises the size from which buffers get their own mapping
(which would go back at once): after a burst of large bodies, freed but kept, the resident set
can stay near its peak for as long as the process lives. ``malloc_trim(0)`` hands the free pages
back. :class:`HeapTrim`, called when the server is idle, trims when the resident set is
:data:`TRIM_GROWTH_BYTES` over the least it has been; a trim that gives little back (the memory
is in use: a cache grew) makes the next wait twice as long, up to a minute. Where there is no
``malloc_trim`` (macOS, musl, Windows) or no ``/proc``, it does nothing.
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

__all__ = ["TRIM_GROWTH_BYTES", "HeapTrim", "resident_bytes", "trim_heap"]

TRIM_GROWTH_BYTES: Final = 8 * 1024 * 1024
# Less than this given back, the trim was futile: the memory is in use.
_GAVE_BACK_BYTES: Final = 1024 * 1024
_LONGEST_WAIT_S: Final = 64.0
_STATM: Final = Path("/proc/self/statm")


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    return trim


def trim_heap() -> bool:
    """Give the heap's free pages back to the system (``malloc_trim(0)``; ctypes releases the
    GIL while it runs); False where there is no ``malloc_trim``."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


def resident_bytes() -> int | None:
    """This process's resident set in bytes (``/proc/self/statm``), or None without /proc."""
    try:
        pages = int(_STATM.read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


class HeapTrim:
    """Trims the heap when the resident set is ``growth_bytes`` over the least it has been;
    call it when the server is idle. After a trim that gave back less than a MiB, it waits
    before the next: one second, then twice as long each time, up to :data:`_LONGEST_WAIT_S`."""

    def __init__(
        self,
        growth_bytes: int = TRIM_GROWTH_BYTES,
        *,
        resident: Callable[[], int | None] = resident_bytes,
        trim: Callable[[], bool] = trim_heap,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._growth = growth_bytes
        self._resident = resident
        self._trim = trim
        self._clock = clock
        self._least = resident()
        self._wait_s = 0.0
        self._next_s = -math.inf

    def __call__(self) -> bool:
        """Trim if the resident set is far enough over its least and no wait is running;
        whether it trimmed."""
        before = self._resident()
        if before is None or self._least is None:
            return False
        self._least = min(self._least, before)
        if before < self._least + self._growth or self._clock() < self._next_s:
            return False
        if not self._trim():
            return False
        after = self._resident() or before
        self._least = min(self._least, after)
        futile = before - after < _GAVE_BACK_BYTES
        self._wait_s = min(max(2 * self._wait_s, 1.0), _LONGEST_WAIT_S) if futile else 0.0
        self._next_s = self._clock() + self._wait_s
        return True
