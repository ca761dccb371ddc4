"""Chat messages as agents exchange them: the OpenAI shape, which most sources map onto."""

from __future__ import annotations

from typing import Any

from trailcheck.trace.derived import message_text
from trailcheck.trace.kinds import NonEmpty, Role
from trailcheck.trace.record import Record


class MessageToolCall(Record, frozen=True, kw_only=True):
    """A tool call requested by an assistant message."""

    id: str | None = None
    name: NonEmpty
    arguments: dict[str, Any] = {}

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a tool call names its tool")


class Message(Record, frozen=True):
    """One chat message. ``content`` is text, a list of typed parts, or absent."""

    role: Role
    content: str | list[dict[str, Any]] | None = None
    tool_calls: list[MessageToolCall] = []
    tool_call_id: str | None = None
    name: str | None = None

    @property
    def text(self) -> str:
        """The message's text: the content, or its text parts joined by newlines
        (:func:`~trailcheck.trace.derived.message_text`)."""
        return message_text(self.content)
