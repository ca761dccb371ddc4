"""Missing telemetry is not agent behaviour: a trace whose instrumentation did not record the
conversation's content says so, and what needs that content is not judged on it.

Most GenAI instrumentations record message content only when asked (the OpenTelemetry GenAI
instrumentations, Google ADK 2, Pydantic AI with ``include_content=False``), or record it where an
import may not look (log records exported apart from the spans). Such a trace still shows the
model calls, the tool names and call ids, the usage and the model, but not what was said: its
input and answer are empty and its calls have no arguments or results. Grading the answer or the
arguments of such a trace would report failures the agent never made.

:func:`content_gap` finds it. A trace has a gap when it has model calls (llm spans), none of
them records any message content (text, tool call arguments, tool results), and something that
content would have given is missing: the input, the answer, or the arguments or result of a
tool call. :attr:`ContentGap.fix` names the setting that turns capture on, by the
instrumentation that recorded the model calls (``otel.scope.name``). When the trace has no tool
span and its model calls record no message at all, even the calls are unknown
(:attr:`ContentGap.calls_unrecorded`): an instrumentation that records calls only in messages
recorded none.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from trailcheck.trace.messages import Message
from trailcheck.trace.semconv import OTEL_SCOPE_NAME
from trailcheck.trace.span import Span
from trailcheck.trace.trace import Trace

# The fix per instrumentation: (scope name prefix, what to set).
_FIXES: Final = (
    (
        "opentelemetry.instrumentation.openai",
        "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (content in log records:"
        " import or send them with the spans), or =SPAN_ONLY with"
        " OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental",
    ),
    (
        "opentelemetry.util.genai",
        "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or EVENT_ONLY, and"
        " import or send the log records with the spans)",
    ),
    (
        "gcp.vertex.agent",
        "Google ADK: set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_AND_EVENT"
        " (ADK 2 telemetry), or leave ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS on (schema v1)",
    ),
    ("pydantic-ai", "Pydantic AI: instrument with InstrumentationSettings(include_content=True)"),
    (
        "openinference",
        "OpenInference: unset OPENINFERENCE_HIDE_INPUTS, OPENINFERENCE_HIDE_OUTPUTS and the"
        " OPENINFERENCE_HIDE_*_MESSAGES settings",
    ),
)
DEFAULT_FIX: Final = (
    "turn on message content capture in the instrumentation"
    " (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY for the OpenTelemetry GenAI"
    " instrumentations)"
)


@dataclass(frozen=True, slots=True)
class ContentGap:
    """A trace whose conversation content was not recorded."""

    llm_span_ids: tuple[str, ...]
    """The model calls, none of which records message content."""
    instrumentation: str | None
    """The instrumentation scope of the model calls, when the trace names one."""
    fix: str
    """How to record the content next time."""
    calls_unrecorded: bool = False
    """The trace has no tool span and its model calls record no message at all, so which tools
    were called is unknown too (not only their arguments)."""

    @property
    def reason(self) -> str:
        """One line: what is missing and how to fix it."""
        calls = len(self.llm_span_ids)
        return (
            f"content not captured: {calls} model call{'s' if calls != 1 else ''} record no"
            f" message content ({self.fix})"
        )


def content_gap(trace: Trace) -> ContentGap | None:
    """The trace's content gap, or ``None`` when its content was recorded (or it has no model
    call whose messages could have held it)."""
    if not any(span.kind == "llm" for span in trace.spans):
        return None
    # What content would give, checked first: for most traces nothing is missing.
    missing = not trace.input_text or trace.final_output is None or _a_call_lacks_content(trace)
    if not missing or any(_records_content(span) for span in trace.spans):
        return None
    llm_spans = _model_calls(trace)
    scope = next(
        (s for span in llm_spans if isinstance(s := span.attributes.get(OTEL_SCOPE_NAME), str)),
        None,
    )
    calls_unrecorded = not any(span.kind == "tool" for span in trace.spans) and not any(
        span.llm is not None and (span.llm.input_messages or span.llm.output_messages)
        for span in llm_spans
    )
    return ContentGap(
        tuple(span.span_id for span in llm_spans), scope, fix_for(scope), calls_unrecorded
    )


def _a_call_lacks_content(trace: Trace) -> bool:
    """Whether a tool call of ``trace`` has neither arguments nor a result. Where no model call
    records a message, the calls are the tool spans' own (:mod:`trailcheck.trace.tool_calls`):
    read there, without deriving the calls (an import asks this of every trace, and grades
    none)."""
    if "tool_calls" not in trace.__dict__ and not any(
        span.llm is not None and (span.llm.input_messages or span.llm.output_messages)
        for span in trace.spans
    ):
        return any(
            not span.tool.arguments and span.tool.result is None
            for span in trace.spans
            if span.tool is not None
        )
    return any(not call.arguments and call.recorded_result is None for call in trace.tool_calls)


def fix_for(scope: str | None) -> str:
    """The setting that turns content capture on for the instrumentation ``scope``."""
    if scope is not None:
        for prefix, fix in _FIXES:
            if scope.startswith(prefix):
                return fix
    return DEFAULT_FIX


def _model_calls(trace: Trace) -> list[Span]:
    """The llm spans not under another llm span (one model call instrumented twice is one)."""
    by_id = {span.span_id: span for span in trace.spans}

    def nested(span: Span) -> bool:
        parent = span.parent_id
        while parent is not None and parent in by_id:
            if by_id[parent].kind == "llm":
                return True
            parent = by_id[parent].parent_id
        return False

    return [span for span in trace.spans if span.kind == "llm" and not nested(span)]


def _records_content(span: Span) -> bool:
    if span.llm is None:
        return False
    messages = [*(span.llm.input_messages or ()), *(span.llm.output_messages or ())]
    return any(_has_content(message) for message in messages)


def _has_content(message: Message) -> bool:
    if message.text:
        return True
    if any(call.arguments for call in message.tool_calls):
        return True
    if isinstance(message.content, list):
        # A tool result part, or a part of another kind that holds something.
        return any(
            part.get("response", part.get("result")) is not None
            for part in message.content
            if part.get("type") == "tool_call_response"
        )
    return False


@dataclass(slots=True)
class GapTally:
    """Traces with a content gap, counted by the fix that would close it: one warning line per
    kind of gap, not one per trace."""

    by_fix: Counter[str] = field(default_factory=Counter)

    def add(self, trace: Trace) -> ContentGap | None:
        """Count ``trace`` when it has a gap; the gap, or ``None``."""
        gap = content_gap(trace)
        if gap is not None:
            self.by_fix[gap.fix] += 1
        return gap

    def warnings(self, what: str = "") -> list[str]:
        """One line per fix: how many traces, and what to set. ``what`` says what was not done
        with them (``; rules that read content skipped``)."""
        return [
            f"warning: {count} trace{'s' if count != 1 else ''} recorded no message content"
            f"{what}: {fix}"
            for fix, count in sorted(self.by_fix.items(), key=lambda item: -item[1])
        ]
