"""How a recorded span becomes a trailcheck :class:`~trailcheck.trace.Span`: its kind, its tool
call, its model call. Every span-based importer maps its spans through :func:`map_span`.

Where several conventions could record a fact, the first that does supplies it:

- **kind**: ``gen_ai.operation.name`` (invoke_agent, create_agent → agent; chat,
  text_completion, generate_content, embeddings → llm; execute_tool → tool), else
  ``openinference.span.kind`` (AGENT → agent; LLM, EMBEDDING → llm; TOOL → tool; RETRIEVER,
  RERANKER → retriever; GUARDRAIL → guard; CHAIN, EVALUATOR and others → other), else other.
- **tool name**: ``gen_ai.tool.name``, ``tool.name``, a vendor tool-call object, the span name
  ``execute_tool {name}``. **call id**: ``gen_ai.tool.call.id``, ``tool_call.id``.
- **arguments** (a JSON object, or its text): ``gen_ai.tool.call.arguments``, ``input.value``
  (OpenInference records a TOOL span's arguments there), the vendor object; none recorded is
  ``{}``. **result**, kept exactly as recorded: ``gen_ai.tool.call.result``, ``output.value``,
  the vendor object.
- **tool error**: when the span's status is error, ``error.type`` is set or the vendor object
  says so; the status message, else ``error.type``, else the vendor's error text. A status
  error without any text leaves the text to :class:`~trailcheck.trace.ToolCall`.
- **order**: ``trailcheck.sequence``, else a vendor's sequence attribute.
- **model call**: model from ``gen_ai.response.model``, ``gen_ai.request.model``,
  ``llm.model_name``; provider from ``gen_ai.provider.name``, ``gen_ai.system``,
  ``llm.provider``, ``llm.system``; tokens from ``gen_ai.usage.*_tokens``, ``llm.token_count.*``;
  messages from ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (with
  ``gen_ai.system_instructions`` as a leading system message), else OpenInference's flattened
  ``llm.input_messages`` / ``llm.output_messages``, else Google ADK's v1 request and response
  (:mod:`trailcheck.ingest.frameworks`), else the span's GenAI events, which may be log records
  joined to it (:mod:`trailcheck.ingest.genai_events`). ADK v1's ``call_llm`` span is an llm
  span.

The source's attributes stay on the span verbatim, with what OTLP records beside them (span kind,
links, trace state, dropped counts, scope) added under reserved ``otel.*`` names; a source
attribute under one of those names with another value rejects the span
(:mod:`trailcheck.ingest.otel_attributes`). Messages are parsed on every span, so a span
of any kind with unreadable messages is rejected. Bad data raises
:class:`~trailcheck.errors.RecordError` naming the source, line, span and field; nothing is
repaired or dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import orjson
from pydantic import ValidationError

from trailcheck.errors import RecordError
from trailcheck.ingest.frameworks import (
    ADK_LLM_REQUEST,
    ADK_TOOL_CALL_ARGS,
    ADK_TOOL_RESPONSE,
    ADK_UNSPECIFIED_CALL_ID,
    LangChainToolMessage,
    adk_messages,
    adk_tool_value,
    is_adk_merged_tools,
    langchain_tool_message,
)
from trailcheck.ingest.genai_events import event_message_attributes, per_message_events
from trailcheck.ingest.genai_messages import (
    flattened_messages,
    json_kind,
    messages_from_json,
    system_instructions_message,
    tool_arguments,
)
from trailcheck.ingest.otel_attributes import otel_attributes, with_reserved
from trailcheck.ingest.records import RawSpan, validation_record_error
from trailcheck.ingest.vendors import VendorToolCall, sequence_attributes, vendor_tool_call
from trailcheck.trace import (
    Message,
    ModelInvocation,
    Span,
    SpanEvent,
    SpanKind,
    Status,
    ToolInvocation,
    Usage,
    semconv,
)

OPERATION_KINDS: Final[Mapping[str, SpanKind]] = {
    semconv.OPERATION_INVOKE_AGENT: "agent",
    semconv.OPERATION_CREATE_AGENT: "agent",
    semconv.OPERATION_CHAT: "llm",
    semconv.OPERATION_TEXT_COMPLETION: "llm",
    semconv.OPERATION_GENERATE_CONTENT: "llm",
    semconv.OPERATION_EMBEDDINGS: "llm",
    semconv.OPERATION_EXECUTE_TOOL: "tool",
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
_PYTHON_TRACEBACK: Final = "Traceback (most recent call last):"
_INPUT_TOKEN_KEYS: Final = (semconv.GEN_AI_USAGE_INPUT_TOKENS, semconv.LLM_TOKEN_COUNT_PROMPT)
_OUTPUT_TOKEN_KEYS: Final = (semconv.GEN_AI_USAGE_OUTPUT_TOKENS, semconv.LLM_TOKEN_COUNT_COMPLETION)


def map_span(raw: RawSpan, source: str) -> Span:
    """``raw`` as a Span, understood through the conventions; RecordError for bad data, naming
    the span's own source when it has one, else ``source``."""
    try:
        return _span(raw)
    except RecordError as error:
        raise RecordError(
            error.message,
            source=raw.source or source,
            line=raw.line,
            span_id=raw.span_id,
            field=error.field,
        ) from None


