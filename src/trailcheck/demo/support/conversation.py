"""The conversation as a scripted brain sees it: the customer's turns and what the tools said.

A brain is a pure function of the messages, so everything it knows (which calls it made, what
came back, which turn it is in) is read back from them here, every step. Tool results arrive as
``tool`` messages with JSON content; an error is ``{"error": "ToolError: ..."}``, as the agent
loop writes it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from trailcheck.demo.support.fixture import TODAY
from trailcheck.demo.support.parsing import (
    Intent,
    email_in,
    intent_in,
    order_id_in,
    proof_in,
    today_in,
)
from trailcheck.trace import Message


@dataclass(frozen=True, slots=True)
class Outcome:
    """One tool call the brain made, with its result or error, and the user turn it was in."""

    name: str
    arguments: dict[str, Any]
    turn: int
    result: Any = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True, slots=True)
class Conversation:
    """The customer's turns, the outcomes of the calls so far, and the facts they gave."""

    user_turns: tuple[str, ...]
    outcomes: tuple[Outcome, ...]
    calls_made: int
    today: date

    @property
    def turn(self) -> int:
        return len(self.user_turns) - 1

    @property
    def intent(self) -> Intent | None:
        return intent_in(self.user_turns)

    @property
    def order_id(self) -> str | None:
        return order_id_in(self.user_turns)

    @property
    def email(self) -> str | None:
        return email_in(self.user_turns)

    @property
    def proof(self) -> str | None:
        return proof_in(self.user_turns)

    def of(self, name: str, *, this_turn: bool = False, **arguments: Any) -> list[Outcome]:
        """The outcomes of ``name`` called with (at least) ``arguments``, oldest first."""
        return [
            outcome
            for outcome in self.outcomes
            if outcome.name == name
            and (not this_turn or outcome.turn == self.turn)
            and all(outcome.arguments.get(key) == value for key, value in arguments.items())
        ]

    def succeeded(self, name: str, **arguments: Any) -> Outcome | None:
        """The latest successful call of ``name`` with ``arguments``, in any turn."""
        done = [outcome for outcome in self.of(name, **arguments) if outcome.ok]
        return done[-1] if done else None


def _content(message: Message) -> tuple[Any, str | None]:
    """A tool message's result, or its error text."""
    try:
        value = json.loads(message.text)
    except ValueError:
        return message.text, None
    if isinstance(value, dict) and set(value) == {"error"} and isinstance(value["error"], str):
        return None, value["error"]
    return value, None


def read_conversation(messages: Sequence[Message]) -> Conversation:
    """The conversation in ``messages``: pairs each tool call with its result by call id."""
    user_turns: list[str] = []
    pending: dict[str, tuple[str, dict[str, Any], int]] = {}
    outcomes: list[Outcome] = []
    system = ""
    calls = 0
    for message in messages:
        if message.role in ("system", "developer"):
            system += message.text + "\n"
        elif message.role == "user":
            user_turns.append(message.text)
        elif message.role == "assistant":
            for call in message.tool_calls:
                calls += 1
                pending[call.id or f"call_{calls}"] = (
                    call.name,
                    call.arguments,
                    len(user_turns) - 1,
                )
        elif message.role == "tool" and pending:
            # By call id; a loop that does not echo ids answers the calls in order.
            key = message.tool_call_id
            name, arguments, turn = pending.pop(key if key in pending else next(iter(pending)))
            result, error = _content(message)
            outcomes.append(Outcome(name, dict(arguments), turn, result, error))
    return Conversation(tuple(user_turns), tuple(outcomes), calls, today_in(system, TODAY))
