"""The session a trace belongs to: the one definition that grouping, the store and multi-turn
grading share.

A session (a conversation, a thread) is the traces of one user's exchange with an agent, one
trace per turn. The importers keep the identifiers the instrumentations record in
``Trace.metadata`` (see :mod:`trailcheck.importing.assemble`); the session is, the first present:

1. ``metadata["conversation_id"]``: OpenTelemetry GenAI ``gen_ai.conversation.id``, written by
   the official instrumentations, Pydantic AI and Google ADK;
2. ``metadata["session_id"]``: OpenInference ``session.id``, written by its LangGraph, OpenAI
   Agents SDK and openai instrumentations.

The standard convention comes first, so a trace that records both is grouped by its
conversation. A value counts when it is a non-empty string or an integer (taken as its decimal
text); anything else (empty text, a list, a float, a boolean) is not an identifier and the next
key is tried.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final

from trailcheck.trace.messages import Message
from trailcheck.trace.span import Span
from trailcheck.trace.trace import Trace
from trailcheck.trace.usage import summed_usage

__all__ = [
    "SESSION_METADATA_KEYS",
    "SESSION_TRACE_IDS_KEY",
    "session_id",
    "session_id_from_metadata",
    "session_trace",
    "session_traces",
]

SESSION_METADATA_KEYS: Final = ("conversation_id", "session_id")
SESSION_ID_KEY: Final = "session_id"
SESSION_TRACE_IDS_KEY: Final = "session_trace_ids"
# Groups traces in no session, each alone (no session id starts with a NUL).
_ALONE: Final = "\x00"


def _identifier(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value:
        return value
    return None


def session_id_from_metadata(metadata: Mapping[str, Any]) -> str | None:
    """The session named by a trace's metadata (see the module docstring), or None."""
    for key in SESSION_METADATA_KEYS:
        found = _identifier(metadata.get(key))
        if found is not None:
            return found
    return None


def session_id(trace: Trace) -> str | None:
    """The session ``trace`` belongs to: its ``conversation_id``, else its ``session_id``
    (metadata written by the importers), else None when it records neither."""
    return session_id_from_metadata(trace.metadata)


def session_trace(session: str, turns: Sequence[Trace]) -> Trace:
    """The turns of one session as one trace, to grade a conversation as a whole: the spans of
    every turn (each turn's root stays a root), in start order, under the trace id ``session``;
    the input is each turn's user text in order; the answer is the last turn's; the state before
    is the first turn's and the state after the last one's; usage is summed over the turns.
    ``metadata`` is the first turn's, with ``session_id`` and ``session_trace_ids`` (the turns'
    trace ids, in order). A span id used by two turns cannot be kept apart, and turns that name
    different cases (``metadata.case_id``) are not one conversation: ValueError."""
    if not turns:
        raise ValueError(f"session {session!r} has no traces")
    ordered = sorted(turns, key=_started)
    cases = sorted({str(turn.metadata["case_id"]) for turn in turns if "case_id" in turn.metadata})
    if len(cases) > 1:
        raise ValueError(
            f"session {session!r}: its traces name different cases ({', '.join(cases)})"
        )
    seen: dict[str, str] = {}
    spans: list[Span] = []
    for turn in ordered:
        for span in turn.spans:
            if span.span_id in seen:
                raise ValueError(
                    f"session {session!r}: span id {span.span_id!r} is in traces"
                    f" {seen[span.span_id]!r} and {turn.trace_id!r}"
                )
            seen[span.span_id] = turn.trace_id
            spans.append(span.model_copy(update={"trace_id": session}))
    user_turns = [Message(role="user", content=turn.input_text) for turn in ordered]
    return Trace(
        trace_id=session,
        input=[message for message in user_turns if message.text] or None,
        final_output=ordered[-1].final_output,
        spans=spans,
        state_before=ordered[0].state_before,
        state_after=ordered[-1].state_after,
        metadata={
            **ordered[0].metadata,
            SESSION_ID_KEY: session,
            SESSION_TRACE_IDS_KEY: [turn.trace_id for turn in ordered],
        },
        usage=summed_usage(spans),
    )


def _started(trace: Trace) -> int:
    # A turn without spans keeps its place among those that started at the same time.
    return min((span.start_ns for span in trace.spans), default=0)


def session_traces(traces: Iterable[Trace]) -> Iterator[Trace | ValueError]:
    """Each session of ``traces`` as one trace (:func:`session_trace`), in order of its first
    turn read; a trace in no session as it is. A session that cannot be merged is a ValueError
    saying why, in its place."""
    groups: dict[str, list[Trace]] = {}
    for trace in traces:
        groups.setdefault(session_id(trace) or _ALONE + trace.trace_id, []).append(trace)
    for key, turns in groups.items():
        if key.startswith(_ALONE):
            yield from turns
            continue
        try:
            yield session_trace(key, turns)
        except ValueError as error:
            yield error
