"""Chat messages as spans record them, parsed into trailcheck :class:`~trailcheck.trace.Message`.

Three shapes are read:

- the GenAI conventions' current one: ``[{"role", "parts": [{"type": "text", "content"},
  {"type": "tool_call", "id", "name", "arguments"}, {"type": "tool_call_response", "id",
  "response"}, ...]}]``;
- their older one: ``[{"role", "content"}]``, with OpenAI-style ``tool_calls``, ``tool_call_id``
  and ``name`` where the source wrote them;
- OpenInference's flattened attributes: ``llm.input_messages.0.message.role``,
  ``...message.content``, ``...message.tool_calls.0.tool_call.function.name`` and so on.

A message of parts keeps its parts as they were recorded, except tool calls, which become
:class:`~trailcheck.trace.MessageToolCall`; a lone text part (or a lone tool response that is
text) becomes plain text content. Unknown part types are kept as they are.

An attribute holding JSON may be JSON text or already structured (OTLP arrays and kvlists arrive
decoded); text that is not valid JSON is an error, never kept as a string. Errors are
:class:`~trailcheck.errors.RecordError` with ``field`` set (``attributes.gen_ai.input.messages[0]
.parts[1].arguments``); :func:`~trailcheck.importing.spans.map_span` adds the source, line and
span id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, get_args

import orjson

from trailcheck.errors import RecordError
from trailcheck.json_text import JsonValueError, embedded_field, loads_json
from trailcheck.trace import Message, MessageToolCall, Role
from trailcheck.trace.semconv import (
    MESSAGE_CONTENT,
    MESSAGE_NAME,
    MESSAGE_ROLE,
    MESSAGE_TOOL_CALL_ID,
    PART_TEXT,
    PART_TOOL_CALL,
    PART_TOOL_CALL_RESPONSE,
    TOOL_CALL_FUNCTION_ARGUMENTS,
    TOOL_CALL_FUNCTION_NAME,
    TOOL_CALL_ID,
)

ROLES: Final[tuple[str, ...]] = get_args(Role)
# Other names frameworks give the same roles: OpenAI's legacy "function" (a tool's result, as
# AutoGen records it), smolagents' "tool-call" and "tool-response", Gemini's "model",
# LangChain's "human" and "ai".
ROLE_ALIASES: Final[Mapping[str, Role]] = {
    "function": "tool",
    "tool-call": "assistant",
    "tool-response": "tool",
    "model": "assistant",
    "human": "user",
    "ai": "assistant",
}

# "3.message.tool_calls.0.tool_call.id" → index 3, key "message.tool_calls.0.tool_call.id".
_FLAT_MESSAGE_KEY = re.compile(r"(\d+)\.(.+)")
_FLAT_TOOL_CALL_KEY = re.compile(r"message\.tool_calls\.(\d+)\.(.+)")
_FLAT_CONTENT_KEY = re.compile(r"message\.contents\.(\d+)\.message_content\.(.+)")


def json_kind(value: Any) -> str:
    """How JSON would name the type of ``value``, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def invalid_json_message(error: orjson.JSONDecodeError) -> str:
    """Why a text is not JSON, placed by character: orjson's "line 1" would be read as the
    file's line."""
    return f"not valid JSON: {error.msg} (at character {error.pos + 1})"


def decode_json(value: Any, field: str) -> Any:
    """The value of an attribute that holds JSON: text is decoded, structured values pass."""
    if not isinstance(value, str):
        return value
    try:
        return loads_json(value)
    except orjson.JSONDecodeError as error:
        raise RecordError(invalid_json_message(error), field=field) from None
    except JsonValueError as error:
        raise RecordError(error.message, field=embedded_field(field, error)) from None


def json_object(value: Any, field: str, what: str) -> dict[str, Any]:
    """``value`` decoded as a JSON object; a RecordError naming ``what`` it should be otherwise."""
    decoded = decode_json(value, field)
    if not isinstance(decoded, dict):
        raise RecordError(f"{what} must be a JSON object, not {json_kind(decoded)}", field=field)
    return decoded


def tool_arguments(value: Any, field: str) -> dict[str, Any]:
    """A tool call's arguments: a JSON object (or its text); null means the call had none."""
    if value is None:
        return {}
    return json_object(value, field, "tool call arguments")


def messages_from_json(value: Any, field: str) -> list[Message]:
    """A GenAI messages attribute (either shape) as Messages."""
    decoded = decode_json(value, field)
    if not isinstance(decoded, list):
        raise RecordError(f"messages must be a JSON array, not {json_kind(decoded)}", field=field)
    return [_message(item, f"{field}[{index}]") for index, item in enumerate(decoded)]


