"""One trial of a native agent (:class:`~trailcheck.run.agent.Agent`): its turns played inside
one recorded run, with the environment's tools recorded; its trace is the Recorder's."""

from __future__ import annotations

from typing import Any

from trailcheck.capture import Recorder
from trailcheck.cases import Case
from trailcheck.environment import Environment
from trailcheck.rate_limit import RateLimiter
from trailcheck.run.agent import AgentFactory, TrialContext
from trailcheck.run.faults import with_faults
from trailcheck.run.preflight import user_turns
from trailcheck.trace import Trace

__all__ = ["NativeTrial"]


class NativeTrial:
    """Plays one trial (:meth:`play`, under the trial's deadline) and then gives its trace
    (:meth:`collect`), as :class:`~trailcheck.run.otel_trial.OtelTrial` does for otel agents."""

    def __init__(
        self,
        factory: AgentFactory,
        case: Case,
        environment: Environment | None,
        recorder: Recorder,
        rate_limiter: RateLimiter | None,
    ) -> None:
        self._factory = factory
        self._case = case
        self._environment = environment
        self._recorder = recorder
        self._rate_limiter = rate_limiter

    async def play(self) -> None:
        """A fresh agent answers each user turn, in order, inside one recorded run."""
        environment, recorder = self._environment, self._recorder
        tools = with_faults(environment.tools if environment is not None else [], self._case.faults)
        context = TrialContext(
            tools=recorder.wrap_tools(tools),
            recorder=recorder,
            environment=environment,
            rate_limiter=self._rate_limiter,
        )
        agent = self._factory()
        async with recorder:
            answer: Any = None
            for turn in user_turns(self._case):
                answer = await agent.respond(turn, context)
            recorder.set_output(answer)

    def close(self) -> None:
        """Nothing to release: the Recorder's run ended with :meth:`play`."""

    async def collect(self) -> Trace | str:
        """The recorded trace; a run that began always has one, even when it raised."""
        traces = self._recorder.traces
        return traces[-1] if traces else "the agent's factory raised before the run began"
