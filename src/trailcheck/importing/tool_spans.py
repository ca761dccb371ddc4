"""A tool span's call: its tool, call id, arguments, result, error and order, each from the
first convention that records it (the list is in :mod:`trailcheck.importing.spans`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.genai_messages import json_kind, tool_arguments
from trailcheck.importing.conventions.text_attributes import first_text, text_attribute
from trailcheck.importing.conventions.vendors import (
    VendorToolCall,
    sequence_attributes,
    vendor_tool_call,
)
from trailcheck.importing.records import RawSpan
from trailcheck.importing.shapes.frameworks import (
    ADK_TOOL_CALL_ARGS,
    ADK_TOOL_RESPONSE,
    ADK_UNSPECIFIED_CALL_ID,
    LangChainToolMessage,
    adk_tool_value,
    langchain_tool_message,
)
from trailcheck.importing.shapes.rows import ToolShape, tool_shape
from trailcheck.json_text import JsonValueError, embedded_field, loads_json
from trailcheck.trace import ToolInvocation, semconv

_PYTHON_TRACEBACK: Final = "Traceback (most recent call last):"


def tool_invocation(raw: RawSpan) -> ToolInvocation:
    """The call a tool span records, read through its instrumentation's shape
    (:mod:`trailcheck.importing.shapes.rows`) where that wraps what the conventions leave open."""
    attributes = raw.attributes
    shape = tool_shape(raw.scope_name)
    vendor_call = vendor_tool_call(attributes)
    langchain = langchain_tool_message(attributes.get(semconv.OUTPUT_VALUE))
    result = _tool_result(attributes, vendor_call, langchain)
    if result is None and shape.result_attribute is not None:
        result = attributes.get(shape.result_attribute)
    arguments = _tool_arguments(attributes, vendor_call)
    if not arguments and shape.arguments_attribute in attributes:
        key = shape.arguments_attribute
        arguments = tool_arguments(attributes[key], f"attributes.{key}")
    return ToolInvocation(
        name=_tool_name(raw, vendor_call, shape),
        call_id=_call_id(attributes, langchain),
        arguments=shape.arguments(arguments),
        result=result if shape.result is None else shape.result(result),
        error=_tool_error(raw, vendor_call, langchain),
        sequence=_sequence(attributes),
    )


def ends_the_run(raw: RawSpan) -> bool:
    """Whether this tool span is the framework's way to end a run (smolagents' final_answer),
    not a call of the agent's."""
    not_calls = tool_shape(raw.scope_name).not_calls
    if not not_calls:
        return False
    names = (
        text_attribute(raw.attributes, key) for key in (semconv.GEN_AI_TOOL_NAME, semconv.TOOL_NAME)
    )
    shape_name = tool_shape(raw.scope_name).name(raw.name)
    return any(name in not_calls for name in (*names, shape_name) if name is not None)


def _call_id(attributes: Mapping[str, Any], langchain: LangChainToolMessage | None) -> str | None:
    call_id = first_text(attributes, (semconv.GEN_AI_TOOL_CALL_ID, semconv.TOOL_CALL_ID))
    if call_id == ADK_UNSPECIFIED_CALL_ID:
        return None
    if call_id is None and langchain is not None:
        return langchain.tool_call_id
    return call_id


def _tool_name(raw: RawSpan, vendor_call: VendorToolCall | None, shape: ToolShape) -> str:
    for key in (semconv.GEN_AI_TOOL_NAME, semconv.TOOL_NAME):
        name = text_attribute(raw.attributes, key)
        if name is not None:
            if not name:
                raise RecordError("the tool name is empty", field=f"attributes.{key}")
            return name
    if vendor_call is not None and vendor_call.name is not None:
        return vendor_call.name
    from_span_name = raw.name.removeprefix(semconv.EXECUTE_TOOL_SPAN_NAME_PREFIX).strip()
    if raw.name.startswith(semconv.EXECUTE_TOOL_SPAN_NAME_PREFIX) and from_span_name:
        return from_span_name
    shaped = shape.name(raw.name)
    if shaped is not None:
        return shaped
    entity = text_attribute(raw.attributes, semconv.TRACELOOP_ENTITY_NAME)
    if entity:
        return entity
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
    key = semconv.TRACELOOP_ENTITY_INPUT
    if key in attributes:
        return tool_arguments(attributes[key], f"attributes.{key}")
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
        decoded = loads_json(value)
    except orjson.JSONDecodeError:
        return {}
    except JsonValueError as error:
        raise RecordError(error.message, field=embedded_field(field, error)) from None
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
    if vendor_call is not None:
        return vendor_call.result
    return attributes.get(semconv.TRACELOOP_ENTITY_OUTPUT)


def _tool_error(
    raw: RawSpan, vendor_call: VendorToolCall | None, langchain: LangChainToolMessage | None
) -> str | None:
    """The error text of a failed call: the status message, else the recorded exception (type
    and message), else ``error.type``. A status message that is a Python traceback dump (as
    OpenInference's LangChain instrumentation writes) gives way to the exception event. Then a
    LangChain tool message marked as an error gives its content; a vendor's error text last."""
    error_type = text_attribute(raw.attributes, semconv.ERROR_TYPE)
    if raw.status_code == "error" or error_type is not None:
        status = raw.status_message if raw.status_code == "error" else None
        exception = _exception_text(raw)
        if status and (exception is None or _PYTHON_TRACEBACK not in status):
            return status
        if exception is not None:
            return exception
        if error_type is not None:
            # error.type is a category; a failed call's text result says what went wrong (MCP
            # servers answer "Error executing tool ...": mcp-2.3.0-openinference-2.0.13).
            result = _tool_result(raw.attributes, vendor_call, langchain)
            return result if isinstance(result, str) and result.strip() else error_type
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
