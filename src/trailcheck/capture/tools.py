"""Wrapping tool functions so each call becomes a tool span of the run being recorded.

A wrapped tool is recorded by the recording current in the calling context: the one of the
innermost ``Recorder`` entered in this task (or in the task that started this thread with a copied
context, as ``asyncio.to_thread`` does), whichever recorder wrapped it. So tools can be wrapped
once, when an environment is built, and every run records its own calls. Where no recording is
current (a thread of a ``ThreadPoolExecutor``, ``loop.run_in_executor`` or a bare
``threading.Thread``: they do not copy the context), a tool wrapped by ``recorder.tool`` goes to
that recorder's run (see :meth:`trailcheck.capture.Recorder.tool`); one wrapped by
:func:`record_tool` just runs, as it does outside any recording.

The arguments are bound to the tool's signature and recorded by parameter name, as a model's
tool call names them: only the arguments passed (defaults are not filled in), ``**kwargs`` merged
in by name, ``*args`` as a list under its parameter name. Values are converted for JSON as
:mod:`trailcheck.capture.jsonable` describes, before the call (so a tool that mutates its
arguments does not change what was recorded); the fields holding a ``repr()`` are listed in the
span attribute ``trailcheck.capture.repr_fields``. The result is converted the same way; an
exception is recorded (status error, an ``exception`` event, the tool's error text) and re-raised
as it was. A sync tool that returns an awaitable (a coroutine, a future) is recorded when that
completes: the span lasts until then and holds the awaited result or error. A call made to
answer a model's tool request (:mod:`trailcheck.trace.answering`) records that request's id;
other calls have none (a Python call has no model-assigned id).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar, cast

from trailcheck.callables import signature_of
from trailcheck.capture.jsonable import to_json_dict, to_json_value
from trailcheck.capture.recording import CURRENT_SCOPE, OpenSpan, Scope
from trailcheck.errors import UsageError
from trailcheck.trace import ToolInvocation, semconv
from trailcheck.trace.answering import claim_answered_call_id

P = ParamSpec("P")
R = TypeVar("R")

# Arguments that match no signature are recorded under this key, so none is lost.
UNBOUND_POSITIONAL_KEY = "*args"


def record_tool(fn: Callable[P, R], *, name: str | None = None) -> Callable[P, R]:
    """``fn`` wrapped so that each call is recorded as a tool span (see the module docstring).

    Works for functions, bound methods and callables, sync or async; the wrapper keeps the
    signature, name, docstring and ``__wrapped__``. Exceptions the tool raises reach the caller
    unchanged; the span records them. ``name`` overrides the tool's name (its ``__name__``).
    """
    return wrap_tool(fn, name=name, fallback=None)


# Where a call goes when the calling context has no current recording: given the tool's name,
# a scope, or None to run the tool unrecorded.
ScopeFallback = Callable[[str], Scope | None]


def wrap_tool(
    fn: Callable[P, R], *, name: str | None, fallback: ScopeFallback | None
) -> Callable[P, R]:
    """:func:`record_tool` with a ``fallback`` for calls made where no recording is current."""
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise UsageError(f"{fn!r} is a generator function; streaming tools cannot be recorded")
    tool_name = name or getattr(fn, "__name__", None)
    if not tool_name:
        raise UsageError(f"{fn!r} has no __name__; pass the tool's name")
    start = functools.partial(_start_tool_span, _call_describer(fn, tool_name), tool_name, fallback)
    if _is_async(fn):
        return cast(Callable[P, R], _async_wrapper(cast(Callable[P, Awaitable[Any]], fn), start))
    return _sync_wrapper(fn, start)


_CallDescriber = Callable[[tuple[Any, ...], dict[str, Any]], tuple[ToolInvocation, list[str]]]
_SpanStarter = Callable[[tuple[Any, ...], dict[str, Any]], tuple[Scope, OpenSpan] | None]


def _sync_wrapper(fn: Callable[P, R], start: _SpanStarter) -> Callable[P, R]:
    @functools.wraps(fn)
    def call_recorded(*args: P.args, **kwargs: P.kwargs) -> R:
        started = start(args, kwargs)
        if started is None:
            return fn(*args, **kwargs)
        scope, span = started
        token = CURRENT_SCOPE.set(Scope(scope.recording, span.span_id))
        try:
            result = fn(*args, **kwargs)
        except BaseException as error:  # recorded, then re-raised unchanged
            scope.recording.end_span(span, error=error)
            raise
        finally:
            CURRENT_SCOPE.reset(token)
        if inspect.isawaitable(result):
            # A sync def that hands back a coroutine or future: the call's outcome is what
            # awaiting it gives, so that is recorded, not the awaitable object.
            return cast(R, _outcome_when_done(scope, span, result))
        _record_result(span, result)
        scope.recording.end_span(span)
        return result

    return call_recorded


def _async_wrapper(fn: Callable[P, Awaitable[R]], start: _SpanStarter) -> Callable[P, Awaitable[R]]:
    @functools.wraps(fn)
    async def call_recorded(*args: P.args, **kwargs: P.kwargs) -> R:
        started = start(args, kwargs)
        if started is None:
            return await fn(*args, **kwargs)
        scope, span = started
        return await _awaited_recorded(scope, span, lambda: fn(*args, **kwargs))

    return call_recorded


async def _awaited_recorded(
    scope: Scope, span: OpenSpan, awaitable_of: Callable[[], Awaitable[R]]
) -> R:
    """Await what ``awaitable_of`` gives with ``span`` current, recording the outcome on it."""
    token = CURRENT_SCOPE.set(Scope(scope.recording, span.span_id))
    try:
        result = await awaitable_of()
    except BaseException as error:  # cancellation included: a timed-out call is recorded
        scope.recording.end_span(span, error=error)
        raise
    finally:
        CURRENT_SCOPE.reset(token)
    _record_result(span, result)
    scope.recording.end_span(span)
    return result


def _outcome_when_done(scope: Scope, span: OpenSpan, awaitable: Awaitable[R]) -> Awaitable[R]:
    """What a sync tool's caller gets for the awaitable the tool returned: a future itself
    (callers may add callbacks or cancel it), its outcome recorded when it is done; any other
    awaitable wrapped in a coroutine that records the outcome when it is awaited."""
    if isinstance(awaitable, asyncio.Future):
        awaitable.add_done_callback(functools.partial(_record_future, scope, span))
        return awaitable
    return _awaited_recorded(scope, span, lambda: awaitable)


def _record_future(scope: Scope, span: OpenSpan, future: asyncio.Future[Any]) -> None:
    if future.cancelled():
        scope.recording.end_span(span, error=asyncio.CancelledError())
        return
    # Reading the exception marks it retrieved, so asyncio no longer logs it if nobody awaits
    # the future; the span keeps it instead.
    error = future.exception()
    if error is not None:
        scope.recording.end_span(span, error=error)
        return
    _record_result(span, future.result())
    scope.recording.end_span(span)


def _start_tool_span(
    describe_call: _CallDescriber,
    tool_name: str,
    fallback: ScopeFallback | None,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> tuple[Scope, OpenSpan] | None:
    scope = CURRENT_SCOPE.get()
    if scope is None and fallback is not None:
        scope = fallback(tool_name)
    if scope is None:
        return None
    invocation, repr_fields = describe_call(args, kwargs)
    span = scope.recording.start_span(
        name=f"{semconv.EXECUTE_TOOL_SPAN_NAME_PREFIX}{invocation.name}",
        kind="tool",
        parent_id=scope.span_id,
        attributes={
            semconv.GEN_AI_OPERATION_NAME: semconv.OPERATION_EXECUTE_TOOL,
            semconv.GEN_AI_TOOL_NAME: invocation.name,
        },
        tool=invocation,
    )
    if span is None:
        return None
    for field_name in repr_fields:
        span.mark_repr_field(f"arguments.{field_name}")
    call_id = claim_answered_call_id()
    if call_id is not None:
        span.tool = (span.tool or invocation).model_copy(update={"call_id": call_id})
    return scope, span


def _record_result(span: OpenSpan, result: Any) -> None:
    json_result = to_json_value(result)
    if json_result.used_repr:
        span.mark_repr_field("result")
    assert span.tool is not None  # tool spans are started with their invocation
    span.tool = span.tool.model_copy(update={"result": json_result.value})


def _is_async(fn: Callable[..., Any]) -> bool:
    # A callable object with an ``async def __call__`` is async too (looked up on the type, as
    # Python looks up the method a call runs).
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)


def _call_describer(fn: Callable[..., Any], tool_name: str) -> _CallDescriber:
    try:
        signature: inspect.Signature | None = signature_of(fn)
    except (TypeError, ValueError):  # some builtins have no signature
        signature = None
    # A function decorated in a class body is called with the instance (or class) first; that is
    # the receiver, not an argument the model chose.
    skip_receiver = (
        signature is not None
        and inspect.isfunction(fn)
        and next(iter(signature.parameters), None) in {"self", "cls"}
    )

    def describe_call(
        args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[ToolInvocation, list[str]]:
        raw = _bind_arguments(signature, skip_receiver, args, kwargs)
        arguments, repr_fields = to_json_dict(raw)
        return ToolInvocation(name=tool_name, arguments=arguments), repr_fields

    return describe_call


def _bind_arguments(
    signature: inspect.Signature | None,
    skip_receiver: bool,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> dict[str, Any]:
    if signature is None:
        return _unbound(args, kwargs)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:  # the call itself will raise the tool's own TypeError; record what came
        return _unbound(args, kwargs)
    arguments: dict[str, Any] = {}
    for index, (param_name, value) in enumerate(bound.arguments.items()):
        if index == 0 and skip_receiver:
            continue
        kind = signature.parameters[param_name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            arguments.update(value)
        elif kind is inspect.Parameter.VAR_POSITIONAL:
            arguments[param_name] = list(value)
        else:
            arguments[param_name] = value
    return arguments


def _unbound(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    return {UNBOUND_POSITIONAL_KEY: list(args), **kwargs} if args else dict(kwargs)