def message_from_json(item: Any, field: str) -> Message:
    """One message of either GenAI shape (an object), errors naming ``field``."""
    return _message(item, field)


def system_instructions_message(value: Any, field: str) -> Message:
    """``gen_ai.system_instructions`` (a JSON array of parts) as one system Message. Text that
    is not JSON is the instructions themselves (OpenLLMetry writes them so)."""
    if isinstance(value, str) and not value.lstrip().startswith(("[", "{")):
        return Message(role="system", content=value)
    decoded = decode_json(value, field)
    if not isinstance(decoded, list):
        raise RecordError(
            f"system instructions must be a JSON array of parts, not {json_kind(decoded)}",
            field=field,
        )
    return _message_from_parts("system", decoded, field)


def _role(value: Any, field: str) -> Role:
    if value in ROLE_ALIASES:
        return ROLE_ALIASES[value]
    if value not in ROLES:
        raise RecordError(f"role {value!r} is not one of {', '.join(ROLES)}", field=field)
    role: Role = value
    return role


def _optional_text(value: Any, field: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise RecordError(f"must be a string, not {json_kind(value)}", field=field)
    return value


def _tool_name(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise RecordError("a tool call needs a non-empty string name", field=field)
    return value


def _message(item: Any, field: str) -> Message:
    if not isinstance(item, dict):
        raise RecordError(f"a message must be a JSON object, not {json_kind(item)}", field=field)
    role = _role(item.get("role"), f"{field}.role")
    if "parts" in item:
        return _message_from_parts(role, item["parts"], f"{field}.parts")
    return _message_from_content(role, item, field)


def _message_from_parts(role: Role, parts: Any, field: str) -> Message:
    if not isinstance(parts, list):
        raise RecordError(f"parts must be a JSON array, not {json_kind(parts)}", field=field)
    tool_calls: list[MessageToolCall] = []
    kept: list[dict[str, Any]] = []
    response_ids: list[str | None] = []
    for index, part in enumerate(parts):
        path = f"{field}[{index}]"
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            raise RecordError("a message part must be a JSON object with a string type", field=path)
        if part["type"] == PART_TOOL_CALL:
            tool_calls.append(_tool_call_part(part, path))
            continue
        # A text part without content is one whose content was not captured (the source's
        # content capture is off); content that is there must be text.
        if part["type"] == PART_TEXT and not isinstance(part.get("content", ""), str):
            raise RecordError("a text part's content must be a string", field=f"{path}.content")
        if part["type"] == PART_TOOL_CALL_RESPONSE:
            response_ids.append(_optional_text(part.get("id"), f"{path}.id"))
        kept.append(part)
    # A message answering several calls keeps each id in its part; Message has room for one.
    tool_call_id = response_ids[0] if len(response_ids) == 1 else None
    return Message(
        role=role, content=_content(kept), tool_calls=tool_calls, tool_call_id=tool_call_id
    )


def _tool_response(part: dict[str, Any]) -> Any:
    # The input-messages schema names it "response"; the output schema and older examples "result".
    return part["response"] if "response" in part else part.get("result")


def _content(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]] | None:
    if not parts:
        return None
    if len(parts) == 1:
        only = parts[0]
        if only["type"] == PART_TEXT and "content" in only:
            text: str = only["content"]
            return text
        if only["type"] == PART_TOOL_CALL_RESPONSE and isinstance(_tool_response(only), str):
            response: str = _tool_response(only)
            return response
    return parts


def _tool_call_part(part: dict[str, Any], field: str) -> MessageToolCall:
    return MessageToolCall(
        id=_optional_text(part.get("id"), f"{field}.id"),
        name=_tool_name(part.get("name"), f"{field}.name"),
        arguments=tool_arguments(part.get("arguments"), f"{field}.arguments"),
    )


def _message_from_content(role: Role, item: dict[str, Any], field: str) -> Message:
    content = item.get("content")
    if isinstance(content, list):
        if not all(isinstance(part, dict) for part in content):
            raise RecordError("content parts must be JSON objects", field=f"{field}.content")
    elif content is not None and not isinstance(content, str):
        raise RecordError(
            f"content must be text, an array of parts or null, not {json_kind(content)}",
            field=f"{field}.content",
        )
    calls = item.get("tool_calls") or []
    if not isinstance(calls, list):
        raise RecordError(
            f"tool_calls must be a JSON array, not {json_kind(calls)}", field=f"{field}.tool_calls"
        )
    return Message(
        role=role,
        content=content,
        tool_calls=[
            _openai_tool_call(call, f"{field}.tool_calls[{index}]")
            for index, call in enumerate(calls)
        ],
        tool_call_id=_optional_text(item.get("tool_call_id"), f"{field}.tool_call_id"),
        name=_optional_text(item.get("name"), f"{field}.name"),
    )


def _openai_tool_call(call: Any, field: str) -> MessageToolCall:
    """``{"id", "function": {"name", "arguments"}}`` as OpenAI writes it, or ``{"id", "name",
    "arguments"}`` flat."""
    if not isinstance(call, dict):
        raise RecordError(f"a tool call must be a JSON object, not {json_kind(call)}", field=field)
    function = call.get("function", call)
    inner = f"{field}.function" if "function" in call else field
    if not isinstance(function, dict):
        raise RecordError(f"must be a JSON object, not {json_kind(function)}", field=inner)
    return MessageToolCall(
        id=_optional_text(call.get("id"), f"{field}.id"),
        name=_tool_name(function.get("name"), f"{inner}.name"),
        arguments=tool_arguments(function.get("arguments"), f"{inner}.arguments"),
    )


def flattened_messages(attributes: Mapping[str, Any], prefix: str) -> list[Message] | None:
    """OpenInference messages flattened under ``prefix`` (``llm.input_messages``), in index
    order; ``None`` when the span records none."""
    by_index: dict[int, dict[str, tuple[str, Any]]] = {}
    lead = prefix + "."
    for key, value in attributes.items():
        match = _FLAT_MESSAGE_KEY.fullmatch(key[len(lead) :]) if key.startswith(lead) else None
        if match is not None:
            by_index.setdefault(int(match[1]), {})[match[2]] = (key, value)
    if not by_index:
        return None
    return [
        _flat_message(by_index[index], f"attributes.{prefix}.{index}") for index in sorted(by_index)
    ]


def _flat_message(keys: dict[str, tuple[str, Any]], field: str) -> Message:
    """One message from its keys (``message.role`` → (full attribute name, value))."""

    def value_of(name: str) -> Any:
        return keys[name][1] if name in keys else None

    def field_of(name: str) -> str:
        return f"attributes.{keys[name][0]}" if name in keys else f"{field}.{name}"

    if MESSAGE_ROLE not in keys:
        raise RecordError("a flattened message needs message.role", field=field_of(MESSAGE_ROLE))
    content = _optional_text(value_of(MESSAGE_CONTENT), field_of(MESSAGE_CONTENT))
    return Message(
        role=_role(value_of(MESSAGE_ROLE), field_of(MESSAGE_ROLE)),
        content=content if content is not None else _flat_contents(keys),
        tool_calls=_flat_tool_calls(keys),
        tool_call_id=_optional_text(value_of(MESSAGE_TOOL_CALL_ID), field_of(MESSAGE_TOOL_CALL_ID)),
        name=_optional_text(value_of(MESSAGE_NAME), field_of(MESSAGE_NAME)),
    )


def _flat_contents(keys: dict[str, tuple[str, Any]]) -> list[dict[str, Any]] | None:
    """``message.contents.{k}.message_content.{name}`` as parts ``{name: value}``, in order."""
    parts: dict[int, dict[str, Any]] = {}
    for name, (_, value) in keys.items():
        match = _FLAT_CONTENT_KEY.fullmatch(name)
        if match is not None:
            parts.setdefault(int(match[1]), {})[match[2]] = value
    return [parts[index] for index in sorted(parts)] or None


def _flat_tool_calls(keys: dict[str, tuple[str, Any]]) -> list[MessageToolCall]:
    calls: dict[int, dict[str, tuple[str, Any]]] = {}
    for name, (key, value) in keys.items():
        match = _FLAT_TOOL_CALL_KEY.fullmatch(name)
        if match is not None:
            calls.setdefault(int(match[1]), {})[match[2]] = (key, value)
    return [_flat_tool_call(calls[index]) for index in sorted(calls)]


def _flat_tool_call(keys: dict[str, tuple[str, Any]]) -> MessageToolCall:
    def value_and_field(name: str) -> tuple[Any, str]:
        if name in keys:
            return keys[name][1], f"attributes.{keys[name][0]}"
        # Name the missing key after one that is present: the same message's same tool call.
        some_key = next(iter(keys.values()))[0]
        return None, "attributes." + some_key.rsplit(".tool_call.", 1)[0] + f".{name}"

    name, name_field = value_and_field(TOOL_CALL_FUNCTION_NAME)
    arguments, arguments_field = value_and_field(TOOL_CALL_FUNCTION_ARGUMENTS)
    call_id, id_field = value_and_field(TOOL_CALL_ID)
    return MessageToolCall(
        id=_optional_text(call_id, id_field),
        name=_tool_name(name, name_field),
        arguments=tool_arguments(arguments, arguments_field),
    )
