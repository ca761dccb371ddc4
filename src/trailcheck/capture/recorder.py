"""The Recorder: live agent runs recorded as Traces.

::

    recorder = Recorder(agent_name="support", input="Refund order A-1", environment=shop)
    lookup = recorder.tool(shop.lookup_order)
    with recorder:
        order = lookup(order_id="A-1")
        recorder.set_output(f"Order is {order['status']}")
    recorder.trace.tool_calls[0].name  # "lookup_order"

Each entry of a Recorder (``with``, ``async with``, a call of a decorated agent) records one run,
and the runs of one Recorder may overlap: each asyncio task or thread that enters it records its
own run (see :mod:`trailcheck.capture.runs`), so a runner can call one decorated agent
concurrently. Finished traces are kept in completion order in ``recorder.traces``;
``recorder.trace`` is the last. Entering a Recorder inside its own run, in the same context,
raises :class:`UsageError`: a run inside a run needs a Recorder of its own.

Which recording a tool call or span goes to is decided by the calling context (see
:mod:`trailcheck.capture.recording` and :mod:`trailcheck.capture.tools`): a Recorder entered
inside another records a separate trace, and the inner one is current until it exits. Where the
context has no run (a thread that did not copy it), the Recorder's methods and the tools it
wrapped use its run when it has exactly one, and otherwise cannot tell which run is meant.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Literal, ParamSpec, Self, TypeVar, cast

from trailcheck.capture.agent_io import AgentInput, input_from_call, to_input
from trailcheck.capture.handles import (
    MessageLike,
    ModelCallHandle,
    SpanHandle,
    UsageLike,
    checked_messages,
    checked_usage,
)
from trailcheck.capture.ids import IdFactory, RandomIds
from trailcheck.capture.jsonable import to_json_dict
from trailcheck.capture.recording import CURRENT_SCOPE, OpenSpan, Scope
from trailcheck.capture.run_context import ActiveRuns
from trailcheck.capture.runs import Run, Snapshottable, begin_run, end_run
from trailcheck.capture.tools import wrap_tool
from trailcheck.errors import UsageError
from trailcheck.trace import ModelInvocation, Trace, semconv

P = ParamSpec("P")
R = TypeVar("R")

NestedSpanKind = Literal["agent", "retriever", "guard", "other"]

_EXITED_ELSEWHERE = (
    "this Recorder's run was exited in another context (asyncio task or thread) than the one"
    " it was entered in, which cannot be restored: the run's trace is recorded, but tools called"
    " later in the entering context are not. Enter and exit a Recorder in the same task"
    " (with a `with` or `async with` block)"
)


class Recorder:
    """Records agent runs: for each, a root ``agent`` span and the tool, model and other spans
    under it.

    Use it as ``with recorder:``, ``async with recorder:``, or as a decorator of a sync or async
    agent function; runs in different tasks or threads may overlap. ``environment`` is
    snapshotted before and after each run (``state_before``, ``state_after``). ``metadata`` is
    copied into each trace (with ``agent_name`` set unless given). ``ids`` makes
    the trace and span ids; :class:`SeededIds` makes them reproducible.

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
        self._runs = ActiveRuns(self)
        self._lock = threading.Lock()  # guards the traces: runs end in any task or thread
        self._traces: list[Trace] = []
        self._last: Trace | None = None

    # -- runs ------------------------------------------------------------------------------

    def __enter__(self) -> Self:
        self._begin()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._end(self._runs.require("exit"), exc)

    async def __aenter__(self) -> Self:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, traceback)

    def __call__(self, agent: Callable[P, R]) -> Callable[P, R]:
        """Decorate an agent function: each call is a run, also when calls overlap. The input
        is the first argument when it is a text or a list of messages (else call
        :meth:`set_input`); the output is the return value unless :meth:`set_output` was
        called."""
        if self.agent_name is None:
            self.agent_name = getattr(agent, "__name__", None)
        if inspect.iscoroutinefunction(agent):
            async_agent = cast(Callable[P, Awaitable[Any]], agent)

            @functools.wraps(agent)
            async def run_async(*args: P.args, **kwargs: P.kwargs) -> Any:
                with self._run_block() as run:
                    self._take_input_from_call(run, agent, args, kwargs)
                    result = await async_agent(*args, **kwargs)
                    self._take_output_from_return(run, result)
                return result

            return cast(Callable[P, R], run_async)

        @functools.wraps(agent)
        def run_sync(*args: P.args, **kwargs: P.kwargs) -> R:
            with self._run_block() as run:
                self._take_input_from_call(run, agent, args, kwargs)
                result = agent(*args, **kwargs)
                self._take_output_from_return(run, result)
            return result

        return run_sync

    @property
    def trace(self) -> Trace:
        """The trace of the last run that ended (also when it raised)."""
        with self._lock:
            last = self._last
        if last is None:
            state = "is still running" if len(self._runs) else "has not run yet"
            raise UsageError(f"no trace: this Recorder {state}")
        return last

    @property
    def traces(self) -> list[Trace]:
        """The traces of the runs that ended (a copy), in the order they ended; ``drain()``
        takes them out."""
        with self._lock:
            return list(self._traces)

    def drain(self) -> list[Trace]:
        """Take out the kept traces, leaving ``traces`` empty (``trace`` still gives the last),
        so a Recorder used for many runs does not hold them all."""
        with self._lock:
            traces, self._traces = self._traces, []
        return traces

    @property
    def trace_id(self) -> str:
        """The id of the run in progress here (see :meth:`set_output`), or of the last run."""
        run = self._runs.here()
        return run.recording.trace_id if run is not None else self.trace.trace_id

    def set_input(self, value: AgentInput) -> None:
        """The run's input: a text, or messages (``Message`` or OpenAI-shaped dicts)."""
        run = self._runs.require("set_input")
        run.input = to_input(value)
        run.input_set = True

    def set_output(self, value: Any) -> None:
        """The final output of the run current here (in this task or thread, or else this
        Recorder's only run), converted for JSON as tool results are."""
        self._runs.require("set_output").set_output(value)

    def set_metadata(self, key: str, value: Any) -> None:
        """One metadata entry of the run in progress (a prompt version, a scenario, ...)."""
        self._runs.require("set_metadata").set_metadata(key, value)

    # -- tools, spans and model calls ------------------------------------------------------

    def tool(self, fn: Callable[P, R], *, name: str | None = None) -> Callable[P, R]:
        """``fn`` wrapped so its calls are recorded; see :func:`trailcheck.capture.record_tool`.

        The recording current where the tool is called records it, not necessarily this
        Recorder's. Where none is current (a thread pool, ``run_in_executor``, a bare thread),
        the call goes under the root span of this Recorder's run when it has exactly one; with
        several, which run it belongs to cannot be told: it runs unrecorded, with a
        :class:`RuntimeWarning`."""
        return wrap_tool(fn, name=name, fallback=self._runs.fallback_scope)

    def wrap_tools(self, tools: Iterable[Callable[..., Any]]) -> list[Callable[..., Any]]:
        """Each tool wrapped by :meth:`tool`, in order."""
        return [self.tool(fn) for fn in tools]

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
            model=model,
            provider=provider,
            input_messages=checked_messages(input_messages, "input_messages"),
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
        as recording it (use :meth:`model` to time the call). Returns the span's id. A value
        that is not valid is a :class:`UsageError` naming its field, and nothing is recorded."""
        # Checked before the span opens, so a bad value does not leave a failed model call.
        inputs = checked_messages(input_messages, "input_messages")
        outputs = checked_messages(output_messages, "output_messages")
        checked = checked_usage(usage)
        with self.model(model=model, provider=provider, input_messages=inputs) as call:
            call.record_reply(outputs, usage=checked)
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
        run = self._runs.require("a span")
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

    @contextmanager
    def _run_block(self) -> Iterator[Run]:
        run = self._begin()
        try:
            yield run
        except BaseException as error:  # ends the run, then propagates unchanged
            self._end(run, error)
            raise
        self._end(run, None)

    def _begin(self) -> Run:
        self._runs.check_none_here()
        run = begin_run(
            self,
            agent_name=self.agent_name,
            input=self._input,
            metadata=self._metadata,
            ids=self._ids,
            environment=self._environment,
        )
        self._runs.add(run)
        return run

    def _end(self, run: Run, error: BaseException | None) -> None:
        # First of all the run is over, so that whatever happens next the Recorder accepts the
        # next one.
        restored = self._runs.remove(run)
        trace, snapshot_error = end_run(run, error, self._environment)
        with self._lock:
            self._traces.append(trace)
            self._last = trace
        if not restored:
            if error is not None:  # the run's own error is what the caller must see
                error.add_note(_EXITED_ELSEWHERE)
            else:
                raise UsageError(_EXITED_ELSEWHERE) from snapshot_error
        # The run's own exception, when there is one, is what the caller must see; a failed
        # final snapshot is then only recorded (as an event on the root span).
        if snapshot_error is not None and error is None:
            raise snapshot_error

    def _take_input_from_call(
        self, run: Run, agent: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        if self._input is None and not run.input_set:
            run.input = input_from_call(agent, args, kwargs)

    def _take_output_from_return(self, run: Run, result: Any) -> None:
        if not run.output_set:
            run.set_output(result)


def _model_attributes(model: str | None, provider: str | None) -> dict[str, Any]:
    attributes: dict[str, Any] = {semconv.GEN_AI_OPERATION_NAME: semconv.OPERATION_CHAT}
    if model is not None:
        attributes[semconv.GEN_AI_REQUEST_MODEL] = model
    if provider is not None:
        attributes[semconv.GEN_AI_PROVIDER_NAME] = provider
    return attributes
