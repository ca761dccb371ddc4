"""OpenAI chat message lists with ``tool_calls``, one conversation per record.

The input is a JSON array of records, one record, or JSON Lines of records
(:mod:`trailcheck.importing.transport.json_records`). A record is a bare array of messages, or an
object holding them under exactly one of ``messages``, ``traj`` (tau-bench's key) or
``conversation``; its other
fields go to the trace's ``metadata`` verbatim. A top-level array is one bare conversation when its
first element is an object with a ``role``, and an array of records otherwise.

What a conversation becomes:

- ``input``: every message of the conversation, in order. This loses nothing, and a grader finds
  the user's request in the user messages (``trace.input_text``), including the details a user
  gives in later turns.
- one root agent span; under it an llm span per assistant message (``output_messages`` is that
  message, ``input_messages`` is left unset: the conversation the model saw is
  ``trace.input[:span.start_ns]``, which copying into every span would make quadratic in size),
  and a tool span per tool call, with the call's name, id, arguments (parsed from their JSON
  text) and result (the answering tool message's content, exactly as recorded), and ``sequence``,
  the call's position among the conversation's tool calls.
- ``final_output``: the text of the last assistant message, or ``None`` when it has none (it only
  called tools): the last model call's answer, as for span-based traces, never an earlier one.

The source records no times, so ``start_ns``/``end_ns`` count messages (positions in ``input``),
not nanoseconds: an llm span runs from its message's index ``i`` to ``i + 1``, its tool calls
from ``i + 1`` to one past the index of the message answering them (to the last message when
none read answers them), the root from 0 to the number of messages. They give order, never
durations. Span ids are derived from the trace id and the position, so importing a
record again gives an identical trace.

Trace id: a record's ``trace_id`` field, else its ``id`` (text, or an integer written in decimal),
else ``{source stem}:{record index}:{content hash}``: the index keeps two identical records of one
file apart, the hash (of the record with sorted keys) keeps same-named files apart and changes when
the record does.

A tool message answers the call awaiting an answer that has its ``tool_call_id``. Ids may be
reused once answered (recorded tau-bench trajectories do so); two calls awaiting answers under one
id are ambiguous.

What is read around (the tolerance rule of :mod:`trailcheck.importing.unread`): a role other
frameworks name differently reads as the role it is (``ROLE_ALIASES``: ``function`` as ``tool``,
``human`` as ``user``, ``ai`` as ``assistant``...). A message that cannot be read (an unknown
role or none, content that is neither text nor parts, a tool call that is not a function call
with a name and a JSON object of arguments, a tool message without ``tool_call_id``...) is left
out of the trace; a field the trace model has no place for (``refusal``, ``audio``,
``function_call`` holding a value) is left out of its message, which is read without it. Each
is named in the trace's reading report, ``metadata["trailcheck.unread"]``, with the part verbatim
under ``kept``, since a message log has no span attributes to keep it on::

    {"span_id": None, "field": "[17].traj[5]", "kept": {"role": "robot", "content": "hi"},
     "reason": "role: role 'robot' is not one of system, developer, user, assistant, tool, ..."}

Once a message is left out, the calls may no longer pair up (the message left out may have been
a call or its answer), so a pairing that fails is noted in the report too: a call that no message
read answers is a call without a result, and a tool message that answers no call read stays in
``input`` and makes no tool span. When the last assistant message is left out, ``final_output``
is ``None``: the last model call's answer could not be read, and an earlier one is not it.

What is rejected is broken structure: messages that are not an array, an empty conversation, a
message that is not a JSON object, a record or trace id that cannot be read, and, in a
conversation read whole, tool calls that do not pair up (a call no tool message answers, an
answer to no call, two calls awaiting one id, an answer naming another tool). Nothing is
repaired: the Rejection names the source, the line where the record starts and the field
(``[17].traj[5].tool_call_id``); the other records are imported.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, BinaryIO, Final

import orjson

from trailcheck.errors import RecordError, UsageError
from trailcheck.importing.conventions.chat_messages import (
    message_role,
    read_message,
    tool_call_answers,
)
from trailcheck.importing.conventions.genai_messages import ROLES, json_kind
from trailcheck.importing.records import Rejection
from trailcheck.importing.transport.json_records import JsonRecord, read_json_records
from trailcheck.importing.unread import UNREAD_METADATA_KEY
from trailcheck.trace import Message, ModelInvocation, Span, ToolInvocation, Trace, semconv

__all__ = [
    "CONVERSATION_KEYS",
    "TRACE_ID_KEYS",
    "looks_like_openai_messages",
    "read_openai_messages",
    "trace_from_messages",
]

# The keys a record may hold its messages under; exactly one must be present.
CONVERSATION_KEYS: Final = ("messages", "traj", "conversation")
# The record fields that name its trace, in order of preference.
TRACE_ID_KEYS: Final = ("trace_id", "id")

_SPAN_ID_HEX_DIGITS: Final = 16  # 8 bytes, the size OpenTelemetry gives span ids
_CONTENT_HASH_HEX_DIGITS: Final = 16

_ROLE_FIELD: Final = re.compile(
    rb'"role"\s*:\s*"(?:' + b"|".join(role.encode() for role in ROLES) + rb')"'
)
_OPENAI_MESSAGE_FIELD: Final = re.compile(rb'"(?:content|tool_calls|tool_call_id)"\s*:')
# Where this reader looks for messages: under a conversation key, or a bare array (of arrays) of
# messages whose first object names its role before any nested object.
_CONVERSATION_ARRAY: Final = re.compile(
    rb'"(?:' + b"|".join(key.encode() for key in CONVERSATION_KEYS) + rb')"\s*:\s*\['
)
_BARE_MESSAGE_LIST: Final = re.compile(rb'\[\s*(?:\[\s*)?\{[^{}]*"role"\s*:')
# Messages of other shapes that also have roles: Gemini and ADK ("parts") and Anthropic
# ("tool_use" blocks). Reading them as OpenAI messages would hide their tool calls.
_OTHER_MESSAGE_SHAPE: Final = re.compile(rb'"parts"\s*:|"type"\s*:\s*"tool_use"')


def looks_like_openai_messages(head: bytes) -> bool:
    """The first bytes of an input hold OpenAI chat messages where this reader looks for them
    (under a conversation key, or as a bare array): a known ``role`` and a ``content`` or
    tool-call field, and no sign of another vendor's message shape."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return (
        text[:1] in (b"[", b"{")
        and (
            _BARE_MESSAGE_LIST.match(text) is not None
            or _CONVERSATION_ARRAY.search(text) is not None
        )
        and _ROLE_FIELD.search(text) is not None
        and _OPENAI_MESSAGE_FIELD.search(text) is not None
        and _OTHER_MESSAGE_SHAPE.search(text) is None
    )


