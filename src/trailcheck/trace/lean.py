"""The lean holder of a trace: frozen msgspec Structs that mirror the pydantic models field for
field, decoded straight from trailcheck JSON for bulk reading and grading.

Same names, same constraints (:mod:`trailcheck.trace.integrity` checks both), same derived
views (``tool_calls``, ``tree``, ``input_text``, ``final_text``, ``duration_ns``), computed by
the same functions; both satisfy :class:`~trailcheck.trace.trace_view.TraceView`, so whatever reads
a trace through the views runs on either. :meth:`LeanTrace.to_trace` gives the pydantic
:class:`~trailcheck.trace.Trace` with the same content, for what needs one (a store, a report,
a scorer that takes only a Trace). Decode with
:func:`~trailcheck.trace.lean_decode.decode_lean_trace`: constructing these by hand checks the
invariants but not the field constraints.

Typed integers are bounded to what trailcheck stores (signed 64-bit,
:mod:`trailcheck.trace.limits`), so a decoded trace is one the import path would also accept.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from trailcheck.trace.derived import (
    computed_once,
    final_text,
    input_text,
    message_text,
    span_duration_ns,
    span_failed,
    trace_duration_ns,
)
from trailcheck.trace.integrity import check_span, check_trace
from trailcheck.trace.kinds import Role, SpanKind, StatusCode
from trailcheck.trace.limits import INT64_MAX, INT64_MIN
from trailcheck.trace.tool_calls import ToolCall, derive_tool_calls
from trailcheck.trace.trace import Trace
from trailcheck.trace.tree import SpanTree

__all__ = [
    "LeanMessage",
    "LeanMessageToolCall",
    "LeanModelInvocation",
    "LeanSpan",
    "LeanSpanEvent",
    "LeanStatus",
    "LeanToolInvocation",
    "LeanTrace",
    "LeanUsage",
]

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
Count = Annotated[int, msgspec.Meta(ge=0, le=INT64_MAX)]
Time = Annotated[int, msgspec.Meta(ge=0, le=INT64_MAX)]
Int64 = Annotated[int, msgspec.Meta(ge=INT64_MIN, le=INT64_MAX)]
Amount = Annotated[float, msgspec.Meta(ge=0)]


# Values, not containers of themselves: no struct can be part of a reference cycle, so none is
# tracked by the garbage collector (gc=False), which a bulk read of millions would otherwise
# pay. LeanTrace, whose derived views live in an instance __dict__, is the one tracked.
# omit_defaults: encoded, a struct is the line trailcheck writes (dump_trace leaves defaults out),
# which is what lets the bulk reader compare a line with its decoding cheaply.
class _Lean(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False, omit_defaults=True):
    pass


class LeanUsage(_Lean, frozen=True):
    input_tokens: Count | None = None
    output_tokens: Count | None = None
    cost_usd: Amount | None = None
    latency_ms: Amount | None = None


class LeanStatus(_Lean, frozen=True):
    code: StatusCode = "unset"
    message: str | None = None


class LeanSpanEvent(_Lean, frozen=True):
    name: str
    time_ns: Int64
    attributes: dict[str, Any] = {}


class LeanMessageToolCall(_Lean, frozen=True, kw_only=True):
    id: str | None = None
    name: NonEmpty
    arguments: dict[str, Any] = {}


class LeanMessage(_Lean, frozen=True):
    role: Role
    content: str | list[dict[str, Any]] | None = None
    tool_calls: list[LeanMessageToolCall] = []
    tool_call_id: str | None = None
    name: str | None = None

    @property
    def text(self) -> str:
        return message_text(self.content)


class LeanToolInvocation(_Lean, frozen=True):
    name: NonEmpty
    call_id: str | None = None
    arguments: dict[str, Any] = {}
    result: Any = None
    error: str | None = None
    sequence: Int64 | None = None


class LeanModelInvocation(_Lean, frozen=True):
    model: str | None = None
    provider: str | None = None
    input_messages: list[LeanMessage] | None = None
    output_messages: list[LeanMessage] | None = None
    usage: LeanUsage | None = None


_UNSET = LeanStatus()


class LeanSpan(_Lean, frozen=True, kw_only=True):
    trace_id: NonEmpty
    span_id: NonEmpty
    parent_id: str | None = None
    name: str
    kind: SpanKind = "other"
    start_ns: Time
    end_ns: Time | None = None
    status: LeanStatus = _UNSET
    attributes: dict[str, Any] = {}
    events: list[LeanSpanEvent] = []
    tool: LeanToolInvocation | None = None
    llm: LeanModelInvocation | None = None

    # msgspec calls it for each span decoded: the shared check itself, without a method
    # around it (mypy wants a method; the function takes the span as its first argument).
    __post_init__ = check_span  # type: ignore[misc]

    @property
    def duration_ns(self) -> int | None:
        return span_duration_ns(self.start_ns, self.end_ns)

    @property
    def failed(self) -> bool:
        return span_failed(self.status, self.tool)


_encode = msgspec.json.Encoder().encode


class LeanTrace(_Lean, frozen=True, dict=True, gc=True):
    """A trace as the bulk path holds it; ``tree`` and ``tool_calls`` are computed on first use
    and kept (``dict=True`` gives them an instance ``__dict__``, as on the pydantic Trace)."""

    trace_id: NonEmpty
    input: str | list[LeanMessage] | None = None
    final_output: Any = None
    spans: list[LeanSpan] = []
    state_before: dict[str, Any] | None = None
    state_after: dict[str, Any] | None = None
    metadata: dict[str, Any] = {}
    usage: LeanUsage | None = None

    def __post_init__(self) -> None:
        check_trace(self.trace_id, self.spans)

    @computed_once
    def tree(self) -> SpanTree[LeanSpan]:
        return SpanTree(self.spans)

    @computed_once
    def tool_calls(self) -> list[ToolCall]:
        return derive_tool_calls(self.spans)

    @computed_once
    def encoded(self) -> bytes:
        """The trace as JSON, as msgspec writes it: the bulk reader compares a line with it, and
        the import writes it (:func:`~trailcheck.ingest.trailcheck_jsonl.dump_lean_trace`)."""
        return _encode(self)

    @property
    def input_text(self) -> str:
        return input_text(self.input)

    @property
    def final_text(self) -> str:
        return final_text(self.final_output)

    @property
    def duration_ns(self) -> int | None:
        return trace_duration_ns(self.spans)

    def to_trace(self) -> Trace:
        """The pydantic Trace with the same content (validated again: the two agree)."""
        return Trace.model_validate(msgspec.to_builtins(self))
