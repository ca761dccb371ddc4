"""One run of a :class:`~trailcheck.capture.Recorder`: what it holds while it records, how it
begins (root span, state before) and how it ends as a Trace. Which run a call belongs to is
:mod:`trailcheck.capture.run_context`'s question.
"""

from __future__ import annotations

from contextvars import Token
from dataclasses import dataclass
from typing import Any, Protocol

from trailcheck.capture.ids import IdFactory, checked_trace_id
from trailcheck.capture.jsonable import to_json_dict, to_json_value
from trailcheck.capture.recording import (
    OpenSpan,
    Recording,
    Scope,
    exception_event,
    trace_usage,
)
from trailcheck.errors import UsageError
from trailcheck.trace import Message, Trace, semconv

# The key the OTLP importers give the agent's name too (trailcheck.importing.assemble).
AGENT_NAME_METADATA_KEY = "agent_name"


class Snapshottable(Protocol):
    """An environment whose state can be graded: ``snapshot()`` returns it as a dict."""

    def snapshot(self) -> dict[str, Any]: ...


@dataclass(slots=True)
class Run:
    """A run in progress. ``owner`` is the Recorder that began it; ``ended`` turns True when it
    ends, so a context that still lists it (one it was not ended in) no longer counts it."""

    owner: object
    recording: Recording
    root: OpenSpan
    input: str | list[Message] | None
    state_before: dict[str, Any] | None
    metadata: dict[str, Any]
    output: Any = None
    output_set: bool = False
    input_set: bool = False
    ended: bool = False
    scope_token: Token[Scope | None] | None = None
    runs_token: Token[tuple[Run, ...]] | None = None

    def set_output(self, value: Any) -> None:
        """The run's final output, converted for JSON as tool results are."""
        json_value = to_json_value(value)
        if json_value.used_repr:
            self.root.mark_repr_field("final_output")
        self.output, self.output_set = json_value.value, True

    def set_metadata(self, key: str, value: Any) -> None:
        json_value = to_json_value(value)
        if json_value.used_repr:
            self.root.mark_repr_field(f"metadata.{key}")
        self.metadata[key] = json_value.value


def begin_run(
    owner: object,
    *,
    agent_name: str | None,
    input: str | list[Message] | None,
    metadata: dict[str, Any],
    ids: IdFactory,
    environment: Snapshottable | None,
) -> Run:
    """A new run with its root ``agent`` span started (not yet current anywhere)."""
    trace_id = checked_trace_id(ids.trace_id())
    state_before = snapshot_of(environment) if environment is not None else None
    recording = Recording(trace_id, ids)
    operation = semconv.OPERATION_INVOKE_AGENT
    name = f"{operation} {agent_name}" if agent_name else operation
    attributes: dict[str, Any] = {
        semconv.GEN_AI_OPERATION_NAME: operation,
        semconv.TRAILCHECK_TOOL_SPANS: True,
    }
    if agent_name:
        attributes[semconv.GEN_AI_AGENT_NAME] = agent_name
    root = recording.start_span(name=name, kind="agent", parent_id=None, attributes=attributes)
    assert root is not None  # a new recording is open
    metadata = {**metadata}
    if agent_name:
        metadata.setdefault(AGENT_NAME_METADATA_KEY, agent_name)
    metadata, repr_keys = to_json_dict(metadata)
    for key in repr_keys:
        root.mark_repr_field(f"metadata.{key}")
    return Run(owner, recording, root, input, state_before, metadata)


def end_run(
    run: Run, error: BaseException | None, environment: Snapshottable | None
) -> tuple[Trace, Exception | None]:
    """End ``run``: its final snapshot, its root span, and its Trace. Also the snapshot's own
    error, when taking it failed (it is already recorded on the root span)."""
    state_after: dict[str, Any] | None = None
    snapshot_error: Exception | None = None
    if environment is not None:
        try:
            state_after = snapshot_of(environment)
        except Exception as failure:  # noqa: BLE001 - kept on the trace; the caller raises it
            snapshot_error = failure
            run.root.events.append(
                exception_event(
                    failure, run.root.now_ns(), **{"trailcheck.capture.phase": "state_after"}
                )
            )
    # The snapshot's own event (with its phase) is already on the root; only the run's error
    # still needs one.
    run.recording.end_span(
        run.root, error=error or snapshot_error, add_exception_event=error is not None
    )
    spans = run.recording.close()
    trace = Trace(
        trace_id=run.recording.trace_id,
        input=run.input,
        final_output=run.output,
        spans=spans,
        state_before=run.state_before,
        state_after=state_after,
        metadata=run.metadata,
        usage=trace_usage(spans, run.root.span_id),
    )
    return trace, snapshot_error


def snapshot_of(environment: Snapshottable) -> dict[str, Any]:
    """The environment's snapshot converted for JSON; a UsageError when it is not a dict."""
    state = to_json_value(environment.snapshot())
    if not isinstance(state.value, dict):
        raise UsageError(
            f"{environment!r}.snapshot() returned {type(state.value).__name__}, not a dict"
        )
    return state.value