def read_openai_messages(stream: BinaryIO, source: str) -> Iterator[Trace | Rejection]:
    """A Trace for each conversation record of ``stream``, or a Rejection saying what is wrong
    with it and where; bad records do not stop the others."""
    stem = PurePath(source).stem or source
    records = read_json_records(stream.read(), source, array_is_one_record=_is_message_list)
    for record in records:
        yield record if isinstance(record, Rejection) else _import_record(record, source, stem)


def trace_from_messages(
    messages: list[dict[str, Any]],
    *,
    trace_id: str,
    metadata: dict[str, Any] | None = None,
    source: str = "<input>",
    path: str = "",
) -> Trace:
    """The Trace of one conversation. What cannot be read is left out and named in its reading
    report, whose fields start with ``path``, where ``messages`` sit in the source
    (``[17].traj``). A RecordError names the first bad field of a broken conversation, as a
    path into ``messages`` (``[5].tool_call_id``), for the caller to place."""
    if not trace_id:
        raise UsageError("trace_from_messages needs a non-empty trace_id")
    try:
        return _trace(messages, trace_id, metadata or {}, path)
    except RecordError as error:
        raise RecordError(error.message, source=source, field=error.field) from None


def _trace(raw_messages: Any, trace_id: str, metadata: dict[str, Any], path: str) -> Trace:
    if not isinstance(raw_messages, list):
        raise RecordError(f"messages must be a JSON array, not {json_kind(raw_messages)}")
    if not raw_messages:
        raise RecordError("a conversation needs at least one message")
    read = _read_messages(raw_messages, path)
    answers = tool_call_answers(
        read.messages, positions=read.positions, note=read.note_pairing if read.left_out else None
    )
    if read.report:
        metadata = {**metadata, UNREAD_METADATA_KEY: read.report}
    final = read.last_answer
    return Trace(
        trace_id=trace_id,
        input=read.messages,
        final_output=final.text if final is not None and final.text else None,
        spans=_spans(trace_id, read.messages, answers),
        metadata=metadata,
    )


