"""Work for :func:`~trailcheck.distributed.ray_ordered_map` in the tests (sent to the workers
by value)."""

from __future__ import annotations


def square_unless_three(item: int) -> int:
    if item == 3:
        raise ArithmeticError(f"item {item} is refused")
    return item * item
