"""OpenAI chat messages as recorded, checked strictly, and the pairing of tool calls with the tool
messages that answer them.

A message has ``role`` (``system``, ``developer``, ``user``, ``assistant`` or ``tool``),
``content`` (text, an array of part objects, or null), an assistant's ``tool_calls`` (``{"id",
"type": "function", "function": {"name", "arguments": "<JSON object text>"}}``), a tool message's
``tool_call_id`` and an optional ``name``. A field the trace model has no room for (``refusal``,
``audio``, ``function_call``...) is accepted only while it holds nothing (null, ``[]``, ``{}``),
as SDK dumps write it; with a value it would be dropped, so :func:`parse_message` rejects the
message. :func:`read_message`, the message-log importer's reading, reads an alias role
(``ROLE_ALIASES``: ``function`` as ``tool``, ``human`` as ``user``...) as its role and hands such
a field back to be reported instead.

Errors are :class:`~trailcheck.errors.RecordError` whose ``field`` is a path into the message
list (``[5].tool_calls[0].function.arguments``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, cast

import orjson

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.genai_messages import (
    ROLE_ALIASES,
    ROLES,
    invalid_json_message,
    json_kind,
)
from trailcheck.json_text import JsonValueError, embedded_field, loads_json
from trailcheck.trace import Message, MessageToolCall, Role

__all__ = ["message_role", "parse_message", "read_message", "tool_call_answers"]

_MESSAGE_KEYS: Final = frozenset({"role", "content", "tool_calls", "tool_call_id", "name"})
_TOOL_CALL_KEYS: Final = frozenset({"id", "type", "function", "index"})
_FUNCTION_KEYS: Final = frozenset({"name", "arguments"})
# Content parts that carry tool calls or results in other formats (Anthropic, OpenAI responses):
# kept as content, they would hide a tool call from every grader.
_TOOL_PART_TYPES: Final = frozenset(
    {"tool_use", "tool_result", "function_call", "function_call_output"}
)


def parse_message(raw: Any, path: str) -> Message:
    """One recorded message as a Message; a RecordError naming the first bad field otherwise."""
    if not isinstance(raw, dict):
        raise RecordError(f"a message must be a JSON object, not {json_kind(raw)}", field=path)
    return _message(raw, _role(raw, path), path, None)


def read_message(raw: dict[str, Any], path: str) -> tuple[Message, dict[str, Any]]:
    """One recorded message as a Message, read tolerantly: an alias role reads as its role, and a
    field the trace model has no place for is left out of the Message and returned beside it
    (its path → its value, verbatim). A RecordError naming the first bad field when the message
    cannot be read (its role is unknown, a field it has is bad)."""
    role = message_role(raw)
    if role is None:
        if "role" not in raw:
            raise RecordError("a message needs a role", field=f"{path}.role")
        raise RecordError(
            f"role {raw['role']!r} is not one of {', '.join(ROLES)},"
            f" nor an alias of one ({', '.join(ROLE_ALIASES)})",
            field=f"{path}.role",
        )
    unkept: dict[str, Any] = {}
    return _message(raw, role, path, unkept), unkept


def message_role(raw: dict[str, Any]) -> Role | None:
    """The role a recorded message names, an alias (``ROLE_ALIASES``) read as its role; ``None``
    when it names none trailcheck knows."""
    role: Any = raw.get("role")
    if not isinstance(role, str):
        return None
    if role in ROLE_ALIASES:
        return ROLE_ALIASES[role]
    return cast(Role, role) if role in ROLES else None


def _message(raw: dict[str, Any], role: Role, path: str, unkept: dict[str, Any] | None) -> Message:
    _refuse_unkept_fields(raw, _MESSAGE_KEYS, path, unkept)
    return Message(
        role=role,
        content=_content(raw.get("content"), f"{path}.content"),
        tool_calls=_tool_calls(raw.get("tool_calls"), role, f"{path}.tool_calls", unkept),
        tool_call_id=_tool_call_id(raw.get("tool_call_id"), role, f"{path}.tool_call_id"),
        name=_optional_text(raw.get("name"), f"{path}.name"),
    )


def tool_call_answers(
    messages: Sequence[Message],
    *,
    positions: Sequence[int] | None = None,
    note: Callable[[RecordError], None] | None = None,
) -> dict[tuple[int, int], int]:
    """For each tool call, ``(message index, position in its tool_calls)`` → the index of the tool
    message answering it. Every call must be answered, after it, and every tool message must
    answer a call awaiting its answer.

    ``positions`` gives each message's index in the source, which errors name (by default its
    index in ``messages``). Without ``note`` a pairing that fails raises. With it, the failure is
    handed to ``note`` and the pairing goes on without it: a call never answered (or whose id
    cannot be awaited, or whose id a later call took while it still awaited) is absent from the
    result, and a tool message that answers no awaiting call of its tool answers nothing."""
    source = positions if positions is not None else range(len(messages))

    def fail(error: RecordError) -> None:
        if note is None:
            raise error
        note(error)

    awaiting: dict[str, tuple[int, int]] = {}
    answered_at: dict[str, int] = {}
    answers: dict[tuple[int, int], int] = {}
    for index, message in enumerate(messages):
        for position, call in enumerate(message.tool_calls):
            field = f"[{source[index]}].tool_calls[{position}].id"
            problem = _unawaitable(call, awaiting, source, field)
            if problem is not None:
                fail(problem)
            if call.id:
                awaiting[call.id] = (index, position)
        if message.role == "tool":
            found = _answered_call(messages, index, awaiting, answered_at, source)
            if isinstance(found, RecordError):
                fail(found)
            else:
                answers[found] = index
    for index, position in sorted(awaiting.values()):
        unanswered = messages[index].tool_calls[position].id
        fail(
            RecordError(
                f"tool call {unanswered!r} has no tool message answering it",
                field=f"[{source[index]}].tool_calls[{position}]",
            )
        )
    return answers


def _unawaitable(
    call: MessageToolCall,
    awaiting: dict[str, tuple[int, int]],
    source: Sequence[int],
    field: str,
) -> RecordError | None:
    if not call.id:
        return RecordError(
            "a tool call needs a non-empty id: a tool message answers it by that id", field=field
        )
    if call.id in awaiting:
        index, position = awaiting[call.id]
        return RecordError(
            f"tool call id {call.id!r} is already awaiting an answer for tool call {position} of"
            f" message {source[index]}; an answer could not tell the two apart",
            field=field,
        )
    return None


def _answered_call(
    messages: Sequence[Message],
    index: int,
    awaiting: dict[str, tuple[int, int]],
    answered_at: dict[str, int],
    source: Sequence[int],
) -> tuple[int, int] | RecordError:
    message = messages[index]
    at = source[index]
    call_id = message.tool_call_id
    if not call_id:
        return RecordError(
            "a tool message needs the tool_call_id of the call it answers",
            field=f"[{at}].tool_call_id",
        )
    origin = awaiting.get(call_id)
    if origin is None:
        earlier = answered_at.get(call_id)
        why = (
            f"whose call was already answered by message {source[earlier]}"
            if earlier is not None
            else "which no earlier tool call has"
        )
        return RecordError(
            f"this tool message answers {call_id!r}, {why}", field=f"[{at}].tool_call_id"
        )
    call_index, call_position = origin
    call = messages[call_index].tool_calls[call_position]
    # A tool message that names its tool must name the tool that was called.
    if message.name is not None and message.name != call.name:
        return RecordError(
            f"this tool message names tool {message.name!r}, but the call it answers"
            f" (tool call {call_position} of message {source[call_index]}) is to {call.name!r}",
            field=f"[{at}].name",
        )
    del awaiting[call_id]
    answered_at[call_id] = index
    return origin


def _role(raw: dict[str, Any], path: str) -> Role:
    if "role" not in raw:
        raise RecordError("a message needs a role", field=f"{path}.role")
    role = raw["role"]
    if role not in ROLES:
        raise RecordError(f"role {role!r} is not one of {', '.join(ROLES)}", field=f"{path}.role")
    known: Role = role
    return known


def _says_nothing(value: Any) -> bool:
    return value is None or (isinstance(value, list | dict) and not value)


def _refuse_unkept_fields(
    raw: dict[str, Any], kept: frozenset[str], path: str, unkept: dict[str, Any] | None
) -> None:
    """A field with a value the Message has no place for: a RecordError, or (``unkept`` given)
    recorded there, path → value."""
    for key, value in raw.items():
        if key in kept or _says_nothing(value):
            continue
        if unkept is None:
            raise RecordError(
                "the trace model has no place for this field, so importing it would drop it",
                field=f"{path}.{key}",
            )
        unkept[f"{path}.{key}"] = value


def _optional_text(value: Any, field: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise RecordError(f"must be text, not {json_kind(value)}", field=field)
    return value


def _content(value: Any, field: str) -> str | list[dict[str, Any]] | None:
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise RecordError(
            f"content must be text, an array of parts or null, not {json_kind(value)}",
            field=field,
        )
    for index, part in enumerate(value):
        if not isinstance(part, dict):
            raise RecordError(
                f"a content part must be a JSON object, not {json_kind(part)}",
                field=f"{field}[{index}]",
            )
        if part.get("type") in _TOOL_PART_TYPES:
            raise RecordError(
                f"a {part['type']!r} part is another format's tool call or result; an OpenAI"
                " message carries tool calls in tool_calls and results in tool messages",
                field=f"{field}[{index}].type",
            )
    return value


def _tool_call_id(value: Any, role: Role, field: str) -> str | None:
    if role != "tool":
        if value is not None:
            raise RecordError("only a tool message answers a tool call", field=field)
        return None
    if not isinstance(value, str) or not value:
        raise RecordError(
            "a tool message needs the tool_call_id of the call it answers, as non-empty text",
            field=field,
        )
    return value


def _tool_calls(
    value: Any, role: Role, field: str, unkept: dict[str, Any] | None
) -> list[MessageToolCall]:
    if _says_nothing(value):
        return []
    if not isinstance(value, list):
        raise RecordError(f"tool_calls must be a JSON array, not {json_kind(value)}", field=field)
    if role != "assistant":
        raise RecordError(
            f"only an assistant message calls tools, not a {role} message", field=field
        )
    return [
        _tool_call(call, position, f"{field}[{position}]", unkept)
        for position, call in enumerate(value)
    ]


def _tool_call(
    call: Any, position: int, field: str, unkept: dict[str, Any] | None
) -> MessageToolCall:
    if not isinstance(call, dict):
        raise RecordError(f"a tool call must be a JSON object, not {json_kind(call)}", field=field)
    _refuse_unkept_fields(call, _TOOL_CALL_KEYS, field, unkept)
    stream_index = call.get("index")
    if stream_index is not None and (type(stream_index) is not int or stream_index != position):
        # Streamed responses number their tool calls; the number must be the call's position.
        raise RecordError(
            f"index {stream_index!r} is not the call's position {position}", field=f"{field}.index"
        )
    if call.get("type", "function") != "function":
        raise RecordError(
            f"type {call['type']!r} is not 'function'; only function tool calls are read",
            field=f"{field}.type",
        )
    function = call.get("function")
    if not isinstance(function, dict):
        raise RecordError(
            f"function must be a JSON object, not {json_kind(function)}", field=f"{field}.function"
        )
    _refuse_unkept_fields(function, _FUNCTION_KEYS, f"{field}.function", unkept)
    return MessageToolCall(
        id=_optional_text(call.get("id"), f"{field}.id"),
        name=_tool_name(function.get("name"), f"{field}.function.name"),
        arguments=_arguments(function.get("arguments"), f"{field}.function.arguments"),
    )


def _tool_name(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise RecordError("a tool call needs a name, as non-empty text", field=field)
    return value


def _arguments(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, str):
        raise RecordError(
            f"arguments must be the JSON text of an object, not {json_kind(value)}", field=field
        )
    try:
        arguments = loads_json(value)
    except orjson.JSONDecodeError as error:
        raise RecordError(invalid_json_message(error), field=field) from None
    except JsonValueError as error:
        raise RecordError(error.message, field=embedded_field(field, error)) from None
    if not isinstance(arguments, dict):
        raise RecordError(
            f"arguments must be a JSON object, not {json_kind(arguments)}", field=field
        )
    return arguments