@dataclass(slots=True)
class _ReadMessages:
    """The messages of a conversation that could be read, and the reading report of the rest."""

    path: str  # where the messages sit in the source, which the report's fields start with
    messages: list[Message] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)  # each message's index in the source
    report: list[dict[str, Any]] = field(default_factory=list)
    left_out: bool = False
    # The last assistant message, None when it was left out (or there is none).
    last_answer: Message | None = None

    def keep(self, index: int, message: Message, unkept: dict[str, Any]) -> None:
        self.messages.append(message)
        self.positions.append(index)
        if message.role == "assistant":
            self.last_answer = message
        for where, value in unkept.items():
            self._note(
                where,
                "the trace model has no place for this field; the message is read without it",
                value,
            )

    def leave_out(self, index: int, raw: dict[str, Any], error: RecordError) -> None:
        self.left_out = True
        if message_role(raw) == "assistant":
            self.last_answer = None
        inside = (error.field or "").removeprefix(f"[{index}]").removeprefix(".")
        self._note(f"[{index}]", f"{inside}: {error.message}" if inside else error.message, raw)

    def note_pairing(self, error: RecordError) -> None:
        self._note(error.field or "", error.message)

    def _note(self, where: str, reason: str, kept: Any = None) -> None:
        # What is kept is never None: a message is an object, an unkept field holds something.
        part = {"span_id": None, "field": _join_path(self.path, where), "reason": reason}
        self.report.append(part if kept is None else {**part, "kept": kept})


def _read_messages(raw_messages: list[Any], path: str) -> _ReadMessages:
    read = _ReadMessages(path)
    for index, raw in enumerate(raw_messages):
        if not isinstance(raw, dict):
            raise RecordError(
                f"a message must be a JSON object, not {json_kind(raw)}", field=f"[{index}]"
            )
        try:
            message, unkept = read_message(raw, f"[{index}]")
        except RecordError as error:
            read.leave_out(index, raw, error)
        else:
            read.keep(index, message, unkept)
    return read


def _spans(
    trace_id: str, messages: list[Message], answers: dict[tuple[int, int], int]
) -> list[Span]:
    root_id = _span_id(trace_id, "agent")
    spans = [
        Span(
            trace_id=trace_id,
            span_id=root_id,
            name=semconv.OPERATION_INVOKE_AGENT,
            kind="agent",
            start_ns=0,
            end_ns=len(messages),
        )
    ]
    sequence = 0
    for index, message in enumerate(messages):
        if message.role != "assistant":
            continue
        spans.append(
            Span(
                trace_id=trace_id,
                span_id=_span_id(trace_id, f"message {index}"),
                parent_id=root_id,
                name=semconv.OPERATION_CHAT,
                kind="llm",
                start_ns=index,
                end_ns=index + 1,
                llm=ModelInvocation(output_messages=[message]),
            )
        )
        for position, call in enumerate(message.tool_calls):
            # A call no message read answers has no result; it lasts to the last message.
            answer = answers.get((index, position))
            spans.append(
                Span(
                    trace_id=trace_id,
                    span_id=_span_id(trace_id, f"message {index} tool call {position}"),
                    parent_id=root_id,
                    name=f"{semconv.EXECUTE_TOOL_SPAN_NAME_PREFIX}{call.name}",
                    kind="tool",
                    start_ns=index + 1,
                    end_ns=answer + 1 if answer is not None else len(messages),
                    tool=ToolInvocation(
                        name=call.name,
                        call_id=call.id,
                        arguments=call.arguments,
                        result=messages[answer].content if answer is not None else None,
                        sequence=sequence,
                    ),
                )
            )
            sequence += 1
    return spans


