"""What an agent run takes in: a text or a list of messages, given or read off the call."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from trailcheck.capture.handles import MessageLike, checked_messages
from trailcheck.errors import UsageError
from trailcheck.trace import Message

AgentInput = str | Sequence[MessageLike]


def to_input(value: AgentInput | None) -> str | list[Message] | None:
    """The input as a Trace holds it; a :class:`UsageError` when it is neither text nor messages."""
    if value is None or isinstance(value, str):
        return value
    try:
        return checked_messages(value, "input")
    except UsageError as error:
        raise UsageError(f"input is neither a text nor a list of messages: {error}") from None


def input_from_call(
    agent: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> str | list[Message] | None:
    """The first argument when it is recognisably an input (text or messages), else ``None``."""
    try:
        bound = inspect.signature(agent).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):  # the call itself raises the agent's own TypeError
        return None
    values = list(bound.arguments.items())
    # An agent method decorated in a class body gets its instance first: not the input.
    if values and inspect.isfunction(agent) and values[0][0] in {"self", "cls"}:
        values = values[1:]
    if not values:
        return None
    first = values[0][1]
    if isinstance(first, str):
        return first
    if isinstance(first, list | tuple) and all(isinstance(m, Message | Mapping) for m in first):
        try:
            return checked_messages(first, "input")
        except UsageError:
            return None  # a list of dicts that are not messages is not an input
    return None
