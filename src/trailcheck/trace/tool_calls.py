"""Tool calls as graders see them: one per call, from the tool spans and the model's messages.

A tool span is one call. The model's messages record calls too (asked for in an assistant
message, answered by a tool message), and for the most common auto-instrumentations they are
the only record; :mod:`trailcheck.trace.message_calls` reads them and pairs them with the tool
spans, so a call recorded in both places is one ``ToolCall``.

Which record says a call *ran*: a trace with tool spans records the tools it ran as spans, so
there a request that no tool span answers did not run (a guard blocked it, the tool did not
exist, its arguments were refused) and is not a call; so it is in a trace whose source says it
records every call as a span (``trailcheck.tool_spans``, set by trailcheck's Recorder) even when
no tool ran. Any other trace without a tool span records calls only in its messages, and every
request is a call, answered or not.

Order: by time (a tool span's start; a message call's requesting llm span), then the source's
explicit sequence, then position in the message, then span id.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from trailcheck.trace.canonical import canonical_json
from trailcheck.trace.derived import computed_once
from trailcheck.trace.message_calls import OrderKey, RequestedCall, requested_calls
from trailcheck.trace.semconv import TRAILCHECK_TOOL_SPANS as TOOL_SPANS
from trailcheck.trace.span import Span, ToolInvocation

CallSource = Literal["span", "message"]


@dataclass(frozen=True)
class ToolCall:
    """One tool call.

    ``recorded_result`` is the result as recorded (often a JSON string); ``result`` is that
    parsed as JSON when it is a JSON string, else the text (or the value as recorded). ``error``
    is the tool's error, or the span's error status message. ``source`` says what recorded the
    call: a tool span, or only the model's messages (then ``span_id`` is the llm span that asked
    for it and ``end_ns`` is unknown). ``from_messages`` names the fields a tool span left
    unrecorded and the messages supplied (``arguments``, ``result``).
    """

    call_id: str | None
    name: str
    arguments: dict[str, Any]
    recorded_result: Any
    error: str | None
    span_id: str
    start_ns: int
    end_ns: int | None
    source: CallSource = "span"
    from_messages: tuple[str, ...] = ()

    @computed_once
    def result(self) -> Any:
        # Parsed on first use: results are the bulk of a trace, and only some scorers read them.
        return parse_json_text(self.recorded_result)

    @property
    def succeeded(self) -> bool:
        return self.error is None

    @computed_once
    def key(self) -> Hashable:
        """The call as checks for repeated calls compare calls: its tool and its canonical
        arguments (:func:`~trailcheck.trace.canonical_json`), computed once per call."""
        return (self.name, canonical_json(self.arguments))


def parse_json_text(value: Any) -> Any:
    """A string holding JSON becomes the parsed value; anything else is returned as it is."""
    if not isinstance(value, str):
        return value
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return value


def derive_tool_calls(spans: Sequence[Span]) -> list[ToolCall]:
    """The tool calls of a trace's spans, in order (see the module docstring)."""
    tool_spans = [span for span in spans if span.tool is not None]
    requests = requested_calls(spans) if _messages_may_add(spans, tool_spans) else []
    if not requests:
        tool_spans.sort(key=_span_order)
        return [_recorded_call(span) for span in tool_spans]
    paired = _pair(tool_spans, requests)
    ordered: list[tuple[OrderKey, ToolCall]] = [
        (_span_order(span), _span_call(span, paired.get(span.span_id))) for span in tool_spans
    ]
    if not tool_spans and not any(span.attributes.get(TOOL_SPANS) is True for span in spans):
        ordered.extend((r.order, _message_call(r)) for r in requests)
    ordered.sort(key=lambda keyed: keyed[0])
    return [call for _, call in ordered]


def _messages_may_add(spans: Sequence[Span], tool_spans: list[Span]) -> bool:
    """Whether the model's messages can add to what the tool spans record: a model call
    records messages, and either there is no tool span (then the messages are the only record)
    or one left its call id, arguments or result unrecorded. Spans that record everything are
    the calls as they are, and reading the messages would only find them again."""
    for span in spans:  # a loop, not any(): this runs for every trace graded
        llm = span.llm
        if llm is not None and (llm.input_messages or llm.output_messages):
            break
    else:
        return False
    return not tool_spans or any(
        span.tool is not None
        and (span.tool.call_id is None or not span.tool.arguments or span.tool.result is None)
        for span in tool_spans
    )


