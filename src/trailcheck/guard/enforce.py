"""Policy rules enforced in the request path: a call that would break one is blocked.

::

    guard = PolicyGuard([{"name": "must_precede", "tool": "verify_identity",
                          "before": "issue_refund", "bind": {"order_id": "order_id"}}])
    refund = guard.wrap(shop.issue_refund, spans=recorder)
    refund(order_id="A-1", amount=5)  # PolicyBlockedError: must_precede: ...; no refund made

The rules are the ones datasets write (:mod:`trailcheck.policy`: ``must_precede``,
``forbidden``, ``at_most``, ``requires_confirmation_before``), and the decision is
:func:`trailcheck.policy.check_call`'s, so a call the guard lets through is one the policy
scorer would pass, and the other way round. Before a call runs, the guard checks it against
every rule, given the calls it let run before (with when they started and finished, and whether
they raised) and the conversation before the call (which confirmation rules read). A call that
breaks a rule does not run: the guard records a ``guard`` span (its tool, arguments, rule,
reason and ``decision: blocked``) through ``spans`` (a Recorder, or anything with its ``span``
method) and raises :class:`PolicyBlockedError`, which the error policy always hands back to
the model as ``{"error": "PolicyBlocked: <rule>: <reason>"}``, so the model learns why.

A blocked call is not a call that happened: it does not count towards ``at_most`` nor license
anything. One guard holds one conversation's calls: make one per session (a ToolAgent does).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal, ParamSpec, Protocol

from pydantic import TypeAdapter, ValidationError
from pydantic_core import to_jsonable_python

from trailcheck.errors import UsageError
from trailcheck.guard.error_policy import RefusedCallError
from trailcheck.policy import PolicySpec, Violation, check_call
from trailcheck.trace import Message, ToolCall

__all__ = [
    "GUARD_ARGUMENTS",
    "GUARD_CALL_ID",
    "GUARD_DECISION",
    "GUARD_REASON",
    "GUARD_RULE",
    "GUARD_TOOL",
    "GuardSpans",
    "PolicyBlockedError",
    "PolicyGuard",
]

P = ParamSpec("P")

GUARD_TOOL = "trailcheck.guard.tool"
GUARD_ARGUMENTS = "trailcheck.guard.arguments"
GUARD_CALL_ID = "trailcheck.guard.call_id"
GUARD_RULE = "trailcheck.guard.rule"
GUARD_REASON = "trailcheck.guard.reason"
GUARD_DECISION = "trailcheck.guard.decision"

_RULES: TypeAdapter[list[PolicySpec]] = TypeAdapter(list[PolicySpec])


class PolicyBlockedError(RefusedCallError):
    """A call a policy rule blocked before it ran; ``violation`` says which and why."""

    kind = "PolicyBlocked"

    def __init__(self, violation: Violation) -> None:
        super().__init__(str(violation))
        self.violation = violation


class GuardSpans(Protocol):
    """Where guard spans are recorded: :class:`trailcheck.capture.Recorder` is one."""

    def span(
        self, name: str, *, kind: Literal["guard"], attributes: Mapping[str, Any] | None = None
    ) -> AbstractContextManager[object]: ...


class PolicyGuard:
    """Enforces ``rules`` (policy specs, or their mappings) over one conversation's calls."""

    def __init__(
        self,
        rules: Sequence[PolicySpec | Mapping[str, Any]],
        *,
        clock: Callable[[], int] = time.time_ns,
    ) -> None:
        try:
            self.rules: tuple[PolicySpec, ...] = tuple(_RULES.validate_python(list(rules)))
        except ValidationError as error:
            raise UsageError(f"a guard's policy rules are not valid: {error}") from None
        self._clock = clock
        self._calls: list[ToolCall] = []

    @property
    def calls(self) -> list[ToolCall]:
        """The calls the guard let run, in the order they started (a copy)."""
        return list(self._calls)

    def check(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        call_id: str | None = None,
        conversation: Sequence[Message] = (),
    ) -> Violation | None:
        """The first rule the call would break, or None; nothing is recorded."""
        call = self._as_call(name, arguments, call_id)
        for rule in self.rules:
            violation = check_call(rule, call, self._calls, conversation)
            if violation is not None:
                return violation
        return None

    async def run(
        self,
        name: str,
        arguments: Mapping[str, Any],
        call: Callable[[], Awaitable[Any]],
        *,
        call_id: str | None = None,
        conversation: Sequence[Message] = (),
        spans: GuardSpans | None = None,
    ) -> Any:
        """Await ``call()`` unless the call breaks a rule: then record a guard span and raise
        :class:`PolicyBlockedError` without calling it. What ``call()`` raises propagates."""
        violation = self.check(name, arguments, call_id=call_id, conversation=conversation)
        if violation is not None:
            _record_block(spans, violation)
            raise PolicyBlockedError(violation)
        index = len(self._calls)
        self._calls.append(self._as_call(name, arguments, call_id))
        try:
            result = await call()
        except BaseException as error:  # the call happened and failed: recorded, re-raised
            self._finish(index, f"{type(error).__name__}: {error}")
            raise
        self._finish(index, None)
        return result

    def wrap(
        self,
        fn: Callable[P, Any],
        *,
        name: str | None = None,
        spans: GuardSpans | None = None,
        conversation: Callable[[], Sequence[Message]] = tuple,
    ) -> Callable[P, Awaitable[Any]]:
        """``fn`` as an async tool whose calls go through :meth:`run`, for agent loops other
        than ToolAgent; ``conversation`` gives the messages before each call."""
        tool_name = name or getattr(fn, "__name__", None) or repr(fn)
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        async def guarded(*args: P.args, **kwargs: P.kwargs) -> Any:
            bound = signature.bind(*args, **kwargs)

            async def call() -> Any:
                result = fn(*args, **kwargs)
                return await result if inspect.isawaitable(result) else result

            return await self.run(
                tool_name, bound.arguments, call, conversation=conversation(), spans=spans
            )

        return guarded

    def _as_call(self, name: str, arguments: Mapping[str, Any], call_id: str | None) -> ToolCall:
        number = len(self._calls) + 1
        return ToolCall(
            call_id=call_id,
            name=name,
            arguments=to_jsonable_python(dict(arguments), fallback=repr),
            recorded_result=None,
            error=None,
            span_id=call_id or f"call {number}",
            start_ns=self._clock(),
            end_ns=None,
        )

    def _finish(self, index: int, error: str | None) -> None:
        self._calls[index] = dataclasses.replace(
            self._calls[index], end_ns=self._clock(), error=error
        )


def _record_block(spans: GuardSpans | None, violation: Violation) -> None:
    if spans is None:
        return
    call = violation.call
    # Keys of the guard's own, not gen_ai.tool.*: an importer must not read a blocked call as
    # a call that ran.
    attributes: dict[str, Any] = {
        GUARD_TOOL: call.name,
        GUARD_ARGUMENTS: call.arguments,
        GUARD_RULE: violation.rule.summary,
        GUARD_REASON: violation.reason,
        GUARD_DECISION: "blocked",
    }
    if call.call_id is not None:
        attributes[GUARD_CALL_ID] = call.call_id
    with spans.span(f"guard {call.name}", kind="guard", attributes=attributes):
        pass
