"""Exact significance tests on paired outcomes: a leaf, shared by run comparisons and judge
calibration (both pair items and count the discordant ones)."""

from __future__ import annotations

import math
from fractions import Fraction


def mcnemar_exact_p(regressed: int, improved: int) -> float:
    """The exact two-sided McNemar p-value of ``regressed`` against ``improved`` discordant
    tasks (1.0 when there are none)."""
    discordant = regressed + improved
    if discordant == 0:
        return 1.0
    tail = sum(math.comb(discordant, i) for i in range(min(regressed, improved) + 1))
    # Exact rational arithmetic: 2**discordant overflows a float past 1023 tasks.
    return min(1.0, float(Fraction(2 * tail, 1 << discordant)))
