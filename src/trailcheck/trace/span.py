"""One unit of work inside a trace: an agent step, a model call, a tool call, a guard check."""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trailcheck.trace.derived import span_duration_ns, span_failed
from trailcheck.trace.integrity import check_span
from trailcheck.trace.kinds import SpanKind, StatusCode
from trailcheck.trace.messages import Message


class Status(BaseModel):
    """The outcome of a span, as OpenTelemetry records it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: StatusCode = "unset"
    message: str | None = None


class SpanEvent(BaseModel):
    """A timestamped event inside a span (an exception, a retry, a log line)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    time_ns: int
    attributes: dict[str, Any] = Field(default_factory=dict)


class Usage(BaseModel):
    """Tokens, cost and latency. Every figure is optional: sources record different subsets."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    cost_usd: float | None = Field(default=None, ge=0)
    latency_ms: float | None = Field(default=None, ge=0)


class ToolInvocation(BaseModel):
    """What a tool span records: the call as requested and its outcome, as the source gave it.

    ``result`` is kept exactly as recorded (often a JSON string); ``ToolCall`` parses it.
    ``sequence`` is an explicit order from the source, used to break ties of start time.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    call_id: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str | None = None
    sequence: int | None = None


class ModelInvocation(BaseModel):
    """What an llm span records: the model, the conversation it saw and what it answered."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = None
    provider: str | None = None
    input_messages: list[Message] | None = None
    output_messages: list[Message] | None = None
    usage: Usage | None = None


class Span(BaseModel):
    """A span. ``attributes`` keeps the source's attributes verbatim; ``tool`` and ``llm`` hold
    what trailcheck understood of them, so grading never depends on one vendor's naming."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    trace_id: str = Field(min_length=1)
    span_id: str = Field(min_length=1)
    parent_id: str | None = None
    name: str
    kind: SpanKind = "other"
    start_ns: int = Field(ge=0)
    end_ns: int | None = Field(default=None, ge=0)
    status: Status = Status()
    attributes: dict[str, Any] = Field(default_factory=dict)
    events: list[SpanEvent] = Field(default_factory=list)
    tool: ToolInvocation | None = None
    llm: ModelInvocation | None = None

    @model_validator(mode="after")
    def _check_consistency(self) -> Self:
        check_span(self)
        return self

    @property
    def duration_ns(self) -> int | None:
        """Nanoseconds from start to end; ``None`` while the span has not ended."""
        return span_duration_ns(self.start_ns, self.end_ns)

    @property
    def failed(self) -> bool:
        """True when the span's status is error, or its tool recorded an error."""
        return span_failed(self.status, self.tool)
