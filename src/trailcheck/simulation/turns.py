"""A conversation as the simulator and the audit see it: turns of text, who said each, and how
the conversation ended."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from trailcheck.trace import Usage

__all__ = ["ConversationEnding", "Turn", "UserTurn"]

ConversationEnding = Literal["simulator", "stop_when", "max_turns"]
"""Why a simulated conversation ended: the simulator said it was done, a ``stop_when``
condition held after an agent turn, or the user had spoken ``max_turns`` times. A conversation
cut by the trial's deadline or a crash has no ending."""


class Turn(BaseModel):
    """One turn: the user's (``simulated`` when a simulator said it) or the agent's answer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["user", "agent"]
    text: str
    simulated: bool = False


class UserTurn(BaseModel):
    """What a simulator says next: ``text``, or ``stop`` (the user is done; ``text`` empty).

    ``model`` and ``prompt_digest`` name who said it and from which brief; ``replayed`` marks a
    turn taken from a baseline run rather than generated (:mod:`trailcheck.simulation.replay`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = ""
    stop: bool = False
    model: str
    prompt_digest: str
    usage: Usage | None = None
    replayed: bool = False
    key: str = Field("", description="The transcript key the turn answered (replay's cache key).")
