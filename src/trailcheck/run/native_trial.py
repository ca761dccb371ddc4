"""One trial of a native agent (:class:`~trailcheck.run.agent.Agent`): its conversation
(:mod:`trailcheck.run.conversation`) played inside one recorded run, with the environment's tools
recorded; its trace is the Recorder's."""

from __future__ import annotations

from typing import Any

from trailcheck.capture import Recorder
from trailcheck.cases import Case
from trailcheck.environment import Environment
from trailcheck.rate_limit import RateLimiter
from trailcheck.run.agent import AgentFactory, TrialContext
from trailcheck.run.conversation import USER_TURN_SPAN, Conversation
from trailcheck.run.faults import with_faults
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
        conversation: Conversation,
    ) -> None:
        self._factory = factory
        self._case = case
        self._environment = environment
        self._recorder = recorder
        self._rate_limiter = rate_limiter
        self.conversation = conversation

    async def play(self) -> None:
        """A fresh agent answers each user turn, in order, inside one recorded run."""
        environment, recorder, conversation = self._environment, self._recorder, self.conversation
        tools = with_faults(environment.tools if environment is not None else [], self._case.faults)
        tools = conversation.counted_tools(tools)
        context = TrialContext(
            tools=recorder.wrap_tools(tools),
            recorder=recorder,
            environment=environment,
            rate_limiter=self._rate_limiter,
        )
        agent = self._factory()

        async def respond(message: str) -> Any:
            return await agent.respond(message, context)

        def record(attributes: dict[str, Any]) -> None:
            with recorder.span(USER_TURN_SPAN, attributes=attributes):
                pass  # a turn takes no time of the agent's: the span marks when it was said

        async with recorder:
            try:
                answer = await conversation.play(respond, record)
                recorder.set_output(answer)
            finally:  # a conversation cut short still shows who said what
                described = conversation.describe()
                if described is not None:
                    recorder.set_input(conversation.input_messages())
                    recorder.set_metadata("simulated_user", described)

    def close(self) -> None:
        """Nothing to release: the Recorder's run ended with :meth:`play`."""

    async def collect(self) -> Trace | str:
        """The recorded trace; a run that began always has one, even when it raised."""
        traces = self._recorder.traces
        return traces[-1] if traces else "the agent's factory raised before the run began"
