"""Lap times as integers, and the pace of a stint: the median of its clean laps.

Times are read into whole **microseconds** (``1:20.472`` is 80_472_000) and every computation
stays in integers (a median of an even count is a :class:`~fractions.Fraction`), so a figure
shows the same on every platform: :func:`format_lap_time` rounds to milliseconds half up,
``1:22.2705`` to ``1:22.271``, where binary floats would give ``1:22.270`` or ``1:22.271``
depending on how the half was reached.

A driver's race is cut into **stints** at its pit stops: a stop on lap ``n`` ends a stint with
lap ``n`` (the in-lap), and the next begins with lap ``n + 1`` (the out-lap). A red-flag stop is
a stop like any other. A stint's **clean laps** leave out lap 1 (the start), in-laps and
out-laps. The data has no marker for safety-car laps, so the pace of a stint is the *median* of
its clean laps, which a few slow laps do not move, not their mean; a stint without clean laps
has no pace.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from trailcheck.demo.pitwall.records import LapTiming, PitStop

__all__ = ["Stint", "format_lap_time", "median", "parse_lap_time", "stints"]

_TIME = re.compile(r"^(?:(?:(\d+):)?(\d{1,2}):)?(\d{1,2})(?:\.(\d{1,6}))?$")
_US_PER_S = 1_000_000


def parse_lap_time(text: str) -> int:
    """``1:20.472`` (or ``24.7``, ``23:35.363``, ``2:06:54.430``) as whole microseconds."""
    match = _TIME.match(text.strip())
    if match is None:
        raise ValueError(f"not a lap time: {text!r} (expected like 1:20.472)")
    hours, minutes, seconds, fraction = match.groups()
    whole = (int(hours or 0) * 60 + int(minutes or 0)) * 60 + int(seconds)
    return whole * _US_PER_S + int((fraction or "").ljust(6, "0"))


def format_lap_time(microseconds: int | Fraction) -> str:
    """Milliseconds, rounded half up: ``1:22.271`` for 82_270_500; ``24.700`` under a minute,
    ``2:06:54.430`` over an hour."""
    if microseconds < 0:
        raise ValueError(f"a lap time is not negative: {microseconds}")
    milliseconds = math.floor(Fraction(microseconds) / 1000 + Fraction(1, 2))
    seconds, thousandths = divmod(milliseconds, 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}.{thousandths:03d}"
    if minutes:
        return f"{minutes}:{seconds:02d}.{thousandths:03d}"
    return f"{seconds}.{thousandths:03d}"


def median(values: Sequence[int]) -> Fraction:
    """The median, exactly: the middle value, or the mean of the two middle ones."""
    if not values:
        raise ValueError("the median of no values is undefined")
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return Fraction(ordered[middle])
    return Fraction(ordered[middle - 1] + ordered[middle], 2)


@dataclass(frozen=True, slots=True)
class Stint:
    """Laps ``first..last`` between stops, the clean ones among them, and their pace."""

    number: int
    first: int
    last: int
    clean_laps: tuple[LapTiming, ...]

    @property
    def median_us(self) -> Fraction | None:
        if not self.clean_laps:
            return None
        return median([parse_lap_time(lap.time) for lap in self.clean_laps])

    def summary(self) -> dict[str, object]:
        """What a tool shows of it: the pace fields only when there are clean laps."""
        shown: dict[str, object] = {
            "stint": self.number,
            "laps": f"{self.first}-{self.last}",
            "clean_laps": len(self.clean_laps),
        }
        pace = self.median_us
        if pace is not None:
            shown["median_pace"] = format_lap_time(pace)
            shown["best_lap"] = min(self.clean_laps, key=lambda lap: parse_lap_time(lap.time)).time
        return shown


def stints(laps: Sequence[LapTiming], stops: Sequence[PitStop]) -> list[Stint]:
    """``laps`` cut into stints at ``stops`` (see the module docstring)."""
    if not laps:
        return []
    last_lap = max(lap.lap for lap in laps)
    stop_laps = sorted({stop.lap for stop in stops if stop.lap < last_lap})
    bounds = [0, *stop_laps, last_lap]
    in_laps = set(stop_laps)
    out_laps = {lap + 1 for lap in stop_laps}
    found: list[Stint] = []
    for number, (before, last) in enumerate(itertools.pairwise(bounds), start=1):
        clean = tuple(
            lap
            for lap in laps
            if before < lap.lap <= last
            and lap.lap != 1
            and lap.lap not in in_laps
            and lap.lap not in out_laps
        )
        found.append(Stint(number, before + 1, last, clean))
    return found
