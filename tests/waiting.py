"""Waiting on events in tests, never on the clock.

A test waits for the thing it needs to see (a file, a line, a stored trace, a listening port),
never for a span of time. The clock appears only as a guard against a hang: :data:`GUARD_S`, long
enough that no machine, however busy, reaches it while the awaited thing is still on its way.
When the guard is reached the test fails saying what never happened; it never decides a pass.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

# Reaching this means a hang: the awaited event will not come. No test outcome depends on it.
GUARD_S = 120.0
# How often a condition that cannot notify us is checked: spacing, not a deadline.
POLL_S = 0.01


def wait_until(
    condition: Callable[[], T], what: str, *, guard_s: float = GUARD_S, poll_s: float = POLL_S
) -> T:
    """Check ``condition`` until it returns something truthy, and return that. After ``guard_s``
    (a hang) fail naming ``what`` was awaited. ``condition`` may itself fail the test early
    (an assertion that the process it waits on is still alive, say)."""
    guard = time.monotonic() + guard_s
    while not (result := condition()):
        if time.monotonic() > guard:
            raise AssertionError(f"hung: {what} did not happen within the {guard_s:g} s guard")
        time.sleep(poll_s)
    return result


async def wait_for_event(awaitable: Awaitable[T], what: str, *, guard_s: float = GUARD_S) -> T:
    """Await ``awaitable`` (an event's wait, a future); after ``guard_s`` fail naming ``what``."""
    try:
        return await asyncio.wait_for(awaitable, guard_s)
    except TimeoutError:
        raise AssertionError(
            f"hung: {what} did not happen within the {guard_s:g} s guard"
        ) from None


async def forever() -> None:
    """Block until cancelled: an agent or tool that hangs, so that a timeout under test always
    fires first, however slow the machine (a long sleep would race the timeout)."""
    await asyncio.Event().wait()
