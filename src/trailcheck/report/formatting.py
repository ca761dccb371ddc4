"""How every report writes a figure: three decimals, or ``undefined`` (never a made-up 0 or 1).

One place, so the terminal, the HTML and the calibration views cannot disagree on a figure.
"""

from __future__ import annotations

from trailcheck.intervals import Interval

UNDEFINED = "undefined"


def format_number(value: float | None) -> str:
    """``0.462``, or ``undefined``."""
    return UNDEFINED if value is None else f"{value:.3f}"


def format_signed(value: float | None) -> str:
    """``+0.538`` (a difference), or ``undefined``."""
    return UNDEFINED if value is None else f"{value:+.3f}"


def format_bounds(interval: Interval) -> str:
    """An interval's bounds, ``[0.231, 0.692]``, or ``undefined``."""
    if interval.low is None or interval.high is None:
        return UNDEFINED
    return f"[{interval.low:.3f}, {interval.high:.3f}]"