def _span_id(trace_id: str, position: str) -> str:
    digest = hashlib.sha256(f"{trace_id}\n{position}".encode()).hexdigest()
    return digest[:_SPAN_ID_HEX_DIGITS]


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Conversation:
    messages: Any
    path: str  # field path of the messages in the input: "[17].traj", "traj", "[3]", ""
    metadata: dict[str, Any]


def _is_message_list(array: list[Any]) -> bool:
    return bool(array) and isinstance(array[0], dict) and "role" in array[0]


def _import_record(record: JsonRecord, source: str, stem: str) -> Trace | Rejection:
    trace_id: str | None = None
    try:
        trace_id = _trace_id(record, stem)
        conversation = _conversation(record)
    except RecordError as error:
        return Rejection(
            source, error.message, line=record.start_line(), field=error.field, trace_id=trace_id
        )
    try:
        return trace_from_messages(
            conversation.messages,
            trace_id=trace_id,
            metadata=conversation.metadata,
            source=source,
            path=conversation.path,
        )
    except RecordError as error:
        return Rejection(
            source,
            error.message,
            line=record.start_line(),
            field=_join_path(conversation.path, error.field or "") or None,
            trace_id=trace_id,
        )


def _conversation(record: JsonRecord) -> _Conversation:
    value = record.value
    if isinstance(value, list):
        return _Conversation(value, record.path, {})
    if not isinstance(value, dict):
        raise RecordError(
            "a record must be an array of messages or an object holding one,"
            f" not {json_kind(value)}",
            field=record.path or None,
        )
    keys = [key for key in CONVERSATION_KEYS if key in value]
    if len(keys) != 1:
        found = f"has {' and '.join(map(repr, keys))}" if keys else "has none of them"
        raise RecordError(
            f"a record holds its messages under exactly one of {', '.join(CONVERSATION_KEYS)};"
            f" this one {found}",
            field=record.path or None,
        )
    (key,) = keys
    metadata = {name: field for name, field in value.items() if name != key}
    return _Conversation(value[key], _join_path(record.path, key), metadata)


def _trace_id(record: JsonRecord, stem: str) -> str:
    named_keys = TRACE_ID_KEYS if isinstance(record.value, dict) else ()
    for key in named_keys:
        named = record.value.get(key)
        if named is None:
            continue
        if isinstance(named, str) and named:
            return named
        if isinstance(named, int) and not isinstance(named, bool):
            return str(named)
        raise RecordError(
            f"a trace id must be non-empty text or an integer, not {json_kind(named)}",
            field=_join_path(record.path, key),
        )
    return _generated_trace_id(record, stem)


def _generated_trace_id(record: JsonRecord, stem: str) -> str:
    canonical = orjson.dumps(record.value, option=orjson.OPT_SORT_KEYS)
    digest = hashlib.sha256(canonical).hexdigest()[:_CONTENT_HASH_HEX_DIGITS]
    return f"{stem}:{record.index}:{digest}"


def _join_path(prefix: str, field: str) -> str:
    """``[17]`` + ``traj`` → ``[17].traj``; ``[17].traj`` + ``[5].role`` → ``[17].traj[5].role``."""
    if not prefix or not field or field.startswith("["):
        return prefix + field
    return f"{prefix}.{field}"
