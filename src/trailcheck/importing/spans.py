"""How a recorded span becomes a trailcheck :class:`~trailcheck.trace.Span`: its kind, its tool
call, its model call. Every span-based importer maps its spans through :func:`map_span`.

Where several conventions could record a fact, the first that does supplies it:

- **kind**: ``gen_ai.operation.name`` (invoke_agent, create_agent → agent; chat,
  text_completion, generate_content, embeddings → llm; execute_tool → tool; retrieval →
  retriever), else ``openinference.span.kind`` (AGENT → agent; LLM, EMBEDDING → llm; TOOL →
  tool; RETRIEVER, RERANKER → retriever; GUARDRAIL → guard; CHAIN, EVALUATOR and others →
  other), else OpenLLMetry's ``traceloop.span.kind`` (agent → agent; tool → tool), else other.
- **tool name**: ``gen_ai.tool.name``, ``tool.name``, a vendor tool-call object, the span name
  ``execute_tool {name}``, ``traceloop.entity.name``. **call id**: ``gen_ai.tool.call.id``,
  ``tool_call.id``, a LangChain tool message's ``tool_call_id``.
- **arguments** (a JSON object, or its text): ``gen_ai.tool.call.arguments``, ``input.value``
  (OpenInference records a TOOL span's arguments there; text that is not a JSON object and not
  declared JSON records none), ADK v1's ``gcp.vertex.agent.tool_call_args``, the vendor object,
  ``traceloop.entity.input``; none recorded is ``{}``. **result**, kept exactly as recorded:
  ``gen_ai.tool.call.result``, a LangChain tool message's content, ``output.value``, ADK v1's
  ``tool_response``, the vendor object, ``traceloop.entity.output``.
- **tool error**: when the span's status is error or ``error.type`` is set: the status message
  (unless it is a traceback dump), else the ``exception`` event's ``Type: message``, else
  ``error.type``; else a LangChain tool message marked as an error, else the vendor's error text.
  A status error without any text leaves the text to :class:`~trailcheck.trace.ToolCall`.
  (The tool span rules: :mod:`trailcheck.importing.tool_spans`.)
- **order**: ``trailcheck.sequence``, else a vendor's sequence attribute.
- **model call**: model from ``gen_ai.response.model``, ``gen_ai.request.model``,
  ``llm.model_name``; provider from ``gen_ai.provider.name``, ``gen_ai.system``,
  ``llm.provider``, ``llm.system``; tokens from ``gen_ai.usage.*_tokens``, ``llm.token_count.*``;
  messages from ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (with
  ``gen_ai.system_instructions`` as a leading system message), else OpenInference's flattened
  ``llm.input_messages`` / ``llm.output_messages``, else Google ADK's v1 request and response
  (:mod:`trailcheck.importing.shapes.frameworks`), else the span's GenAI events, which may be log
  records joined to it (:mod:`trailcheck.importing.conventions.genai_events`). ADK v1's
  ``call_llm`` span is an llm span. A tool result an Anthropic request in ``input.value`` marks
  ``is_error`` makes its tool message a failed response
  (:mod:`trailcheck.importing.shapes.anthropic_results`).

The spans logfire writes for the OpenAI Agents SDK follow none of these: their kind, tool call
and messages are read by their own shapes (:mod:`trailcheck.importing.shapes.logfire_agents`).

The source's attributes stay on the span verbatim, with what OTLP records beside them (span kind,
links, trace state, dropped counts, scope) added under reserved ``otel.*`` names; a source
attribute under one of those names with another value rejects the span
(:mod:`trailcheck.importing.transport.otel_attributes`). Messages are read on every span, whatever
its kind. A part that no reader understands (a message role, a
content shape, a tool span without a name, a token count that is not a count) is left out of
what trailcheck derives and named in the trace's reading report
(:mod:`trailcheck.importing.unread`); the attributes keep it verbatim. Broken structure raises
:class:`~trailcheck.errors.RecordError` naming the source, line, span and field; nothing is
repaired.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Protocol, TypeVar

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.genai_events import (
    Messages,
    event_message_attributes,
    events_from_json,
    per_message_events,
)
from trailcheck.importing.conventions.genai_messages import (
    flattened_messages,
    messages_from_json,
    system_instructions_message,
)
from trailcheck.importing.conventions.indexed_completions import with_indexed_calls
from trailcheck.importing.conventions.text_attributes import first_text, text_attribute
from trailcheck.importing.records import RawSpan
from trailcheck.importing.shapes.anthropic_results import with_failed_results
from trailcheck.importing.shapes.frameworks import (
    ADK_LLM_REQUEST,
    adk_messages,
    is_adk_merged_tools,
)
from trailcheck.importing.shapes.logfire_agents import logfire_span_shape
from trailcheck.importing.shapes.rows import EVENTS_ATTRIBUTES, VALUE_MESSAGES, ValueMessages
from trailcheck.importing.tool_spans import ends_the_run, tool_invocation
from trailcheck.importing.transport.otel_attributes import otel_attributes, with_reserved
from trailcheck.importing.unread import UnreadParts
from trailcheck.trace import (
    Message,
    ModelInvocation,
    Span,
    SpanEvent,
    SpanKind,
    Status,
    Usage,
    semconv,
)

T = TypeVar("T")


class Interpret(Protocol):
    """Read a part of a span, or (when it is not understood and noted) take the fallback."""

    def __call__(self, read: Callable[[], T], fallback: T) -> T: ...


OPERATION_KINDS: Final[Mapping[str, SpanKind]] = {
    semconv.OPERATION_INVOKE_AGENT: "agent",
    semconv.OPERATION_CREATE_AGENT: "agent",
    semconv.OPERATION_CHAT: "llm",
    semconv.OPERATION_TEXT_COMPLETION: "llm",
    semconv.OPERATION_GENERATE_CONTENT: "llm",
    semconv.OPERATION_EMBEDDINGS: "llm",
    semconv.OPERATION_EXECUTE_TOOL: "tool",
    semconv.OPERATION_RETRIEVAL: "retriever",
}

OPENINFERENCE_KINDS: Final[Mapping[str, SpanKind]] = {
    semconv.SPAN_KIND_AGENT: "agent",
    semconv.SPAN_KIND_CHAIN: "other",
    semconv.SPAN_KIND_LLM: "llm",
    semconv.SPAN_KIND_EMBEDDING: "llm",
    semconv.SPAN_KIND_TOOL: "tool",
    semconv.SPAN_KIND_RETRIEVER: "retriever",
    semconv.SPAN_KIND_RERANKER: "retriever",
    semconv.SPAN_KIND_GUARDRAIL: "guard",
    semconv.SPAN_KIND_EVALUATOR: "other",
}

# OpenLLMetry's entity kinds; its workflow and task spans are a framework's own steps.
TRACELOOP_KINDS: Final[Mapping[str, SpanKind]] = {
    semconv.TRACELOOP_KIND_AGENT: "agent",
    semconv.TRACELOOP_KIND_TOOL: "tool",
}

_MODEL_KEYS: Final = (
    semconv.GEN_AI_RESPONSE_MODEL,
    semconv.GEN_AI_REQUEST_MODEL,
    semconv.LLM_MODEL_NAME,
)
_PROVIDER_KEYS: Final = (
    semconv.GEN_AI_PROVIDER_NAME,
    semconv.GEN_AI_SYSTEM,
    semconv.LLM_PROVIDER,
    semconv.LLM_SYSTEM,
)
_INPUT_TOKEN_KEYS: Final = (semconv.GEN_AI_USAGE_INPUT_TOKENS, semconv.LLM_TOKEN_COUNT_PROMPT)
_OUTPUT_TOKEN_KEYS: Final = (semconv.GEN_AI_USAGE_OUTPUT_TOKENS, semconv.LLM_TOKEN_COUNT_COMPLETION)


def map_span(raw: RawSpan, source: str, unread: UnreadParts | None = None) -> Span:
    """``raw`` as a Span, understood through the conventions. A part no reader understands
    (messages, a tool call, token counts) is noted in ``unread`` and left out; without
    ``unread`` it is a RecordError. RecordError for a broken span, naming the span's own
    source when it has one, else ``source``."""
    try:
        return _span(raw, unread)
    except RecordError as error:
        raise RecordError(
            error.message,
            source=raw.source or source,
            line=raw.line,
            span_id=raw.span_id,
            field=error.field,
        ) from None


def _span(raw: RawSpan, unread: UnreadParts | None) -> Span:
    attributes = with_reserved(raw.attributes, otel_attributes(raw), "attributes")
    logfire = logfire_span_shape(raw, unread)  # logfire's OpenAI Agents spans: their own shapes
    kind = span_kind(attributes) if logfire is None else logfire.kind

    def interpreted(read: Callable[[], T], fallback: T) -> T:
        return read() if unread is None else unread.attempt(read, fallback, raw.span_id)

    unknown: Messages = (None, None)
    input_messages, output_messages = interpreted(
        lambda: (
            span_messages(attributes, raw.events)
            if logfire is None
            else logfire.messages(attributes)
        ),
        unknown,
    )
    if kind == "llm" and raw.scope_name in VALUE_MESSAGES:
        input_messages, output_messages = interpreted(
            lambda: _value_messages(attributes, VALUE_MESSAGES[raw.scope_name or ""]),
            (input_messages, output_messages),
        )
    if kind == "tool" and ends_the_run(raw):
        kind = "other"  # the framework's own step (smolagents' final_answer), not a call
    read_tool = tool_invocation if logfire is None else logfire.tool
    tool = interpreted(lambda: read_tool(raw), None) if kind == "tool" else None
    if kind == "tool" and tool is None:
        kind = "other"  # a tool call nobody could read: the span stays, with its attributes
    try:
        return Span(
            trace_id=raw.trace_id,
            span_id=raw.span_id,
            parent_id=raw.parent_id,
            name=raw.name,
            kind=kind,
            start_ns=raw.start_ns,
            end_ns=raw.end_ns,
            status=Status(code=raw.status_code, message=raw.status_message),
            attributes=attributes,
            events=raw.events,
            tool=tool,
            llm=_model_invocation(attributes, input_messages, output_messages, interpreted)
            if kind == "llm"
            else None,
        )
    except ValueError as error:  # an invariant of the span (its __post_init__)
        raise RecordError(str(error)) from None


def span_kind(attributes: Mapping[str, Any]) -> SpanKind:
    """The kind of a span with these attributes."""
    operation = text_attribute(attributes, semconv.GEN_AI_OPERATION_NAME)
    if operation is not None and operation in OPERATION_KINDS:
        kind = OPERATION_KINDS[operation]
        if kind == "tool" and is_adk_merged_tools(attributes, semconv.GEN_AI_TOOL_NAME):
            return "other"
        return kind
    openinference_kind = text_attribute(attributes, semconv.OPENINFERENCE_SPAN_KIND)
    if openinference_kind is not None and openinference_kind in OPENINFERENCE_KINDS:
        return OPENINFERENCE_KINDS[openinference_kind]
    if ADK_LLM_REQUEST in attributes:
        return "llm"  # ADK v1's call_llm span: a model call, recorded its own way
    traceloop_kind = text_attribute(attributes, semconv.TRACELOOP_SPAN_KIND)
    return TRACELOOP_KINDS.get(traceloop_kind or "", "other")


def recorded_messages(
    attributes: Mapping[str, Any], where: str = "attributes"
) -> tuple[list[Message] | None, list[Message] | None]:
    """The input and output messages a span records, each ``None`` when it records none.
    ``where`` names the attributes in errors (an event's: ``events[2].attributes``)."""
    inputs = _messages(attributes, semconv.GEN_AI_INPUT_MESSAGES, semconv.LLM_INPUT_MESSAGES, where)
    if semconv.GEN_AI_SYSTEM_INSTRUCTIONS in attributes:
        instructions = system_instructions_message(
            attributes[semconv.GEN_AI_SYSTEM_INSTRUCTIONS],
            f"{where}.{semconv.GEN_AI_SYSTEM_INSTRUCTIONS}",
        )
        inputs = [instructions, *(inputs or [])]
    outputs = _messages(
        attributes, semconv.GEN_AI_OUTPUT_MESSAGES, semconv.LLM_OUTPUT_MESSAGES, where
    )
    return inputs, with_indexed_calls(attributes, outputs)


def span_messages(
    attributes: Mapping[str, Any], events: Sequence[SpanEvent]
) -> tuple[list[Message] | None, list[Message] | None]:
    """A span's messages: from its attributes, else from its GenAI events (span events or log
    records joined to it, :mod:`trailcheck.importing.conventions.genai_events`)."""
    inputs, outputs = recorded_messages(attributes)
    if inputs is not None:
        inputs = with_failed_results(inputs, attributes.get(semconv.INPUT_VALUE))
    if inputs is None and outputs is None:
        inputs, outputs = adk_messages(attributes)
    if inputs is None and outputs is None:
        events = [*events, *_embedded_events(attributes)]
    if (inputs is not None and outputs is not None) or not events:
        return inputs, outputs
    # A side the attributes do not record may be in the events (OpenLLMetry's LangChain
    # instrumentation: output messages as an attribute, the input as log events).
    from_events = _event_messages(events)
    return (
        inputs if inputs is not None else from_events[0],
        outputs if outputs is not None else from_events[1],
    )


def _value_messages(attributes: Mapping[str, Any], shape: ValueMessages) -> Messages:
    """A model call's messages as its framework's own objects in ``input.value`` and
    ``output.value``, where the instrumentation's row says so; the flattened ones otherwise."""
    fields = (f"attributes.{semconv.INPUT_VALUE}", f"attributes.{semconv.OUTPUT_VALUE}")
    inputs = shape.read(attributes.get(semconv.INPUT_VALUE), shape.input_key, fields[0])
    outputs = shape.read(attributes.get(semconv.OUTPUT_VALUE), shape.output_key, fields[1])
    return inputs, outputs


def _embedded_events(attributes: Mapping[str, Any]) -> list[SpanEvent]:
    key = EVENTS_ATTRIBUTES.get(text_attribute(attributes, semconv.OTEL_SCOPE_NAME) or "")
    if key is None or key not in attributes:
        return []
    return events_from_json(attributes[key], f"attributes.{key}")


def _event_messages(events: Sequence[SpanEvent]) -> Messages:
    details = event_message_attributes(events)
    if details is not None:
        inputs, outputs = recorded_messages(*details)
        if inputs is not None or outputs is not None:
            return inputs, outputs
    return per_message_events(events)


def _messages(
    attributes: Mapping[str, Any], genai_key: str, flattened_prefix: str, where: str
) -> list[Message] | None:
    if genai_key in attributes:
        return messages_from_json(attributes[genai_key], f"{where}.{genai_key}")
    return flattened_messages(attributes, flattened_prefix)


def _model_invocation(
    attributes: Mapping[str, Any],
    input_messages: list[Message] | None,
    output_messages: list[Message] | None,
    interpreted: Interpret,
) -> ModelInvocation:
    input_tokens = interpreted(lambda: _token_count(attributes, _INPUT_TOKEN_KEYS), None)
    output_tokens = interpreted(lambda: _token_count(attributes, _OUTPUT_TOKEN_KEYS), None)
    recorded_usage = input_tokens is not None or output_tokens is not None
    return ModelInvocation(
        model=first_text(attributes, _MODEL_KEYS),
        provider=first_text(attributes, _PROVIDER_KEYS),
        input_messages=input_messages,
        output_messages=output_messages,
        usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens)
        if recorded_usage
        else None,
    )


def _token_count(attributes: Mapping[str, Any], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        if key in attributes:
            value = attributes[key]
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise RecordError(
                    f"a token count must be an integer ≥ 0, not {value!r}",
                    field=f"attributes.{key}",
                )
            return value
    return None
