"""Chat messages as agents exchange them: the OpenAI shape, which most sources map onto."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from trailcheck.trace.derived import message_text
from trailcheck.trace.kinds import Role


class MessageToolCall(BaseModel):
    """A tool call requested by an assistant message."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str | None = None
    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)


class Message(BaseModel):
    """One chat message. ``content`` is text, a list of typed parts, or absent."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    content: str | list[dict[str, Any]] | None = None
    tool_calls: list[MessageToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None

    @property
    def text(self) -> str:
        """The message's text: the content, or its text parts joined by newlines
        (:func:`~trailcheck.trace.derived.message_text`)."""
        return message_text(self.content)
