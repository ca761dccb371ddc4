"""Fakes and builders for tests, ours and our users': build traces by hand in a few lines, and
script a model's replies (:class:`ScriptedModel`, :func:`tool_call_reply`), a simulated user's
turns (:class:`ScriptedUser`; one per case with :class:`ScriptedUsers`), a judge's verdicts
(:class:`FakeJudge`) and a drafting model's scenarios per policy clause (:func:`scripted_drafter`).

>>> trace = (
...     TraceBuilder("t1", input="Refund order A-1")
...     .tool("lookup_order", {"order_id": "A-1"}, result={"status": "delivered"})
...     .tool("issue_refund", {"order_id": "A-1"}, error="identity not verified")
...     .output("I could not refund it.")
...     .build()
... )
>>> [call.name for call in trace.tool_calls]
['lookup_order', 'issue_refund']
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Self, TypeAlias

import orjson

from trailcheck.errors import UsageError
from trailcheck.judge.verdict import JudgeItem, Judging, Verdict
from trailcheck.models.chat import Reply, ToolDeclaration
from trailcheck.models.scripted import ScriptedModel, tool_call_reply
from trailcheck.simulation.scripted import ScriptedUser, ScriptedUsers
from trailcheck.trace import (
    Message,
    ModelInvocation,
    Span,
    Status,
    ToolInvocation,
    Trace,
    Usage,
)

__all__ = [
    "FakeJudge",
    "ScriptedModel",
    "ScriptedUser",
    "ScriptedUsers",
    "TraceBuilder",
    "scripted_drafter",
    "tool_call_reply",
]

# Builder spans are 1 µs long and 1 µs apart: ordered, deterministic, obviously synthetic.
_STEP_NS = 1_000
_ORIGIN_NS = 1_700_000_000_000_000_000


class TraceBuilder:
    """Builds a Trace with one root agent span and children in the order they are added.

    Ids and timestamps are deterministic, so two builds of the same steps are equal.
    """

    def __init__(
        self,
        trace_id: str = "trace-1",
        *,
        input: str | list[Message] | None = None,
        start_ns: int = _ORIGIN_NS,
    ):
        """``start_ns``: when the root span starts; each step follows a fixed step later."""
        self._trace_id = trace_id
        self._origin_ns = start_ns
        self._input = input
        self._children: list[Span] = []
        self._final_output: Any = None
        self._state_before: dict[str, Any] | None = None
        self._state_after: dict[str, Any] | None = None
        self._metadata: dict[str, Any] = {}
        self._usage: Usage | None = None

    def _next_times(self) -> tuple[int, int]:
        start = self._origin_ns + (2 * len(self._children) + 1) * _STEP_NS
        return start, start + _STEP_NS

    def tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        result: Any = None,
        error: str | None = None,
        call_id: str | None = None,
        json_result: bool = True,
    ) -> Self:
        """Add a tool call. A non-string ``result`` is recorded as JSON text (as OTel does)
        unless ``json_result`` is False."""
        start, end = self._next_times()
        index = len(self._children)
        recorded = result
        if json_result and result is not None and not isinstance(result, str):
            recorded = orjson.dumps(result).decode()
        self._children.append(
            Span(
                trace_id=self._trace_id,
                span_id=f"span-{index + 1:03d}",
                parent_id="span-000",
                name=f"execute_tool {name}",
                kind="tool",
                start_ns=start,
                end_ns=end,
                status=Status(code="error", message=error) if error else Status(),
                tool=ToolInvocation(
                    name=name,
                    call_id=call_id or f"call-{index + 1}",
                    arguments=arguments or {},
                    result=recorded,
                    error=error,
                    sequence=index,
                ),
            )
        )
        return self

    def llm(
        self,
        output: str | None = None,
        *,
        model: str = "scripted",
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        input_messages: list[Message] | None = None,
    ) -> Self:
        """Add a model call that answered ``output``, having seen ``input_messages``."""
        start, end = self._next_times()
        index = len(self._children)
        messages = None if output is None else [Message(role="assistant", content=output)]
        usage = None
        if input_tokens is not None or output_tokens is not None:
            usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
        self._children.append(
            Span(
                trace_id=self._trace_id,
                span_id=f"span-{index + 1:03d}",
                parent_id="span-000",
                name=f"chat {model}",
                kind="llm",
                start_ns=start,
                end_ns=end,
                llm=ModelInvocation(
                    model=model,
                    input_messages=input_messages,
                    output_messages=messages,
                    usage=usage,
                ),
            )
        )
        return self

    def output(self, final_output: Any) -> Self:
        self._final_output = final_output
        return self

    def state(
        self, *, before: dict[str, Any] | None = None, after: dict[str, Any] | None = None
    ) -> Self:
        self._state_before = before
        self._state_after = after
        return self

    def metadata(self, **values: Any) -> Self:
        self._metadata.update(values)
        return self

    def usage(self, usage: Usage) -> Self:
        self._usage = usage
        return self

    def build(self) -> Trace:
        end = self._origin_ns + (2 * len(self._children) + 1) * _STEP_NS
        root = Span(
            trace_id=self._trace_id,
            span_id="span-000",
            name="invoke_agent",
            kind="agent",
            start_ns=self._origin_ns,
            end_ns=end,
        )
        return Trace(
            trace_id=self._trace_id,
            input=self._input,
            final_output=self._final_output,
            spans=[root, *self._children],
            state_before=self._state_before,
            state_after=self._state_after,
            metadata=dict(self._metadata),
            usage=self._usage,
        )


FakeOutcome: TypeAlias = Verdict | Judging | Literal["pass", "fail", "unscorable"]
FakeStep: TypeAlias = FakeOutcome | Callable[[JudgeItem], FakeOutcome]


class FakeJudge:
    """A :class:`~trailcheck.judge.Judge` whose verdicts come from ``script``, for tests.

    ``script`` is a list given out in order, one entry per judging, or a function of the item.
    An entry is ``"pass"``, ``"fail"`` or ``"unscorable"`` (a minimal verdict, or none), a
    :class:`~trailcheck.judge.Verdict` (judged with it), a
    :class:`~trailcheck.judge.Judging` (returned as it is), or a function of the item that
    returns one of those. Every item judged is kept in :attr:`items`. ``version`` is a hash of
    ``name`` unless given, so two fakes with different names are different judges.
    """

    def __init__(
        self,
        script: Sequence[FakeStep] | Callable[[JudgeItem], FakeOutcome],
        *,
        name: str = "fake",
        version: str | None = None,
    ) -> None:
        self._function = script if callable(script) else None
        self._steps: list[FakeStep] = [] if callable(script) else list(script)
        self._name = name
        self._version = version or hashlib.sha256(f"fake:{name}".encode()).hexdigest()[:12]
        self.items: list[JudgeItem] = []

    @property
    def version(self) -> str:
        return self._version

    def describe(self) -> dict[str, Any]:
        return {"kind": "fake", "name": self._name, "version": self._version}

    async def judge(self, item: JudgeItem) -> Judging:
        self.items.append(item)
        step: FakeStep
        if self._function is not None:
            step = self._function
        elif len(self.items) <= len(self._steps):
            step = self._steps[len(self.items) - 1]
        else:
            raise UsageError(
                f"FakeJudge {self._name!r} judged {len(self.items)} items, but its script has"
                f" {len(self._steps)} verdicts"
            )
        outcome = step(item) if callable(step) else step
        return self._judging(item, outcome)

    def _judging(self, item: JudgeItem, outcome: FakeOutcome) -> Judging:
        if isinstance(outcome, Judging):
            return outcome
        base = {"item_id": item.item_id, "criterion": item.criterion}
        if outcome == "unscorable":
            return Judging(
                **base, judge_version=self._version, status="unscorable", reason="scripted"
            )
        if isinstance(outcome, str):
            if outcome not in ("pass", "fail"):
                raise UsageError(f"a FakeJudge step is pass, fail or unscorable, not {outcome!r}")
            passed = outcome == "pass"
            outcome = Verdict(
                evidence=[],
                passed_criteria=[item.criterion] if passed else [],
                failed_criteria=[] if passed else [item.criterion],
                failure_mode=None if passed else "scripted_failure",
                passed=passed,
            )
        reason = "passed" if outcome.passed else "failed"
        return Judging(
            **base, judge_version=self._version, status="judged", verdict=outcome, reason=reason
        )


def _asked_clause(messages: Sequence[Message]) -> str | None:
    """The clause id a drafting request asks about: the last user message is a JSON object
    whose ``clause.id`` names it (see :mod:`trailcheck.drafting.prompt`)."""
    for message in reversed(messages):
        if message.role != "user":
            continue
        try:
            request = orjson.loads(message.text)
        except orjson.JSONDecodeError:
            continue  # a retry's message, in words: the request is further back
        clause = request.get("clause") if isinstance(request, dict) else None
        if isinstance(clause, dict) and isinstance(clause.get("id"), str):
            return str(clause["id"])
    return None


def scripted_drafter(
    drafts: Mapping[str, Sequence[Mapping[str, Any]] | str], *, name: str = "scripted-drafter"
) -> ScriptedModel:
    """A drafting model that answers each clause's request with ``drafts[clause id]``: a list of
    scenarios (as :class:`~trailcheck.drafting.DraftedScenario` data), sent as ``{"drafts":
    [...]}``, or a text sent as it is (to script a bad answer). A clause it has nothing for gets
    no scenarios."""

    def reply(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply:
        del tools  # drafting shows the tools in its request, not as callable tools
        scripted = drafts.get(_asked_clause(messages) or "", [])
        if isinstance(scripted, str):
            return Reply(text=scripted, finish_reason="stop")
        text = orjson.dumps({"drafts": [dict(each) for each in scripted]}).decode()
        return Reply(text=text, finish_reason="stop")

    return ScriptedModel(reply, name=name)
