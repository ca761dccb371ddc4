"""The spans Pydantic Logfire writes for the OpenAI Agents SDK
(``logfire.instrument_openai_agents()``, instrumentation scope ``logfire.openai_agents``), read
from the recording openai-agents-0.24.0-logfire-5.4.0 and logfire's
``_internal/integrations/openai_agents.py``.

Logfire writes no convention's kind or tool attributes: each SDK span becomes a span named by
its ``logfire.msg_template`` whose attributes are the SDK's span data, exported as they are
(``name``, ``input``, ``output``, ...; objects as JSON text). Which SDK span it is, is the
template (``Function: {name}``), or for the SDK's newer spans, whose template holds their names,
the data's ``sdk_span_type`` (``task``, ``turn``). One row of :data:`SPAN_SHAPES` per type says
its kind and the attributes read:

- ``Function: {name}``: a tool call; ``name`` is the tool, ``input`` the arguments as the model
  sent them (JSON text), ``output`` what the tool returned (JSON text for an object, kept as
  recorded on the span: :class:`~trailcheck.trace.ToolCall` parses it), ``error`` the SDK's
  ``{"message", "data": {"tool_name", "error"}}`` when it failed (the text is ``data.error``, the
  exception's message). No call id is recorded: the model's messages supply it.
- ``Chat completion with {gen_ai.request.model!r}``: a model call; ``input`` and ``output`` are the
  Chat Completions messages sent and received; model and tokens are the ``gen_ai.*`` attributes
  logfire adds, read by the conventions.
- ``Agent run: {name!r}``: the agent; its ``name`` is the trace's ``agent_name``.
- ``OpenAI Agents trace: {name}``: the SDK's trace; its ``group_id`` (the SDK's id linking a
  conversation's traces, ``RunConfig.group_id``) is the trace's ``session_id``.
- ``task`` and ``turn``: steps of the run; their ``usage`` is the sum of the model calls under them.

``known`` names what a row's spans hold that the trace model has no place for, or that repeats
what is read (``request_data`` is ``input`` and ``output`` again; ``usage`` the ``gen_ai.usage.*``
counts). Logfire's own bookkeeping (:data:`LOGFIRE_OWN`) and ``gen_ai.*`` (the conventions') are
known on every span, and an attribute that holds nothing (``null``) says nothing. Any other
attribute, and every span of a type without a row (Handoff, Guardrail, Responses API, ...), is
kept verbatim and named in the trace's reading report (:mod:`trailcheck.importing.unread`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.chat_messages import parse_message
from trailcheck.importing.conventions.genai_events import Messages
from trailcheck.importing.conventions.genai_messages import decode_json, json_kind, tool_arguments
from trailcheck.importing.conventions.text_attributes import text_attribute
from trailcheck.importing.records import RawSpan
from trailcheck.importing.unread import UnreadParts
from trailcheck.trace import Message, Span, SpanKind, ToolInvocation, parse_json_text, semconv

SCOPE: Final = "logfire.openai_agents"
MSG_TEMPLATE: Final = "logfire.msg_template"
SDK_SPAN_TYPE: Final = "sdk_span_type"

FUNCTION: Final = "Function: {name}"
GENERATION: Final = "Chat completion with {gen_ai.request.model!r}"
AGENT: Final = "Agent run: {name!r}"
TRACE: Final = "OpenAI Agents trace: {name}"

# On every span: logfire's bookkeeping, the code location, and the SDK's span type.
LOGFIRE_OWN: Final = frozenset(
    {
        "code.filepath",
        "code.function",
        "code.lineno",
        "logfire.msg_template",
        "logfire.msg",
        "logfire.span_type",
        "logfire.json_schema",
        "logfire.tags",
        "logfire.level_num",
        "type",
        SDK_SPAN_TYPE,
    }
)


@dataclass(frozen=True)
class LogfireSpanShape:
    """One SDK span type as logfire writes it (see the module docstring)."""

    kind: SpanKind
    read: frozenset[str] = frozenset()
    known: frozenset[str] = frozenset()

    def messages(self, attributes: Mapping[str, Any]) -> Messages:
        """A model call's Chat Completions messages: ``input`` and ``output``."""
        if self.kind != "llm":
            return None, None
        return _chat_messages(attributes, "input"), _chat_messages(attributes, "output")

    def tool(self, raw: RawSpan) -> ToolInvocation:
        """A Function span's call."""
        name = text_attribute(raw.attributes, "name")
        if not name:
            raise RecordError(
                "a logfire Function span needs its tool's name", field="attributes.name"
            )
        arguments = raw.attributes.get("input")
        return ToolInvocation(
            name=name,
            arguments=tool_arguments(arguments or None, "attributes.input"),
            result=raw.attributes.get("output"),
            error=_error_text(raw),
        )