def _span_order(span: Span) -> OrderKey:
    sequence = span.tool.sequence if span.tool is not None else None
    return (span.start_ns, sequence is None, sequence or 0, 0, span.span_id)


def _pair(tool_spans: list[Span], requests: list[RequestedCall]) -> dict[str, RequestedCall]:
    """Tool span id → the request it answers: by call id, else (a span without one) the
    earliest unpaired request of its tool, asked no later than the span started, with the
    span's arguments or the span recording none."""
    by_call_id = {r.call_id: r for r in requests if r.call_id is not None}
    paired: dict[str, RequestedCall] = {}
    idless: list[tuple[Span, Hashable]] = []
    for span in sorted(tool_spans, key=_span_order):
        assert span.tool is not None  # tool_spans holds tool spans only
        if span.tool.call_id is None:
            idless.append((span, canonical_json(span.tool.arguments)))
            continue
        found = by_call_id.get(span.tool.call_id)
        if found is not None and not found.paired and found.name == span.tool.name:
            found.paired = True
            paired[span.span_id] = found
    for span, arguments in idless:
        found = next((r for r in requests if _may_answer(span, arguments, r)), None)
        if found is not None:
            found.paired = True
            paired[span.span_id] = found
    return paired


def _may_answer(span: Span, arguments: Hashable, request: RequestedCall) -> bool:
    """Whether ``request`` may be what the id-less tool ``span`` answers (``arguments``: the
    span's canonical arguments; the request's signature holds its own)."""
    tool = span.tool
    assert tool is not None  # only tool spans are paired
    return (
        not request.paired
        and request.name == tool.name
        and request.span.start_ns <= span.start_ns
        and (not tool.arguments or arguments == request.signature[1])
    )


def _recorded_call(span: Span) -> ToolCall:
    """The call a tool span records, as it records it (nothing from the messages)."""
    tool = span.tool
    assert tool is not None  # only called for tool spans, which span validation guarantees
    return _new_call(
        {
            "call_id": tool.call_id,
            "name": tool.name,
            "arguments": tool.arguments,
            "recorded_result": tool.result,
            "error": tool.error if span.status.code != "error" else _error(span, tool),
            "span_id": span.span_id,
            "start_ns": span.start_ns,
            "end_ns": span.end_ns,
            "source": "span",
            "from_messages": (),
        }
    )


def _error(span: Span, tool: ToolInvocation) -> str | None:
    if tool.error is None and span.status.code == "error":
        return span.status.message or "tool span has status error"
    return tool.error


def _span_call(span: Span, request: RequestedCall | None) -> ToolCall:
    tool = span.tool
    assert tool is not None  # only called for tool spans, which span validation guarantees
    if request is None:
        return _recorded_call(span)
    arguments, result = tool.arguments, tool.result
    filled: tuple[str, ...] = ()
    if not arguments and request.arguments:
        arguments, filled = request.arguments, ("arguments",)
    if result is None and request.answered:
        result, filled = request.result, (*filled, "result")
    return _new_call(
        {
            "call_id": tool.call_id if tool.call_id is not None else request.call_id,
            "name": tool.name,
            "arguments": arguments,
            "recorded_result": result,
            "error": _error(span, tool),
            "span_id": span.span_id,
            "start_ns": span.start_ns,
            "end_ns": span.end_ns,
            "source": "span",
            "from_messages": filled,
        }
    )


def _message_call(request: RequestedCall) -> ToolCall:
    return _new_call(
        {
            "call_id": request.call_id,
            "name": request.name,
            "arguments": request.arguments,
            "recorded_result": request.result,
            "error": request.error,
            "span_id": request.span.span_id,
            "start_ns": request.order[0],
            "end_ns": None,
            "source": "message",
            "from_messages": ("arguments", "result") if request.answered else ("arguments",),
        }
    )


def _new_call(fields: dict[str, Any]) -> ToolCall:
    # The same object ToolCall(...) makes, without the frozen __init__'s object.__setattr__ per
    # field (2 µs a call, and every graded trace builds one per tool call). ``fields`` is every
    # field of ToolCall, and becomes the instance's own ``__dict__``.
    call = _NEW(ToolCall)
    _SET(call, "__dict__", fields)
    return call


_NEW = ToolCall.__new__
_SET = object.__setattr__
