"""The simulator seam: who says the user's next turn.

A :class:`UserSimulator` reads the case's brief and the transcript so far and returns the next
:class:`~trailcheck.simulation.turns.UserTurn`. :class:`ModelUserSimulator` asks any
:class:`~trailcheck.models.ChatModel` (the OpenAI-compatible client, a scripted model) with the
roles turned around: the agent's answers are the *user* messages of the simulator's
conversation, its own earlier turns the *assistant* ones. A keyless, rule-driven simulator is
:class:`trailcheck.testing.ScriptedUser`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol

from trailcheck.cases import SimulatedUser
from trailcheck.models.chat import ChatModel
from trailcheck.simulation.brief import STOP_SIGNAL, prompt_digest, simulator_prompt
from trailcheck.simulation.turns import Turn, UserTurn
from trailcheck.trace import Message

__all__ = ["ModelUserSimulator", "UserSimulator"]

# The simulator speaks first when the case has no fixed turn: its model needs a message to
# answer, and this one says so without telling it anything else.
_OPENING: Final = "(The agent is waiting for your first message.)"


class UserSimulator(Protocol):
    """Says the user's next turn. ``name`` identifies it in traces and the manifest."""

    @property
    def name(self) -> str: ...

    async def next_turn(self, user: SimulatedUser, transcript: Sequence[Turn]) -> UserTurn: ...


class ModelUserSimulator:
    """A simulated user played by a chat model (see the module docstring). A reply that holds
    :data:`~trailcheck.simulation.brief.STOP_SIGNAL` ends the conversation; an empty reply is
    a stop too (the audit then reports it as ending early when the goal was not met)."""

    def __init__(self, model: ChatModel) -> None:
        self._model = model

    @property
    def name(self) -> str:
        return self._model.name

    async def next_turn(self, user: SimulatedUser, transcript: Sequence[Turn]) -> UserTurn:
        prompt = simulator_prompt(user)
        messages = [Message(role="system", content=prompt)]
        if not transcript or transcript[0].role != "agent":
            messages.append(Message(role="user", content=_OPENING))
        for turn in transcript:
            # Turned around: the simulator's own turns are its model's, the agent's are its input.
            if turn.role == "user":
                messages.append(Message(role="assistant", content=turn.text))
            else:
                messages.append(Message(role="user", content=turn.text))
        reply = await self._model.complete(messages)
        text = (reply.text or "").strip()
        stop = not text or STOP_SIGNAL in text
        return UserTurn(
            text="" if stop else text,
            stop=stop,
            model=reply.model or self._model.name,
            prompt_digest=prompt_digest(prompt),
            usage=reply.usage,
        )
