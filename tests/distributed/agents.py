"""Agents and environments for the Ray tests whose behaviour depends only on the case, as it
must when each trial runs in whichever worker Ray picks."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from tests.waiting import forever
from trailcheck.errors import InfraError
from trailcheck.run.agent import TrialContext


class Counter:
    """One tool, ``lookup``, whose calls are the environment's state."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.calls: list[str] = []

    def snapshot(self) -> dict[str, Any]:
        return {"calls": list(self.calls)}

    @property
    def tools(self) -> list[Any]:
        return [self.lookup]

    def lookup(self, key: str) -> dict[str, Any]:
        self.calls.append(key)
        return {"key": key, "found": True}


class MessageAgent:
    """Looks the message up, then does what the message says: ``crash``, ``infra``, ``hang``
    (until cancelled), ``die`` (ends its worker process), ``cpus...`` (says the CPUs Ray gave
    its task), ``limited...`` (takes a token of the run's rate limit first), ``background``
    (leaves a task running), ``pause`` (waits half a second on the loop's clock) or answers.
    Only ``hang``, ``limited...`` and ``pause`` await: no trial timeout can fire in the others,
    however slow the machine."""

    async def respond(self, message: str, context: TrialContext) -> str:
        (lookup,) = context.tools
        if message.startswith("limited"):
            assert context.rate_limiter is not None
            await context.rate_limiter.acquire()
        result = lookup(key=message)
        if message == "crash":
            raise ValueError("the agent has a bug")
        if message == "infra":
            raise InfraError("model unreachable after 3 attempts")
        if message == "hang":
            await forever()
        if message == "die":
            os._exit(1)
        if message == "background":  # a task of its own, still running when it answers
            asyncio.get_running_loop().create_task(_finish_later())
        if message == "pause":
            await asyncio.sleep(0.5)
        if message.startswith("cpus"):
            from trailcheck.distributed.ray_import import ray

            given = ray.get_runtime_context().get_assigned_resources()  # type: ignore[no-untyped-call]
            return f"cpus {given.get('CPU')}"
        return f"looked up {message}: {result}"


LEFT_RUNNING_ENV = "TRAILCHECK_TEST_LEFT_RUNNING"
"""A file a background task writes to if it outlives its trial (a file: the agents travel by
value, so a module global here is not the one the trial's copy sees)."""


async def _finish_later() -> None:
    # Due before a later ``pause`` trial's wake-up on the same loop (a shorter wait, begun
    # earlier), and a loop runs what is due in that order: left running, this writes before that
    # trial ends, whatever the machine's speed.
    await asyncio.sleep(0.2)
    with open(os.environ[LEFT_RUNNING_ENV], "a") as record:
        record.write("a background task outlived its trial\n")


def broken_environment() -> Counter:
    raise OSError("the sandbox did not start")
