"""Redacting a whole trace, as ``ingest --redact`` does before storing it; and the counts of a
trace ``serve`` redacted span by span, added up on the trace.

Of a trace, everything that can hold content is read: its input and final output, metadata,
states before and after, and of each span its name, status message, attributes, events' names
and attributes, tool call (arguments, result, error) and model call (input and output messages:
their content, tool calls' arguments and participant names). Ids, times, kinds, tool and model
names, roles and usage figures are not content and stay, so the trace keeps its shape. The
counts go in ``metadata["trailcheck.redactions"]`` (:mod:`trailcheck.redaction.counts`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from trailcheck.redaction.counts import REDACTIONS_KEY, RedactionCounts
from trailcheck.redaction.redactor import Redaction, Redactor
from trailcheck.redaction.spans import redacted_event
from trailcheck.trace import (
    Message,
    MessageToolCall,
    ModelInvocation,
    Span,
    ToolInvocation,
    Trace,
)

__all__ = ["RedactionTally", "redact_trace", "redact_traces", "with_span_counts"]


@dataclass
class RedactionTally:
    """What :func:`redact_traces` redacted: how many traces had something redacted, and the
    redactions by rule."""

    traces: int = 0
    by_rule: dict[str, int] = field(default_factory=dict)

    @property
    def redactions(self) -> int:
        return sum(self.by_rule.values())


def redact_trace(trace: Trace, redactor: Redactor) -> Trace:
    """``trace`` redacted, with its counts in its metadata; the trace itself when nothing in it
    was redacted."""
    return _redacted(trace, redactor)[0]


def redact_traces(
    traces: Iterable[Trace], redactor: Redactor, tally: RedactionTally
) -> Iterator[Trace]:
    """Each of ``traces`` redacted, as it is read; what was redacted added to ``tally``."""
    for trace in traces:
        redacted, found = _redacted(trace, redactor)
        if found:
            tally.traces += 1
            for redaction in found:
                tally.by_rule[redaction.kind] = tally.by_rule.get(redaction.kind, 0) + 1
        yield redacted


def _redacted(trace: Trace, redactor: Redactor) -> tuple[Trace, list[Redaction]]:
    # The texts of a trace repeat (each model call carries the conversation so far; the tool
    # calls are in the span attributes and the tool fields alike): read each once.
    redactor = redactor.session()
    found: list[Redaction] = []
    update: dict[str, Any] = {
        "input": (
            _messages(redactor, trace.input, "input", found)
            if isinstance(trace.input, list)
            else _value_at(redactor, trace.input, "input", found)
        ),
        "final_output": _value_at(redactor, trace.final_output, "final_output", found),
        "metadata": redactor.entries(trace.metadata, "metadata", found),
        "state_before": _value_at(redactor, trace.state_before, "state_before", found),
        "state_after": _value_at(redactor, trace.state_after, "state_after", found),
        "spans": [_span(redactor, span, found) for span in trace.spans],
    }
    if not found:
        return trace, found
    counts = RedactionCounts()
    counts.add_data(update["metadata"].get(REDACTIONS_KEY))
    for redaction in found:
        counts.add(redaction.kind, redaction.where)
    update["metadata"] = {**update["metadata"], REDACTIONS_KEY: counts.as_data()}
    return trace.model_copy(update=update), found


def with_span_counts(trace: Trace) -> Trace:
    """``trace`` with the counts its spans and their events carry (a trace ``serve`` redacted
    as it arrived) added up in its metadata; the trace itself when none carries any."""
    counts = RedactionCounts()
    for span in trace.spans:
        counts.add_data(span.attributes.get(REDACTIONS_KEY))
        for event in span.events:
            counts.add_data(event.attributes.get(REDACTIONS_KEY))
    if not counts:
        return trace
    counts.add_data(trace.metadata.get(REDACTIONS_KEY))
    metadata = {**trace.metadata, REDACTIONS_KEY: counts.as_data()}
    return trace.model_copy(update={"metadata": metadata})


def _value_at(redactor: Redactor, value: Any, where: str, found: list[Redaction]) -> Any:
    """``value`` redacted, each redaction reported at ``where`` (not deeper: a state's or a
    tool result's keys are the application's data, not fields of the trace)."""
    if value is None:
        return None
    deeper: list[Redaction] = []
    redacted = redactor.value(value, where, deeper)
    found.extend(Redaction(r.kind, where) for r in deeper)
    return redacted


def _messages(
    redactor: Redactor, messages: Sequence[Message] | None, where: str, found: list[Redaction]
) -> list[Message] | None:
    if messages is None:
        return None
    return [_message(redactor, message, where, found) for message in messages]


def _message(redactor: Redactor, message: Message, where: str, found: list[Redaction]) -> Message:
    before = len(found)
    content = _value_at(redactor, message.content, where, found)
    calls = [_tool_call(redactor, call, where, found) for call in message.tool_calls]
    name = redactor.text(message.name, where, found) if message.name else message.name
    if len(found) == before:
        return message
    return message.model_copy(update={"content": content, "tool_calls": calls, "name": name})


def _tool_call(
    redactor: Redactor, call: MessageToolCall, where: str, found: list[Redaction]
) -> MessageToolCall:
    before = len(found)
    arguments = _value_at(redactor, call.arguments, where, found)
    if len(found) == before:
        return call
    return call.model_copy(update={"arguments": arguments})


def _tool(redactor: Redactor, tool: ToolInvocation, found: list[Redaction]) -> ToolInvocation:
    before = len(found)
    arguments = _value_at(redactor, tool.arguments, "span.tool.arguments", found)
    result = _value_at(redactor, tool.result, "span.tool.result", found)
    error = redactor.text(tool.error, "span.tool.error", found) if tool.error else tool.error
    if len(found) == before:
        return tool
    return tool.model_copy(update={"arguments": arguments, "result": result, "error": error})


def _llm(redactor: Redactor, llm: ModelInvocation, found: list[Redaction]) -> ModelInvocation:
    before = len(found)
    inputs = _messages(redactor, llm.input_messages, "span.llm.input_messages", found)
    outputs = _messages(redactor, llm.output_messages, "span.llm.output_messages", found)
    if len(found) == before:
        return llm
    return llm.model_copy(update={"input_messages": inputs, "output_messages": outputs})


def _span(redactor: Redactor, span: Span, found: list[Redaction]) -> Span:
    before = len(found)
    update: dict[str, Any] = {
        "name": redactor.text(span.name, "span.name", found),
        "attributes": redactor.entries(span.attributes, "span.attributes", found),
        "events": [
            redacted_event(redactor, event, "span.events.attributes", found)
            for event in span.events
        ],
        "tool": None if span.tool is None else _tool(redactor, span.tool, found),
        "llm": None if span.llm is None else _llm(redactor, span.llm, found),
    }
    if span.status.message:
        message = redactor.text(span.status.message, "span.status.message", found)
        update["status"] = span.status.model_copy(update={"message": message})
    if len(found) == before:
        return span
    return span.model_copy(update=update)
