"""What a ``with recorder.span(...)`` or ``with recorder.model(...)`` block holds: its open span."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from trailcheck.capture.jsonable import to_json_value
from trailcheck.capture.recording import OpenSpan
from trailcheck.errors import RecordError, UsageError
from trailcheck.trace import Message, ModelInvocation, Usage

MessageLike = Message | Mapping[str, Any]
UsageLike = Usage | Mapping[str, Any]


def checked_messages(messages: Sequence[MessageLike] | None, name: str) -> list[Message] | None:
    """Messages, validated from the dicts (OpenAI shape) where dicts were given; a
    :class:`UsageError` naming the argument, index and field (``output_messages[1].role``) of
    the first that is not a message."""
    if messages is None:
        return None
    checked: list[Message] = []
    for index, message in enumerate(messages):
        try:
            checked.append(
                message if isinstance(message, Message) else Message.model_validate(message)
            )
        except RecordError as error:
            raise _usage_error(f"{name}[{index}]", error) from None
    return checked


def checked_usage(usage: UsageLike | None) -> Usage | None:
    """The usage as a Usage, or a :class:`UsageError` naming the field (``usage.input_tokens``)."""
    if usage is None or isinstance(usage, Usage):
        return usage
    try:
        return Usage.model_validate(usage)
    except RecordError as error:
        raise _usage_error("usage", error) from None


def _usage_error(name: str, error: RecordError) -> UsageError:
    # The caller passed the value in code, so it is told which of its values is wrong, as a
    # UsageError naming the argument and the field.
    path = "" if error.field is None else f".{error.field}"
    if error.field is not None and error.field.startswith("["):
        path = error.field
    return UsageError(f"{name}{path}: {error.message}")


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
        from the one requested (``gpt-4o`` requested, ``gpt-4o-2024-08-06`` answered). A value
        that is not valid is a :class:`UsageError` naming its field, and nothing is recorded."""
        llm = self._span.llm or ModelInvocation()
        update: dict[str, Any] = {}
        if output_messages is not None:
            update["output_messages"] = checked_messages(output_messages, "output_messages")
        if usage is not None:
            update["usage"] = checked_usage(usage)
        if response_model is not None:
            update["model"] = response_model
        self._span.llm = llm.model_copy(update=update)
