"""What the runner runs: an Agent answers the user's turns with the tools of a trial.

The runner makes a fresh agent per trial (an :data:`AgentFactory`), resets the environment,
and calls :meth:`Agent.respond` once per user turn of the case input, in order, inside one
recorded run. The tools in the :class:`TrialContext` are the environment's tools wrapped so that
each call is recorded (and, where the case declares faults, injected); model calls are recorded
with ``context.recorder.model(...)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from trailcheck.capture import Recorder
from trailcheck.environment import Environment
from trailcheck.rate_limit import RateLimiter


@dataclass(frozen=True, slots=True)
class TrialContext:
    """What an agent gets for one trial: recorded tools, the recorder, the environment, and the
    rate limiter every trial of the run shares (acquire it before each model call)."""

    tools: Sequence[Callable[..., Any]]
    recorder: Recorder
    environment: Environment | None = None
    rate_limiter: RateLimiter | None = None


class Agent(Protocol):
    """One conversation's agent: it keeps its own history between turns."""

    async def respond(self, message: str, context: TrialContext) -> Any: ...


AgentFactory = Callable[[], Agent]
