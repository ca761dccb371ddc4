"""A judge's review of a simulated user: the simulator audit's optional second opinion.

The rules of :mod:`trailcheck.simulation.audit` see words and identifiers; a model sees meaning:
a hidden goal told in other words, a fact the brief never gave stated as a sentence, a
change of mind the instruction did not ask for. :class:`ModelSimulatorReviewer` shows a chat
model the brief (instruction, persona, known facts, stop conditions) and the conversation with
each user turn numbered, and asks for the simulator's errors of the same four kinds, as
structured output (:func:`~trailcheck.judge.structured.ask_structured`, one retry on a bad
answer). A review without a valid answer raises :class:`SimulatorReviewError`: the runner keeps it
as the review's failure beside the trial, and the trial keeps the rules' finding.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from trailcheck.cases import SimulatedUser
from trailcheck.judge.structured import ask_structured, strict_json_schema
from trailcheck.models.chat import ChatModel
from trailcheck.simulation import SimulatorCheck, SimulatorError, Turn
from trailcheck.trace import Message

__all__ = ["ModelSimulatorReviewer", "SimulatorReviewError"]

_INSTRUCTIONS = """\
You audit a SIMULATED USER, not the agent. The simulated user was given a private brief and
talked to a customer-service agent. Report each error of the simulated user, of these kinds:
- leaked_goal: it showed the agent its private brief (recited it, or described it as a brief or
  instructions), rather than speaking as a customer would.
- invented_fact: it stated a fact (an id, amount, date, name, address) that its brief does not
  give and that nobody said before.
- contradiction: it said something that contradicts what it said before, where its brief does
  not ask it to change its mind.
- ended_early: it ended the conversation before its goal was met, while the agent was still
  helping.
Judge only the user's turns; the agent's mistakes are not errors here. Give the number of the
user turn of each error (null when it is about the conversation as a whole) and a short
detail. Answer with an empty list when the simulated user followed its brief."""


class SimulatorReviewError(Exception):
    """The reviewing model gave no valid answer (unreachable, or invalid after its retry)."""


class _Finding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    check: SimulatorCheck
    turn: int | None
    detail: str = Field(min_length=1)


class _Review(BaseModel):
    model_config = ConfigDict(extra="forbid")

    errors: list[_Finding]


class ModelSimulatorReviewer:
    """A :class:`~trailcheck.simulation.SimulatorReviewer` played by ``model``."""

    def __init__(self, model: ChatModel) -> None:
        self._model = model

    @property
    def name(self) -> str:
        return f"judge:{self._model.name}"

    async def review(self, user: SimulatedUser, transcript: Sequence[Turn]) -> list[SimulatorError]:
        messages = [
            Message(role="system", content=_INSTRUCTIONS),
            Message(role="user", content=review_prompt(user, transcript)),
        ]
        asked = await ask_structured(
            self._model, messages, _Review, schema=strict_json_schema(_Review)
        )
        if asked.value is None:
            raise SimulatorReviewError(asked.reason)
        return [
            SimulatorError(check=f.check, turn=f.turn, detail=f.detail, by=self.name)
            for f in asked.value.errors
        ]


def review_prompt(user: SimulatedUser, transcript: Sequence[Turn]) -> str:
    """The brief and the conversation as the reviewing model reads them."""
    lines = ["THE SIMULATED USER'S PRIVATE BRIEF", f"Instruction: {user.instruction}"]
    if user.persona:
        lines.append(f"Persona: {user.persona}")
    if user.known_facts:
        lines.append(f"Known facts: {json.dumps(user.known_facts)}")
    if user.stop_when:
        lines.append("Its goal is met when: " + "; ".join(map(str, user.stop_when)))
    lines += ["", "THE CONVERSATION"]
    number = 0
    for turn in transcript:
        if turn.role == "user":
            number += 1
            who = f"USER TURN {number}" + ("" if turn.simulated else " (fixed, not simulated)")
        else:
            who = "AGENT"
        lines.append(f"[{who}] {turn.text}")
    return "\n".join(lines)
