"""Spans into traces: group by trace id, map each span through the conventions, check the tree,
and derive the trace-level fields from the spans. A trace whose structure is broken (a bad id or
time, an orphan, a duplicate span) is rejected whole; a part of a span that no reader
understands is left uninterpreted and named in the trace's reading report
(:mod:`trailcheck.importing.unread`, ``metadata["trailcheck.unread"]``).

Trace-level fields, each from the first source that records it:

- ``input``: the root span's input messages (when they hold a user turn), else its
  ``input.value`` (text; a LangGraph state ``{"messages": [...]}`` gives its messages); else a
  vendor run summary; else the user's latest turn in the first llm span (in start order) that
  has one: its last run of user messages with text, so a session's earlier turns sent again as
  history are not this run's input.
- ``final_output``: the last assistant text of the root span's output messages, else its
  ``output.value`` (as recorded; a LangGraph state gives its last AI message's text); else a
  vendor run summary; else the last assistant text of the last llm span whose output messages
  hold text or tool calls (a span whose content was not captured is passed over).
- ``state_before`` / ``state_after``: vendor attributes of the root span (no standard
  convention records environment state).
- ``metadata``: ``agent_name`` (``gen_ai.agent.name``, ``agent.name``, or an agent span's name
  ``invoke_agent {name}``), ``conversation_id`` (``gen_ai.conversation.id``), ``session_id``
  (``session.id``), each the first found in tree order from the root; ``otel.resource``, the
  resource attributes of the root span (else of the first span with any); then logfire's
  OpenAI Agents spans (:mod:`trailcheck.importing.shapes.logfire_agents`: ``session_id`` from the
  SDK's
  ``group_id``, ``agent_name``) and the vendor fields (``scenario_id``, ``agent_version``, ...).
- ``usage``: tokens summed over llm spans that record them, leaving out spans under an llm span
  that records them too, so a model call instrumented twice is counted once.

A trace holding an integer trailcheck cannot store (beyond signed 64-bit: a time, a token count,
a token total; :mod:`trailcheck.trace.limits`) is rejected, naming the span and field.

Only a root span of kind agent or other speaks for the trace: a root tool or llm span's input is
that call's input, not the user's. Roots are parentless spans in start order; the first is the
root.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Final

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.vendors import VendorTraceFields, vendor_trace_fields
from trailcheck.importing.records import RawSpan, Rejection
from trailcheck.importing.shapes.frameworks import langgraph_answer, langgraph_input
from trailcheck.importing.shapes.logfire_agents import logfire_trace_metadata
from trailcheck.importing.shapes.rows import one_call_per_tool, run_shape
from trailcheck.importing.spans import map_span, recorded_messages
from trailcheck.importing.unread import UNREAD_METADATA_KEY, UnreadParts
from trailcheck.trace import Message, Span, SpanTree, Trace, semconv
from trailcheck.trace.limits import first_unstorable
from trailcheck.trace.usage import summed_usage

_TRACE_SPEAKING_KINDS: Final = ("agent", "other")
_CORRELATION_ATTRIBUTES: Final = (
    ("conversation_id", semconv.GEN_AI_CONVERSATION_ID),
    ("session_id", semconv.SESSION_ID),
)
RESOURCE_METADATA_KEY: Final = "otel.resource"


def assemble_traces(spans: Iterable[RawSpan], source: str) -> Iterator[Trace | Rejection]:
    """Traces in order of their first span; a trace with a bad span, an orphan span or a
    duplicate span id is one Rejection, and the other traces still come out.

    Spans of a trace may come in any order, interleaved with other traces' spans, so every span
    is read before the first trace is yielded. A Rejection names the file of the span at fault
    (its ``RawSpan.source``), else ``source``.
    """
    by_trace: dict[str, list[RawSpan]] = {}
    for span in spans:
        by_trace.setdefault(span.trace_id, []).append(span)
    for members in by_trace.values():
        yield assemble_or_reject(members, source)


def assemble_or_reject(spans: list[RawSpan], source: str) -> Trace | Rejection:
    """The trace of ``spans`` (all of one trace), or the Rejection of it, as
    :func:`assemble_traces` gives each."""
    try:
        return assemble_trace(spans, source)
    except RecordError as error:
        trace_id = spans[0].trace_id if spans else None
        return Rejection(
            source=error.source or source,
            message=f"trace {trace_id!r} not imported: {error.message}",
            line=error.line,
            span_id=error.span_id,
            field=error.field,
            trace_id=trace_id,
        )


def assemble_trace(spans: list[RawSpan], source: str) -> Trace:
    """One trace from all of its spans; RecordError naming the span and field when it is bad."""
    if not spans:
        raise RecordError("no spans to assemble into a trace", source=source)
    trace_id = spans[0].trace_id
    unread = UnreadParts()
    mapped = one_call_per_tool([map_span(raw, source, unread) for raw in spans])
    try:
        skeleton = Trace(trace_id=trace_id, spans=mapped)
    except ValueError as error:  # an invariant of the trace (its __post_init__)
        culprit, field = _locate_integrity_problem(spans)
        raise RecordError(
            str(error),
            source=_source_of(culprit, source),
            line=None if culprit is None else culprit.line,
            span_id=None if culprit is None else culprit.span_id,
            field=field,
        ) from None
    tree = skeleton.tree
    root = tree.root
    assert root is not None  # spans is not empty
    raw_root = next(raw for raw in spans if raw.span_id == root.span_id)
    try:
        trace = _derived_trace(trace_id, mapped, tree, root, _resource(raw_root, spans), unread)
    except RecordError as error:
        # Derivation reads only the root's own attributes, so a problem there is the root's.
        raise RecordError(
            error.message,
            source=_source_of(raw_root, source),
            line=raw_root.line,
            span_id=root.span_id,
            field=error.field,
        ) from None
    _check_storable(trace, spans, raw_root, source)
    return trace


def _check_storable(trace: Trace, spans: list[RawSpan], raw_root: RawSpan, source: str) -> None:
    """RecordError when an integer of the trace is beyond what trailcheck stores
    (:mod:`trailcheck.trace.limits`): a span's, named with its line; the trace's own (a token
    total summed over its model calls), with the root's."""
    found = first_unstorable(trace)
    if found is None:
        return
    culprit = next((raw for raw in spans if raw.span_id == found.span_id), raw_root)
    raise RecordError(
        found.message,
        source=_source_of(culprit, source),
        line=culprit.line,
        span_id=found.span_id,
        field=found.field,
    )


