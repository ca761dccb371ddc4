"""The seam between an agent and a language model: what goes in, what comes back.

A :class:`ChatModel` takes the conversation so far (:class:`~trailcheck.trace.Message`, the
OpenAI shape traces already use), the tools the model may call and, optionally, a JSON schema
its answer must follow, and returns one :class:`Reply`. The same protocol serves the
OpenAI-compatible client, scripted models in tests, and the judges.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from trailcheck.trace import Message, MessageToolCall, Usage


class ToolDeclaration(BaseModel):
    """A tool as a model sees it: its name, when to use it, and its arguments' JSON schema."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class Reply(BaseModel):
    """One answer of a model: text, tool calls, or both, with what it cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str | None = None
    tool_calls: list[MessageToolCall] = Field(default_factory=list)
    usage: Usage | None = None
    # The model that answered, when the server says (it may differ from the one requested).
    model: str | None = None
    finish_reason: str | None = None

    def as_message(self) -> Message:
        """The reply as the assistant message that goes back into the conversation."""
        return Message(role="assistant", content=self.text, tool_calls=self.tool_calls)


class ChatModel(Protocol):
    """A language model behind a chat API. ``name`` identifies it in traces and manifests."""

    @property
    def name(self) -> str: ...

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDeclaration] = (),
        output_schema: dict[str, Any] | None = None,
    ) -> Reply: ...
