"""Chat messages as agents exchange them: the OpenAI shape, which most sources map onto."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "developer", "user", "assistant", "tool"]

# Part types whose "text" (OpenAI) or "content" (GenAI) is the message's text.
TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})


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
        """The message's text: the content, or its text parts joined by newlines.

        Only parts typed as text count (``text`` in GenAI and OpenAI chat, ``input_text`` and
        ``output_text`` in OpenAI responses); a blob's base64 ``content`` is not text.
        """
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        texts = (
            part.get("text", part.get("content"))
            for part in self.content
            if part.get("type", "text") in TEXT_PART_TYPES
        )
        return "\n".join(text for text in texts if isinstance(text, str))
