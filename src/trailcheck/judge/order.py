"""Order sensitivity of a pairwise judge: how often its preference flips when the two answers
swap places.

A pairwise judge that prefers "the first answer" whatever it is measures position, not quality.
Each comparison is judged in both orders; a comparison *flips* when the preferred answer
changes with the order. The flip rate counts flips among the comparisons judged validly in both
orders, with a Wilson interval (comparisons are independent items); a comparison with an
unscorable side has no flip to count and is listed, never counted as stable.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from trailcheck.intervals import DEFAULT_LEVEL, Rate, rate

__all__ = ["OrderSensitivity", "order_sensitivity"]


class OrderSensitivity(BaseModel):
    """Flips among the comparisons judged in both orders."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n_comparisons: int
    n_unscorable: int
    flip_rate: Rate
    flipped: list[str]
    unscorable: list[str]


def order_sensitivity(
    results: Iterable[tuple[str, bool | None]], level: float = DEFAULT_LEVEL
) -> OrderSensitivity:
    """The flip rate of ``(item_id, flipped)`` results; ``flipped`` None: an order was
    unscorable (e.g. ``(r.item_id, r.flipped)`` of each both-orders result)."""
    listed = list(results)
    flipped = [item_id for item_id, flip in listed if flip is True]
    unscorable = [item_id for item_id, flip in listed if flip is None]
    judged = len(listed) - len(unscorable)
    return OrderSensitivity(
        n_comparisons=len(listed),
        n_unscorable=len(unscorable),
        flip_rate=rate(len(flipped), judged, level),
        flipped=flipped,
        unscorable=unscorable,
    )
