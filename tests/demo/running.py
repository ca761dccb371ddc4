"""Running a support agent on one case, as the runner does: a fresh shop, the case's faults
injected, a Recorder around every user turn, and the trace graded."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from typing import Any

from trailcheck.capture import Recorder
from trailcheck.cases import Case, ToolFault
from trailcheck.demo.support import SupportShop
from trailcheck.environment import ToolError
from trailcheck.run import Agent, TrialContext
from trailcheck.scorers import Grade, grade
from trailcheck.trace import Trace


def with_faults(tool: Callable[..., Any], faults: Sequence[ToolFault]) -> Callable[..., Any]:
    """``tool`` with the case's faults for it: an error or a replaced result for the first N
    calls (every call without N), as the runner injects them."""
    mine = [fault for fault in faults if fault.tool == tool.__name__]
    if not mine:
        return tool
    calls = 0

    @functools.wraps(tool)
    def faulty(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        for fault in mine:
            if fault.applies_to(calls):
                if fault.replaces_result:
                    return fault.result
                raise ToolError(fault.error)
        return tool(*args, **kwargs)

    return faulty


def user_turns(case: Case) -> list[str]:
    if isinstance(case.input, str):
        return [case.input]
    return [message.text for message in case.input if message.role == "user"]


def run_case(agent: Agent, shop: SupportShop, case: Case) -> Trace:
    recorder = Recorder(agent_name="support", input=case.input, environment=shop)
    tools = recorder.wrap_tools(with_faults(tool, case.faults) for tool in shop.tools)
    context = TrialContext(tools=tools, recorder=recorder, environment=shop)

    async def play() -> None:
        async with recorder:
            answer: Any = None
            for turn in user_turns(case):
                answer = await agent.respond(turn, context)
            recorder.set_output(answer)

    asyncio.run(play())
    return recorder.trace


def graded(agent: Agent, shop: SupportShop, case: Case) -> Grade:
    return grade(run_case(agent, shop, case), case)