SPAN_SHAPES: Final[Mapping[str, LogfireSpanShape]] = {
    FUNCTION: LogfireSpanShape("tool", read=frozenset({"name", "input", "output", "error"})),
    GENERATION: LogfireSpanShape(
        "llm",
        read=frozenset({"input", "output"}),
        known=frozenset({"model_config", "usage", "request_data"}),
    ),
    AGENT: LogfireSpanShape(
        "agent", read=frozenset({"name"}), known=frozenset({"handoffs", "tools", "output_type"})
    ),
    TRACE: LogfireSpanShape(
        "other", read=frozenset({"group_id"}), known=frozenset({"name", "agent_trace_id"})
    ),
    "task": LogfireSpanShape("other", known=frozenset({"name", "usage"})),
    "turn": LogfireSpanShape("other", known=frozenset({"name", "turn", "agent_name", "usage"})),
}

# Trace.metadata key → the span type and attribute that give it (the first in tree order).
TRACE_METADATA: Final[Mapping[str, tuple[str, str]]] = {
    "session_id": (TRACE, "group_id"),
    "agent_name": (AGENT, "name"),
}


def logfire_span_shape(raw: RawSpan, unread: UnreadParts | None) -> LogfireSpanShape | None:
    """The row of a span logfire wrote for the OpenAI Agents SDK; ``None`` for any other span
    (and for a logfire span of a type without a row, which the conventions read as they can).
    What the span holds that no row reads is named in ``unread``."""
    if raw.scope_name != SCOPE:
        return None
    span_type = span_type_of(raw.attributes)
    shape = SPAN_SHAPES.get(span_type or "")
    if unread is not None:
        for where, reason in _unread_parts(raw.attributes, span_type, shape):
            unread.note(raw.span_id, where, reason)
    return shape


def span_type_of(attributes: Mapping[str, Any]) -> str | None:
    """Which SDK span logfire wrote: ``sdk_span_type`` where the data names it, else the
    message template."""
    for key in (SDK_SPAN_TYPE, MSG_TEMPLATE):
        value = attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def logfire_trace_metadata(spans: Iterable[Span]) -> dict[str, Any]:
    """What logfire's spans give ``Trace.metadata`` (:data:`TRACE_METADATA`); ``spans`` in tree
    order."""
    found: dict[str, Any] = {}
    for span in spans:
        if span.attributes.get(semconv.OTEL_SCOPE_NAME) != SCOPE:
            continue
        span_type = span_type_of(span.attributes)
        for metadata_key, (source_type, attribute) in TRACE_METADATA.items():
            value = span.attributes.get(attribute)
            if span_type == source_type and isinstance(value, str) and value:
                found.setdefault(metadata_key, value)
    return found


def _unread_parts(
    attributes: Mapping[str, Any], span_type: str | None, shape: LogfireSpanShape | None
) -> list[tuple[str, str]]:
    if shape is None:
        return [
            (
                f"attributes.{MSG_TEMPLATE}",
                f"logfire's OpenAI Agents span {span_type!r} is not read; its attributes are kept",
            )
        ]
    return [
        (f"attributes.{key}", f"logfire's {span_type!r} span attribute {key!r} is not read")
        for key, value in attributes.items()
        if key not in LOGFIRE_OWN
        and key not in shape.read
        and key not in shape.known
        and not key.startswith("gen_ai.")
        and not _says_nothing(value)
    ]


def _says_nothing(value: Any) -> bool:
    """``None``, logfire's JSON ``null``, or an empty text, array or object."""
    return value is None or value == "null" or (isinstance(value, str | list | dict) and not value)


def _chat_messages(attributes: Mapping[str, Any], key: str) -> list[Message] | None:
    if key not in attributes:
        return None
    field = f"attributes.{key}"
    decoded = decode_json(attributes[key], field)
    if not isinstance(decoded, list):
        raise RecordError(f"messages must be a JSON array, not {json_kind(decoded)}", field=field)
    return [parse_message(item, f"{field}[{index}]") for index, item in enumerate(decoded)]


def _error_text(raw: RawSpan) -> str | None:
    """A failed call's text: the SDK's error ``data.error`` (the exception's message), else its
    ``message``, else the span's status message."""
    recorded = raw.attributes.get("error")
    if recorded is None and raw.status_code != "error":
        return None
    error = parse_json_text(recorded)
    if isinstance(error, dict):
        data = error.get("data")
        detail = data.get("error") if isinstance(data, dict) else None
        for text in (detail, error.get("message")):
            if isinstance(text, str) and text:
                return text
    return raw.status_message or None
