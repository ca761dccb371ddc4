"""What a ``with recorder.span(...)`` or ``with recorder.model(...)`` block holds: its open span."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from trailcheck.capture.jsonable import to_json_value
from trailcheck.capture.recording import OpenSpan
from trailcheck.trace import Message, ModelInvocation, Usage

MessageLike = Message | Mapping[str, Any]
UsageLike = Usage | Mapping[str, Any]


def to_messages(messages: Sequence[MessageLike] | None) -> list[Message] | None:
    """Messages, validated from the dicts (OpenAI shape) where dicts were given."""
    if messages is None:
        return None
    return [m if isinstance(m, Message) else Message.model_validate(m) for m in messages]


def to_usage(usage: UsageLike | None) -> Usage | None:
    if usage is None or isinstance(usage, Usage):
        return usage
    return Usage.model_validate(usage)


class SpanHandle:
    """The open span of a ``with recorder.span(...)`` block."""

    def __init__(self, span: OpenSpan) -> None:
        self._span = span

    @property
    def span_id(self) -> str:
        return self._span.span_id

    def set_attribute(self, key: str, value: Any) -> None:
        """Set an attribute; the value is converted for JSON like tool arguments are."""
        json_value = to_json_value(value)
        if json_value.used_repr:
            self._span.mark_repr_field(f"attributes.{key}")
        self._span.attributes[key] = json_value.value


class ModelCallHandle(SpanHandle):
    """The open llm span of a ``with recorder.model(...)`` block: record the reply on it."""

    def record_reply(
        self,
        output_messages: Sequence[MessageLike] | None = None,
        *,
        usage: UsageLike | None = None,
        response_model: str | None = None,
    ) -> None:
        """The model's answer, its token usage, and the model that answered when it differs
        from the one requested (``gpt-4o`` requested, ``gpt-4o-2024-08-06`` answered)."""
        llm = self._span.llm or ModelInvocation()
        update: dict[str, Any] = {}
        if output_messages is not None:
            update["output_messages"] = to_messages(output_messages)
        if usage is not None:
            update["usage"] = to_usage(usage)
        if response_model is not None:
            update["model"] = response_model
        self._span.llm = llm.model_copy(update=update)