def _source_of(raw: RawSpan | None, source: str) -> str:
    return source if raw is None or raw.source is None else raw.source


def _locate_integrity_problem(spans: list[RawSpan]) -> tuple[RawSpan | None, str | None]:
    """The span at fault for the problem the Trace model found, and the field, looked for in
    the order the model checks (duplicates first, then each span in turn)."""
    seen: set[str] = set()
    for raw in spans:
        if raw.span_id in seen:
            return raw, "span_id"
        seen.add(raw.span_id)
    for raw in spans:
        if raw.trace_id != spans[0].trace_id:
            return raw, "trace_id"
        if raw.parent_id is not None and raw.parent_id not in seen:
            return raw, "parent_span_id"
    return None, None


def _resource(raw_root: RawSpan, spans: list[RawSpan]) -> dict[str, Any]:
    if raw_root.resource:
        return raw_root.resource
    return next((raw.resource for raw in spans if raw.resource), {})


def _derived_trace(
    trace_id: str,
    spans: list[Span],
    tree: SpanTree,
    root: Span,
    resource: dict[str, Any],
    unread: UnreadParts,
) -> Trace:
    vendor = vendor_trace_fields(root.attributes)
    llm_spans = sorted(tree.find(kind="llm"), key=lambda span: (span.start_ns, span.span_id))
    try:
        return Trace(
            trace_id=trace_id,
            spans=spans,
            input=_trace_input(root, vendor, llm_spans),
            final_output=_trace_final_output(root, vendor, llm_spans),
            state_before=vendor.state_before,
            state_after=vendor.state_after,
            metadata=_metadata(tree, resource, vendor, unread),
            usage=summed_usage(spans),
        )
    except ValueError as error:  # an invariant of the trace (its __post_init__)
        raise RecordError(str(error)) from None


def _trace_input(
    root: Span, vendor: VendorTraceFields, llm_spans: list[Span]
) -> str | list[Message] | None:
    shape = run_shape(root.attributes.get(semconv.OTEL_SCOPE_NAME))
    if root.kind in _TRACE_SPEAKING_KINDS and not shape.model_speaks:
        root_input, _ = _root_messages(root)
        if root_input and user_turn(root_input):
            return root_input
        text = _input_value(root)
        state_input = langgraph_input(text)
        if state_input is not None:
            return state_input
        if text is not None:
            return shape.input(text) or text
    if vendor.input is not None:
        return vendor.input
    return _first_llm_user_turn(llm_spans)