def _span(raw: RawSpan) -> Span:
    attributes = with_reserved(raw.attributes, otel_attributes(raw), "attributes")
    kind = span_kind(attributes)
    input_messages, output_messages = span_messages(attributes, raw.events)
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
            tool=_tool_invocation(raw) if kind == "tool" else None,
            llm=_model_invocation(attributes, input_messages, output_messages)
            if kind == "llm"
            else None,
        )
    except ValidationError as error:
        raise validation_record_error(error) from None


def span_kind(attributes: Mapping[str, Any]) -> SpanKind:
    """The kind of a span with these attributes."""
    operation = _text(attributes, semconv.GEN_AI_OPERATION_NAME)
    if operation is not None and operation in OPERATION_KINDS:
        kind = OPERATION_KINDS[operation]
        if kind == "tool" and is_adk_merged_tools(attributes, semconv.GEN_AI_TOOL_NAME):
            return "other"
        return kind
    openinference_kind = _text(attributes, semconv.OPENINFERENCE_SPAN_KIND)
    if openinference_kind is not None and openinference_kind in OPENINFERENCE_KINDS:
        return OPENINFERENCE_KINDS[openinference_kind]
    if ADK_LLM_REQUEST in attributes:
        return "llm"  # ADK v1's call_llm span: a model call, recorded its own way
    return "other"


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
    return inputs, outputs


def span_messages(
    attributes: Mapping[str, Any], events: Sequence[SpanEvent]
) -> tuple[list[Message] | None, list[Message] | None]:
    """A span's messages: from its attributes, else from its GenAI events (span events or log
    records joined to it, :mod:`trailcheck.ingest.genai_events`)."""
    inputs, outputs = recorded_messages(attributes)
    if inputs is None and outputs is None:
        inputs, outputs = adk_messages(attributes)
    if inputs is not None or outputs is not None or not events:
        return inputs, outputs
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


def _text(attributes: Mapping[str, Any], key: str) -> str | None:
    """A text attribute; ``None`` when absent, an error when it is not text."""
    value = attributes.get(key)
    if value is not None and not isinstance(value, str):
        raise RecordError(f"must be a string, not {json_kind(value)}", field=f"attributes.{key}")
    return value


