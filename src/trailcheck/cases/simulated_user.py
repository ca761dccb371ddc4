"""A simulated user: who the agent talks to when a case has no fixed turns.

::

    user:
      instruction: >
        You want a refund for order A-1042, which arrived broken. You first ask for 40 EUR,
        then accept the 25 EUR the order cost.
      persona: terse, a little impatient
      known_facts: {order_id: A-1042, email: ana@example.com}
      max_turns: 6
      stop_when:
        - {tool_called: issue_refund}
        - {agent_says: "(?i)transfer(red)? to a human", goal: false}

The ``instruction`` is the user's hidden goal: the simulator reads it, the agent never does.
``known_facts`` are what the user can tell when asked (and the only facts it may state, beside
those the instruction gives). A conversation ends when the simulator says it is done, when a
``stop_when`` condition holds after an agent turn (the goal is reached, or, for a condition with
``goal: false``, the agent handed off), after ``max_turns`` user turns, or at the trial's
deadline. The fixed ``input`` of a case, when it
has one too, is played first; the simulated user then carries on.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

__all__ = ["SimulatedUser", "StopCondition"]

Text = Annotated[str, Field(min_length=1)]


class StopCondition(BaseModel):
    """One way a conversation is over, checked after each agent turn: the agent called
    ``tool_called``, or its answer matches the regular expression ``agent_says``. Exactly one
    is given.

    ``goal`` says whether the condition holding means the user's goal is met. A hand-off (the
    agent transferred the user to a person) ends the conversation without meeting it:
    ``goal: false``. The simulator audit reads only goal conditions when it asks whether the
    simulator stopped early, so a user who stops content where only a hand-off condition is
    given is not the simulator's error."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    tool_called: Text | None = None
    agent_says: Text | None = None
    goal: bool = True

    @field_validator("agent_says")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as error:
                raise ValueError(f"not a regular expression: {error}") from None
        return value

    @model_validator(mode="after")
    def _one_condition(self) -> Self:
        if (self.tool_called is None) == (self.agent_says is None):
            raise ValueError("a stop condition has exactly one of tool_called and agent_says")
        return self

    def holds(self, tools_called: set[str], answer: str) -> bool:
        """Whether the condition holds, given the tools called so far and the agent's answer."""
        if self.tool_called is not None:
            return self.tool_called in tools_called
        return re.search(self.agent_says or "", answer) is not None

    def __str__(self) -> str:
        said = (
            f"tool_called: {self.tool_called}"
            if self.tool_called is not None
            else f"agent_says: {self.agent_says}"
        )
        return said if self.goal else f"{said} (not the goal)"


class SimulatedUser(BaseModel):
    """The brief of a simulated user (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    instruction: Text
    persona: Text | None = None
    known_facts: dict[str, JsonValue] = Field(default_factory=dict)
    max_turns: int = Field(10, ge=1, le=200)
    stop_when: list[StopCondition] = Field(default_factory=list)

    def facts_text(self) -> list[str]:
        """Each known fact's value as text (what the user may say), in the order given."""
        return [
            value if isinstance(value, str) else json.dumps(value)
            for value in self.known_facts.values()
            if value is not None
        ]
