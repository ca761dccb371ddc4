"""Repetition in a sequence of calls, by their keys: a run of calls repeated back to back (a
loop) and one call repeated in a row. What counts as the same call is the caller's (the
efficiency scorer passes tool names or canonical keys)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

__all__ = ["Loop", "Repeat", "find_loops", "find_repeats"]


@dataclass(frozen=True, slots=True)
class Loop:
    """``block`` (calls ``start .. start + len(block)``) repeated ``repeats`` times in a row."""

    start: int
    block: tuple[Hashable, ...]
    repeats: int


def _is_primitive(block: Sequence[Hashable]) -> bool:
    """Not a repetition of a shorter block (``a b`` is; ``a b a b`` and ``a a`` are not)."""
    size = len(block)
    return not any(
        size % period == 0 and list(block) == list(block[:period]) * (size // period)
        for period in range(1, size)
    )


def find_loops(keys: Sequence[Hashable], min_repeats: int) -> list[Loop]:
    """Every maximal stretch where a primitive run of length >= 2 repeats ``min_repeats`` or
    more times in a row, by run length then start."""
    found: list[Loop] = []
    for size in range(2, len(keys) // min_repeats + 1):
        matches = [keys[j] == keys[j + size] for j in range(len(keys) - size)] + [False]
        start = 0
        for j, match in enumerate(matches):
            if match:
                continue
            repeats = (j - start + size) // size  # keys[start : j + size] has period ``size``
            block = tuple(keys[start : start + size])
            if repeats >= min_repeats and _is_primitive(block):
                found.append(Loop(start, block, repeats))
            start = j + 1
    return found


@dataclass(frozen=True, slots=True)
class Repeat:
    """One call made ``count`` times in a row: calls ``start .. start + count``."""

    start: int
    count: int


def find_repeats(keys: Sequence[Hashable], min_repeats: int) -> list[Repeat]:
    """Every maximal run of one key repeated ``min_repeats`` or more times in a row, in order."""
    found: list[Repeat] = []
    start = 0
    for index in range(1, len(keys) + 1):
        if index < len(keys) and keys[index] == keys[start]:
            continue
        if index - start >= min_repeats:
            found.append(Repeat(start, index - start))
        start = index
    return found
