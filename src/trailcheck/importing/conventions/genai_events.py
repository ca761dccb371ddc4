"""A model call's messages from its GenAI events, for spans that record none in attributes.

Where an instrumentation records content as events (span events, or log records joined to the
span, :mod:`trailcheck.importing.transport.otlp_logs`), two shapes exist:

- **one event per call**, ``gen_ai.client.inference.operation.details`` (current conventions):
  its attributes hold ``gen_ai.input.messages``, ``gen_ai.output.messages`` and
  ``gen_ai.system_instructions`` exactly as a span would, read the same way;
- **one event per message** (conventions up to 1.36): ``gen_ai.system.message``,
  ``gen_ai.user.message``, ``gen_ai.assistant.message`` (``content`` and OpenAI-style
  ``tool_calls``), ``gen_ai.tool.message`` (``content`` and the answered call's ``id``) in the
  order of the conversation, then one ``gen_ai.choice`` per output (``index``, ``message``, or
  the message's fields in the body itself, as Google ADK writes them). The
  body holds the fields (a log record's body; a span event's own attributes where it has no
  body, as Strands Agents writes them); the event name gives the role unless the body says it.
  Content that is Bedrock Converse blocks (Strands) is read as the messages those blocks are
  (:mod:`trailcheck.importing.conventions.converse_blocks`); a choice's message may be its text
  alone.

Content that was not captured is absent, and stays absent: a body without ``content`` gives a
message without content, a tool call without ``arguments`` has none. Google ADK writes
``<elided>`` for content it did not capture; that is read as absent too. Errors name the event:
``events[3].attributes.otel.log.body.tool_calls[0].function.name``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.converse_blocks import converse_blocks, converse_messages
from trailcheck.importing.conventions.genai_messages import (
    decode_json,
    json_kind,
    message_from_json,
)
from trailcheck.trace import Message, SpanEvent, semconv

OPERATION_DETAILS_EVENT: Final = "gen_ai.client.inference.operation.details"
CHOICE_EVENT: Final = "gen_ai.choice"
_EVENT_NAME: Final = "event.name"
MESSAGE_EVENT_ROLES: Final = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
# The fields of a message event, when they are the event's attributes rather than a body.
_BODY_FIELDS: Final = frozenset({"role", "content", "tool_calls", "id", "index", "message"})
# What Google ADK writes in place of content it did not capture.
ADK_ELIDED: Final = "<elided>"

Messages = tuple[list[Message] | None, list[Message] | None]


def event_message_attributes(events: Sequence[SpanEvent]) -> tuple[dict[str, Any], str] | None:
    """The message attributes of the span's operation-details events, and their attributes'
    path; ``None`` when no event is one. One event usually holds them all; where a producer
    writes one event per attribute (Strands: system instructions, input, output apart), they
    are read together, a later event's value standing for an earlier one's."""
    found = [index for index, event in enumerate(events) if event.name == OPERATION_DETAILS_EVENT]
    if not found:
        return None
    merged: dict[str, Any] = {}
    for index in found:
        merged.update(events[index].attributes)
    where = f"events[{found[0]}].attributes" if len(found) == 1 else "events[*].attributes"
    return merged, where


def per_message_events(events: Sequence[SpanEvent]) -> Messages:
    """Input and output messages from per-message events; ``(None, None)`` when there are
    none."""
    inputs: list[Message] = []
    choices: list[tuple[int, int, Message]] = []
    for index, event in enumerate(events):
        path = f"events[{index}].attributes.{semconv.OTEL_LOG_BODY}"
        body = _body(event, path)
        if event.name in MESSAGE_EVENT_ROLES:
            inputs.extend(_messages(MESSAGE_EVENT_ROLES[event.name], body, path))
        elif event.name == CHOICE_EVENT:
            choice_index = body.get("index", 0)
            if not isinstance(choice_index, int) or isinstance(choice_index, bool):
                raise RecordError(
                    f"a choice's index must be an integer, not {json_kind(choice_index)}",
                    field=f"{path}.index",
                )
            # The message under "message"; some producers (ADK) put its fields in the body, and
            # some (Strands) write the message's content there, as text.
            message = body["message"] if "message" in body else _choice_fields(body)
            if isinstance(message, str):
                message = {"content": message}
            if not isinstance(message, dict):
                raise RecordError(
                    f"a choice's message must be an object or text, not {json_kind(message)}",
                    field=f"{path}.message",
                )
            choices.extend(
                (choice_index, index, answer)
                for answer in _messages("assistant", message, f"{path}.message")
            )
    if not inputs and not choices:
        return None, None
    outputs = [message for _, _, message in sorted(choices, key=lambda c: (c[0], c[1]))]
    return inputs or None, outputs or None


def _choice_fields(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key in ("role", "content", "tool_calls")}


def _body(event: SpanEvent, path: str) -> dict[str, Any]:
    """The event's fields: a log record's body, else (a span event, as Strands writes them) its
    own attributes."""
    body = event.attributes.get(semconv.OTEL_LOG_BODY)
    if body is None:
        return {key: value for key, value in event.attributes.items() if key in _BODY_FIELDS}
    if not isinstance(body, dict):
        raise RecordError(f"an event's body must be an object, not {json_kind(body)}", field=path)
    return body


def _messages(role: str, body: dict[str, Any], path: str) -> list[Message]:
    """The message an event's body holds; several where its content is Converse blocks holding
    tool results (:mod:`trailcheck.importing.conventions.converse_blocks`)."""
    blocks = converse_blocks(body.get("content"))
    if blocks is None:
        return [_message(role, body, path)]
    return [
        message_from_json(item, path)
        for item in converse_messages(body.get("role") or role, blocks)
    ]


def _message(role: str, body: dict[str, Any], path: str) -> Message:
    item: dict[str, Any] = {"role": body.get("role") or role}
    content = body.get("content")
    if isinstance(content, dict):
        # A provider's own content object (Gemini's {"role", "parts"}): kept as one part.
        item["content"] = [content]
    elif content is not None and content != ADK_ELIDED:
        item["content"] = content
    if body.get("tool_calls") is not None:
        item["tool_calls"] = body["tool_calls"]
    if role == "tool" and body.get("id") is not None:
        item["tool_call_id"] = body["id"]
    # Parsed as the older GenAI message shape is; errors name the event's body.
    return message_from_json(item, path)


def events_from_json(value: Any, field: str) -> list[SpanEvent]:
    """GenAI events a span records as one JSON array attribute, each event a flat object naming
    itself (``{"event.name": "gen_ai.user.message", "content": ..., "role": ...}``: Pydantic
    AI's instrumentation version 1), as the span events they would have been."""
    decoded = decode_json(value, field)
    if not isinstance(decoded, list):
        raise RecordError(f"events must be a JSON array, not {json_kind(decoded)}", field=field)
    events: list[SpanEvent] = []
    for index, item in enumerate(decoded):
        name = item.get(_EVENT_NAME) if isinstance(item, dict) else None
        if not isinstance(name, str) or not name:
            raise RecordError("an event needs its event.name", field=f"{field}[{index}]")
        body = {key: part for key, part in item.items() if key != _EVENT_NAME}
        events.append(SpanEvent(name=name, time_ns=0, attributes={semconv.OTEL_LOG_BODY: body}))
    return events
