"""The Recorder: one live agent run recorded as a Trace.

::

    recorder = Recorder(agent_name="support", input="Refund order A-1", environment=shop)
    lookup = recorder.tool(shop.lookup_order)
    with recorder:
        order = lookup(order_id="A-1")
        recorder.set_output(f"Order is {order['status']}")
    recorder.trace.tool_calls[0].name  # "lookup_order"

A Recorder records one run at a time (entering it while it records raises :class:`UsageError`;
use one Recorder per concurrent run) and can be entered again afterwards: each run replaces
``recorder.trace``. Which recording a tool call or span goes to is decided by the calling context
(see :mod:`trailcheck.capture.recording` and :mod:`trailcheck.capture.tools`): a Recorder entered
inside another records a separate trace, and the inner one is current until it exits.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import Token
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, ParamSpec, Protocol, Self, TypeVar, cast

from trailcheck.capture.agent_io import AgentInput, input_from_call, to_input
from trailcheck.capture.handles import (
    MessageLike,
    ModelCallHandle,
    SpanHandle,
    UsageLike,
    to_messages,
)
from trailcheck.capture.ids import IdFactory, RandomIds, checked_trace_id
from trailcheck.capture.jsonable import to_json_dict, to_json_value
from trailcheck.capture.recording import (
    CURRENT_SCOPE,
    OpenSpan,
    Recording,
    Scope,
    exception_event,
    trace_usage,
)
from trailcheck.capture.tools import record_tool
from trailcheck.errors import UsageError
from trailcheck.trace import Message, ModelInvocation, Trace, semconv

P = ParamSpec("P")
R = TypeVar("R")

NestedSpanKind = Literal["agent", "retriever", "guard", "other"]
# The key the OTLP importers give the agent's name too (trailcheck.ingest.assemble).
AGENT_NAME_METADATA_KEY = "agent_name"


class Snapshottable(Protocol):
    """An environment whose state can be graded: ``snapshot()`` returns it as a dict."""

    def snapshot(self) -> dict[str, Any]: ...


@dataclass(slots=True)
class _Run:
    recording: Recording
    root: OpenSpan
    token: Token[Scope | None]
    input: str | list[Message] | None
    state_before: dict[str, Any] | None
    metadata: dict[str, Any]
    output: Any = None
    output_set: bool = False
    input_set: bool = False


class Recorder:
    """Records one agent run: a root ``agent`` span, and the tool, model and other spans under it.

    Use it as ``with recorder:``, ``async with recorder:``, or as a decorator of a sync or async
    agent function. ``environment`` is snapshotted before and after the run (``state_before``,
    ``state_after``). ``metadata`` is copied into each trace (with ``agent`` set to
    ``agent_name`` unless given). ``ids`` makes the trace and span ids; :class:`SeededIds`
    makes them reproducible.

    A run that raises (a crash, a cancellation, a timeout) still yields its trace: the root span
    has status error and an ``exception`` event, spans still open are kept as unfinished, and the
    exception propagates unchanged.
    """

    def __init__(
        self,
        *,
        agent_name: str | None = None,
        input: AgentInput | None = None,
        environment: Snapshottable | None = None,
        metadata: Mapping[str, Any] | None = None,
        ids: IdFactory | None = None,
    ) -> None:
        self.agent_name = agent_name
        self._input = to_input(input)
        self._environment = environment
        self._metadata = dict(metadata or {})
        self._ids: IdFactory = ids or RandomIds()
        self._run: _Run | None = None
        self._trace: Trace | None = None

    # -- the run ---------------------------------------------------------------------------

    def __enter__(self) -> Self:
        self._begin()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._end(exc)

    async def __aenter__(self) -> Self:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._end(exc)

    def __call__(self, agent: Callable[P, R]) -> Callable[P, R]:
        """Decorate an agent function: each call is a run. The input is the first argument when
        it is a text or a list of messages (else call :meth:`set_input`); the output is the
        return value unless :meth:`set_output` was called."""
        if self.agent_name is None:
            self.agent_name = getattr(agent, "__name__", None)
        if inspect.iscoroutinefunction(agent):
            async_agent = cast(Callable[P, Awaitable[Any]], agent)

            @functools.wraps(agent)
            async def run_async(*args: P.args, **kwargs: P.kwargs) -> Any:
                async with self:
                    self._takeinput_from_call(agent, args, kwargs)
                    result = await async_agent(*args, **kwargs)
                    self._take_output_from_return(result)
                return result

            return cast(Callable[P, R], run_async)

        @functools.wraps(agent)
        def run_sync(*args: P.args, **kwargs: P.kwargs) -> R:
            with self:
                self._takeinput_from_call(agent, args, kwargs)
                result = agent(*args, **kwargs)
                self._take_output_from_return(result)
            return result

        return run_sync

    @property
    def trace(self) -> Trace:
        """The trace of the last run that ended (also when it raised)."""
        if self._trace is None:
            state = "is still running" if self._run is not None else "has not run yet"
            raise UsageError(f"no trace: this Recorder {state}")
        return self._trace

    @property
    def trace_id(self) -> str:
        """The id of the run in progress, or else of the last run."""
        if self._run is not None:
            return self._run.recording.trace_id
        return self.trace.trace_id

    def set_input(self, value: AgentInput) -> None:
        """The run's input: a text, or messages (``Message`` or OpenAI-shaped dicts)."""
        run = self._require_run("set_input")
        run.input = to_input(value)
        run.input_set = True

    def set_output(self, value: Any) -> None:
        """The run's final output, converted for JSON as tool results are."""
        run = self._require_run("set_output")
        json_value = to_json_value(value)
        if json_value.used_repr:
            run.root.mark_repr_field("final_output")
        run.output, run.output_set = json_value.value, True

    def set_metadata(self, key: str, value: Any) -> None:
        """One metadata entry of the run in progress (a prompt version, a scenario, ...)."""
        run = self._require_run("set_metadata")
        json_value = to_json_value(value)
        if json_value.used_repr:
            run.root.mark_repr_field(f"metadata.{key}")
        run.metadata[key] = json_value.value

    # -- tools, spans and model calls ------------------------------------------------------

    def tool(self, fn: Callable[P, R], *, name: str | None = None) -> Callable[P, R]:
        """``fn`` wrapped so its calls are recorded; see :func:`trailcheck.capture.record_tool`
        (the recording current where the tool is called records it, not necessarily this one)."""
        return record_tool(fn, name=name)

    def wrap_tools(self, tools: Iterable[Callable[..., Any]]) -> list[Callable[..., Any]]:
        """Each tool wrapped by :meth:`tool`, in order."""
        return [record_tool(fn) for fn in tools]

    @contextmanager
    def span(
        self,
        name: str,
        *,
        kind: NestedSpanKind = "other",
        attributes: Mapping[str, Any] | None = None,
    ) -> Iterator[SpanHandle]:
        """A nested span (a sub-agent, a retrieval, a guard check) around the block; spans
        started inside it, in this context, are its children."""
        with self._child_span(name=name, kind=kind, attributes=attributes) as span:
            yield SpanHandle(span)

    @contextmanager
    def model(
        self,
        *,
        model: str | None = None,
        provider: str | None = None,
        input_messages: Sequence[MessageLike] | None = None,
    ) -> Iterator[ModelCallHandle]:
        """A timed llm span around a model call; record the reply with ``record_reply``."""
        llm = ModelInvocation(
            model=model, provider=provider, input_messages=to_messages(input_messages)
        )
        with self._child_span(
            name=f"{semconv.OPERATION_CHAT} {model}" if model else semconv.OPERATION_CHAT,
            kind="llm",
            attributes=_model_attributes(model, provider),
            llm=llm,
        ) as span:
            yield ModelCallHandle(span)

    def model_call(
        self,
        *,
        model: str | None = None,
        provider: str | None = None,
        input_messages: Sequence[MessageLike] | None = None,
        output_messages: Sequence[MessageLike] | None = None,
        usage: UsageLike | None = None,
    ) -> str:
        """Record a model call that has already happened, as an llm span that lasts only as long
        as recording it (use :meth:`model` to time the call). Returns the span's id."""
        with self.model(model=model, provider=provider, input_messages=input_messages) as call:
            call.record_reply(output_messages, usage=usage)
        return call.span_id

    # -- internals -------------------------------------------------------------------------

    @contextmanager
    def _child_span(
        self,
        *,
        name: str,
        kind: Literal["agent", "llm", "retriever", "guard", "other"],
        attributes: Mapping[str, Any] | None,
        llm: ModelInvocation | None = None,
    ) -> Iterator[OpenSpan]:
        run = self._require_run("a span")
        current = CURRENT_SCOPE.get()
        # A span opened on this recorder from a context that is not inside its run (another
        # recorder's, or a thread without the copied context) goes under the root.
        parent_id = (
            current.span_id
            if current is not None and current.recording is run.recording
            else run.root.span_id
        )
        json_attributes, repr_keys = to_json_dict(dict(attributes or {}))
        span = run.recording.start_span(
            name=name, kind=kind, parent_id=parent_id, attributes=json_attributes, llm=llm
        )
        if span is None:
            raise UsageError(
                f"span {name!r}: the recording of trace {run.recording.trace_id} ended"
            )
        for key in repr_keys:
            span.mark_repr_field(f"attributes.{key}")
        token = CURRENT_SCOPE.set(Scope(run.recording, span.span_id))
        try:
            yield span
        except BaseException as error:  # recorded, then re-raised unchanged
            run.recording.end_span(span, error=error)
            raise
        else:
            run.recording.end_span(span)
        finally:
            CURRENT_SCOPE.reset(token)

    def _require_run(self, what: str) -> _Run:
        if self._run is None:
            raise UsageError(f"{what}: this Recorder is not recording; enter it first")
        return self._run

    def _begin(self) -> None:
        if self._run is not None:
            raise UsageError(
                "this Recorder is already recording a run; use one Recorder per concurrent run"
            )
        trace_id = checked_trace_id(self._ids.trace_id())
        state_before = self._snapshot() if self._environment is not None else None
        recording = Recording(trace_id, self._ids)
        operation = semconv.OPERATION_INVOKE_AGENT
        name = f"{operation} {self.agent_name}" if self.agent_name else operation
        attributes: dict[str, Any] = {semconv.GEN_AI_OPERATION_NAME: operation}
        if self.agent_name:
            attributes[semconv.GEN_AI_AGENT_NAME] = self.agent_name
        root = recording.start_span(name=name, kind="agent", parent_id=None, attributes=attributes)
        assert root is not None  # a new recording is open
        metadata = {**self._metadata}
        if self.agent_name:
            metadata.setdefault(AGENT_NAME_METADATA_KEY, self.agent_name)
        metadata, repr_keys = to_json_dict(metadata)
        for key in repr_keys:
            root.mark_repr_field(f"metadata.{key}")
        token = CURRENT_SCOPE.set(Scope(recording, root.span_id))
        self._trace = None
        self._run = _Run(recording, root, token, self._input, state_before, metadata)

    def _end(self, error: BaseException | None) -> None:
        run = self._require_run("exit")
        CURRENT_SCOPE.reset(run.token)
        state_after: dict[str, Any] | None = None
        snapshot_error: Exception | None = None
        if self._environment is not None:
            try:
                state_after = self._snapshot()
            except Exception as failure:  # noqa: BLE001 - kept on the trace, raised below
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
        self._run = None
        self._trace = Trace(
            trace_id=run.recording.trace_id,
            input=run.input,
            final_output=run.output,
            spans=spans,
            state_before=run.state_before,
            state_after=state_after,
            metadata=run.metadata,
            usage=trace_usage(spans, run.root.span_id),
        )
        # The run's own exception, when there is one, is what the caller must see; a failed
        # final snapshot is then only recorded (as an event on the root span).
        if snapshot_error is not None and error is None:
            raise snapshot_error

    def _snapshot(self) -> dict[str, Any]:
        assert self._environment is not None  # only called when an environment was given
        state = to_json_value(self._environment.snapshot())
        if not isinstance(state.value, dict):
            raise UsageError(
                f"{self._environment!r}.snapshot() returned {type(state.value).__name__},"
                " not a dict"
            )
        return state.value

    def _takeinput_from_call(
        self, agent: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        run = self._require_run("input")
        if self._input is None and not run.input_set:
            run.input = input_from_call(agent, args, kwargs)

    def _take_output_from_return(self, result: Any) -> None:
        if not self._require_run("output").output_set:
            self.set_output(result)


def _model_attributes(model: str | None, provider: str | None) -> dict[str, Any]:
    attributes: dict[str, Any] = {semconv.GEN_AI_OPERATION_NAME: semconv.OPERATION_CHAT}
    if model is not None:
        attributes[semconv.GEN_AI_REQUEST_MODEL] = model
    if provider is not None:
        attributes[semconv.GEN_AI_PROVIDER_NAME] = provider
    return attributes