def _first_text(attributes: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = _text(attributes, key)
        if value is not None:
            return value
    return None


def _tool_invocation(raw: RawSpan) -> ToolInvocation:
    attributes = raw.attributes
    vendor_call = vendor_tool_call(attributes)
    langchain = langchain_tool_message(attributes.get(semconv.OUTPUT_VALUE))
    return ToolInvocation(
        name=_tool_name(raw, vendor_call),
        call_id=_call_id(attributes, langchain),
        arguments=_tool_arguments(attributes, vendor_call),
        result=_tool_result(attributes, vendor_call, langchain),
        error=_tool_error(raw, vendor_call, langchain),
        sequence=_sequence(attributes),
    )


def _call_id(attributes: Mapping[str, Any], langchain: LangChainToolMessage | None) -> str | None:
    call_id = _first_text(attributes, (semconv.GEN_AI_TOOL_CALL_ID, semconv.TOOL_CALL_ID))
    if call_id == ADK_UNSPECIFIED_CALL_ID:
        return None
    if call_id is None and langchain is not None:
        return langchain.tool_call_id
    return call_id


def _tool_name(raw: RawSpan, vendor_call: VendorToolCall | None) -> str:
    for key in (semconv.GEN_AI_TOOL_NAME, semconv.TOOL_NAME):
        name = _text(raw.attributes, key)
        if name is not None:
            if not name:
                raise RecordError("the tool name is empty", field=f"attributes.{key}")
            return name
    if vendor_call is not None and vendor_call.name is not None:
        return vendor_call.name
    from_span_name = raw.name.removeprefix(semconv.EXECUTE_TOOL_SPAN_NAME_PREFIX).strip()
    if raw.name.startswith(semconv.EXECUTE_TOOL_SPAN_NAME_PREFIX) and from_span_name:
        return from_span_name
    raise RecordError(
        f"a tool span needs a tool name: {semconv.GEN_AI_TOOL_NAME}, {semconv.TOOL_NAME},"
        f" or a span name '{semconv.EXECUTE_TOOL_SPAN_NAME_PREFIX}<name>' (span name {raw.name!r})",
        field=f"attributes.{semconv.GEN_AI_TOOL_NAME}",
    )


def _tool_arguments(
    attributes: Mapping[str, Any], vendor_call: VendorToolCall | None
) -> dict[str, Any]:
    key = semconv.GEN_AI_TOOL_CALL_ARGUMENTS
    if key in attributes:
        return tool_arguments(attributes[key], f"attributes.{key}")
    if semconv.INPUT_VALUE in attributes:
        return _input_value_arguments(attributes)
    adk_arguments = adk_tool_value(attributes, ADK_TOOL_CALL_ARGS)
    if adk_arguments is not None:
        return tool_arguments(adk_arguments, f"attributes.{ADK_TOOL_CALL_ARGS}")
    if vendor_call is not None and vendor_call.arguments is not None:
        return vendor_call.arguments
    return {}


def _input_value_arguments(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """OpenInference records a TOOL span's arguments in ``input.value``: JSON when its MIME type
    says so (then it must be an object), else often the bare value of a one-parameter tool
    (``A-1001``), which names no parameter: the arguments are then not recorded as an object
    (``{}``; the model's request supplies them, :mod:`trailcheck.trace.message_calls`), and the
    text stays in the span's attributes."""
    value = attributes[semconv.INPUT_VALUE]
    field = f"attributes.{semconv.INPUT_VALUE}"
    declared_json = attributes.get(semconv.INPUT_MIME_TYPE) == semconv.MIME_TYPE_JSON
    if declared_json or not isinstance(value, str):
        return tool_arguments(value, field)
    try:
        decoded = orjson.loads(value)
    except orjson.JSONDecodeError:
        return {}
    return decoded if isinstance(decoded, dict) else {}


def _tool_result(
    attributes: Mapping[str, Any],
    vendor_call: VendorToolCall | None,
    langchain: LangChainToolMessage | None,
) -> Any:
    if semconv.GEN_AI_TOOL_CALL_RESULT in attributes:
        return attributes[semconv.GEN_AI_TOOL_CALL_RESULT]
    if langchain is not None:
        return langchain.content
    if semconv.OUTPUT_VALUE in attributes:
        return attributes[semconv.OUTPUT_VALUE]
    adk_result = adk_tool_value(attributes, ADK_TOOL_RESPONSE)
    if adk_result is not None:
        return adk_result
    return None if vendor_call is None else vendor_call.result


def _tool_error(
    raw: RawSpan, vendor_call: VendorToolCall | None, langchain: LangChainToolMessage | None
) -> str | None:
    """The error text of a failed call: the status message, else the recorded exception (type
    and message), else ``error.type``. A status message that is a Python traceback dump (as
    OpenInference's LangChain instrumentation writes) gives way to the exception event. Then a
    LangChain tool message marked as an error gives its content; a vendor's error text last."""
    error_type = _text(raw.attributes, semconv.ERROR_TYPE)
    if raw.status_code == "error" or error_type is not None:
        status = raw.status_message if raw.status_code == "error" else None
        exception = _exception_text(raw)
        if status and (exception is None or _PYTHON_TRACEBACK not in status):
            return status
        if exception is not None:
            return exception
        if error_type is not None:
            return error_type
    if langchain is not None and langchain.failed:
        return str(langchain.content)
    return None if vendor_call is None else vendor_call.error


def _exception_text(raw: RawSpan) -> str | None:
    """``Type: message`` of the span's last ``exception`` event (the type without its module)."""
    for event in reversed(raw.events):
        if event.name != semconv.EXCEPTION_EVENT:
            continue
        kind = event.attributes.get(semconv.EXCEPTION_TYPE)
        message = event.attributes.get(semconv.EXCEPTION_MESSAGE)
        kind = kind.rsplit(".", 1)[-1] if isinstance(kind, str) and kind else None
        message = message if isinstance(message, str) and message else None
        if kind and message:
            return f"{kind}: {message}"
        if kind or message:
            return kind or message
    return None


def _sequence(attributes: Mapping[str, Any]) -> int | None:
    for key in (semconv.TRAILCHECK_SEQUENCE, *sequence_attributes()):
        if key in attributes:
            value = attributes[key]
            if not isinstance(value, int) or isinstance(value, bool):
                raise RecordError(
                    f"a tool call's sequence must be an integer, not {json_kind(value)}",
                    field=f"attributes.{key}",
                )
            return value
    return None


def _model_invocation(
    attributes: Mapping[str, Any],
    input_messages: list[Message] | None,
    output_messages: list[Message] | None,
) -> ModelInvocation:
    input_tokens = _token_count(attributes, _INPUT_TOKEN_KEYS)
    output_tokens = _token_count(attributes, _OUTPUT_TOKEN_KEYS)
    recorded_usage = input_tokens is not None or output_tokens is not None
    return ModelInvocation(
        model=_first_text(attributes, _MODEL_KEYS),
        provider=_first_text(attributes, _PROVIDER_KEYS),
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