def _trace_final_output(root: Span, vendor: VendorTraceFields, llm_spans: list[Span]) -> Any:
    shape = run_shape(root.attributes.get(semconv.OTEL_SCOPE_NAME))
    if root.kind in _TRACE_SPEAKING_KINDS and not shape.model_speaks:
        _, root_output = _root_messages(root)
        text = _last_assistant_text(root_output)
        if text is not None:
            return text
        output_value = root.attributes.get(semconv.OUTPUT_VALUE)
        if output_value is not None:
            answer = langgraph_answer(output_value) or shape.answer(output_value)
            return output_value if answer is None else answer
    if vendor.final_output is not None:
        return vendor.final_output
    return _last_llm_output_text(llm_spans)


def _root_messages(root: Span) -> tuple[list[Message] | None, list[Message] | None]:
    """The root's own messages; none where they were not understood (mapping the root already
    named them in the reading report)."""
    try:
        return recorded_messages(root.attributes)
    except RecordError:
        return None, None


def _input_value(span: Span) -> str | None:
    value = span.attributes.get(semconv.INPUT_VALUE)
    if value is not None and not isinstance(value, str):
        raise RecordError(
            "a trace's input from input.value must be text",
            field=f"attributes.{semconv.INPUT_VALUE}",
        )
    return value


def _first_llm_user_turn(llm_spans: list[Span]) -> list[Message] | None:
    for span in llm_spans:
        turn = user_turn(span.llm.input_messages or []) if span.llm is not None else []
        if turn:
            return turn
    return None


def user_turn(messages: list[Message]) -> list[Message]:
    """The user's latest turn: the last run of user messages with text (a user message holding
    only tool results, as Gemini and Pydantic AI send them, is not one). Earlier turns of a
    session, sent to the model again as history, are not this run's input."""
    turn: list[Message] = []
    in_turn = False
    for message in messages:
        if message.role == "user" and message.text:
            if not in_turn:
                turn, in_turn = [], True
            turn.append(message)
        elif message.role != "system":
            in_turn = False
    return turn


def _last_assistant_text(messages: list[Message] | None) -> str | None:
    for message in reversed(messages or []):
        if message.role == "assistant" and message.text:
            return message.text
    return None


def _last_llm_output_text(llm_spans: list[Span]) -> str | None:
    """The last assistant text of the last llm span whose output was captured: a span whose
    output messages hold neither text nor tool calls (content not recorded) does not hide an
    earlier one, but one that asked for tools last ends the run without an answer."""
    for span in reversed(llm_spans):
        outputs = span.llm.output_messages if span.llm is not None else None
        if outputs and any(message.text or message.tool_calls for message in outputs):
            return _last_assistant_text(outputs)
    return None


def _metadata(
    tree: SpanTree, resource: dict[str, Any], vendor: VendorTraceFields, unread: UnreadParts
) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    agent_name = next((name for span in tree if (name := _agent_name(span)) is not None), None)
    if agent_name is not None:
        metadata["agent_name"] = agent_name
    for metadata_key, attribute in _CORRELATION_ATTRIBUTES:
        found = next((s.attributes[attribute] for s in tree if attribute in s.attributes), None)
        if found is not None:
            metadata[metadata_key] = found
    if resource:
        metadata[RESOURCE_METADATA_KEY] = resource
    for key, value in [*logfire_trace_metadata(tree).items(), *vendor.metadata.items()]:
        metadata.setdefault(key, value)
    if unread.parts:
        metadata[UNREAD_METADATA_KEY] = unread.parts
    return metadata


def _agent_name(span: Span) -> Any:
    """The agent a span names: its attribute, or the GenAI span name "invoke_agent {name}"."""
    for key in (semconv.GEN_AI_AGENT_NAME, semconv.AGENT_NAME):
        if span.attributes.get(key) is not None:
            return span.attributes[key]
    prefix = semconv.INVOKE_AGENT_SPAN_NAME_PREFIX
    named = span.name.removeprefix(prefix).strip()
    return named if span.kind == "agent" and span.name.startswith(prefix) and named else None
