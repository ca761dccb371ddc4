"""Tool wrapping: a sync tool that hands back an awaitable is recorded when it is awaited."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Coroutine
from typing import Any

import pytest

from trailcheck.capture import Recorder, record_tool


async def _charge(amount: int) -> str:
    await asyncio.sleep(0)
    if amount < 0:
        raise ValueError(f"cannot charge {amount}")
    return f"charged {amount}"


def charge(amount: int) -> Coroutine[Any, Any, str]:  # a sync def handing back a coroutine
    return _charge(amount)


def test_a_sync_tool_returning_a_coroutine_records_its_awaited_error() -> None:
    tool = record_tool(charge)

    async def run() -> None:
        async with Recorder() as recorder:
            with pytest.raises(ValueError, match="cannot charge -1"):
                await tool(-1)
        [call] = recorder.trace.tool_calls
        assert (call.name, call.arguments, call.result) == ("charge", {"amount": -1}, None)
        assert call.error == "ValueError: cannot charge -1"
        [span] = [span for span in recorder.trace.spans if span.kind == "tool"]
        assert span.status.code == "error"
        assert [event.name for event in span.events] == ["exception"]

    asyncio.run(run())


def test_a_sync_tool_returning_a_coroutine_records_its_awaited_result_and_children() -> None:
    @record_tool
    async def inner(amount: int) -> str:
        return await _charge(amount)

    @record_tool
    def outer(amount: int) -> Awaitable[str]:
        return inner(amount)

    async def run() -> None:
        async with Recorder() as recorder:
            assert await outer(5) == "charged 5"
        calls = {c.name: c for c in recorder.trace.tool_calls}
        assert (calls["outer"].result, calls["outer"].error) == ("charged 5", None)
        spans = {s.name: s for s in recorder.trace.spans}
        outer_span = spans["execute_tool outer"]
        assert spans["execute_tool inner"].parent_id == outer_span.span_id
        # The outer span lasts until its awaitable is done: it holds the inner call whole.
        inner_duration = spans["execute_tool inner"].duration_ns
        assert outer_span.duration_ns is not None
        assert inner_duration is not None
        assert outer_span.duration_ns > inner_duration

    asyncio.run(run())


def test_a_sync_tool_returning_a_future_records_its_outcome_and_returns_the_same_future() -> None:
    async def run() -> None:
        loop = asyncio.get_running_loop()
        pending: asyncio.Future[str] = loop.create_future()
        tool = record_tool(lambda: pending, name="schedule")
        async with Recorder() as recorder:
            returned = tool()
            assert returned is pending
            loop.call_soon(pending.set_exception, TimeoutError("slot gone"))
            with pytest.raises(TimeoutError):
                await returned
        [call] = recorder.trace.tool_calls
        assert call.error == "TimeoutError: slot gone"

    asyncio.run(run())
