"""Which traces an online evaluator looks at: its ``filter``, every criterion optional and all of
them combined with *and*.

- ``service``: the OpenTelemetry resource's ``service.name`` (the trace's
  ``metadata["otel.resource"]``, as the importers keep it).
- ``agent``: the agent's name (``metadata["agent_name"]``: ``gen_ai.agent.name`` and its kin).
- ``tool``: the trace called that tool (successfully or not).
- ``label``: the trace has a finding with that label, from any source.
- ``metadata``: each key is in the trace's metadata with that value (equal as JSON, where 25 is
  25.0 but ``true`` is not 1); ``metadata_keys``: each key is there, whatever its value. Keys are
  top-level keys of ``Trace.metadata``.
- ``since`` (inclusive) and ``until`` (exclusive): when the trace started (its first span's
  start; a naive time is UTC). A trace whose start is not known is outside any time window.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime
from typing import Annotated, Any, Final, Self

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from trailcheck.importing.assemble import RESOURCE_METADATA_KEY
from trailcheck.scorers.comparison import json_equal
from trailcheck.store.trace_filter import to_ns
from trailcheck.trace import Trace

__all__ = ["EvaluatorFilter"]

# The OpenTelemetry resource attribute that names the service.
SERVICE_NAME: Final = "service.name"
AGENT_NAME_KEY: Final = "agent_name"

Text = Annotated[str, Field(min_length=1)]
MetadataValue = str | int | float | bool | None


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _written_time(value: Any) -> Any:
    # A number would be read as seconds since the epoch (or milliseconds, by its size): a
    # guess, where a file should say what it means.
    if isinstance(value, int | float):
        raise ValueError(f"a time is ISO 8601 text, as 2026-06-19T09:00:00Z; not {value!r}")
    return value


# Lax (an ISO 8601 text is a time), unlike the rest of the file; normalised to UTC.
Moment = Annotated[
    datetime, Field(strict=False), BeforeValidator(_written_time), AfterValidator(_utc)
]


class EvaluatorFilter(BaseModel):
    """The traces an evaluator considers (the criteria: the module's docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    service: Text | None = None
    agent: Text | None = None
    tool: Text | None = None
    label: Text | None = None
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    metadata_keys: list[Text] = Field(default_factory=list)
    since: Moment | None = None
    until: Moment | None = None

    @model_validator(mode="after")
    def _window_in_order(self) -> Self:
        if self.since is not None and self.until is not None and self.until <= self.since:
            raise ValueError(f"until ({self.until}) must come after since ({self.since})")
        return self

    def admits(
        self, trace: Trace, *, labels: Collection[str] = (), started_ns: int | None = None
    ) -> bool:
        """Whether ``trace`` passes every criterion. ``labels``: the labels of its findings;
        ``started_ns``: when it started, when known better than by its spans (the store counts a
        trace without spans from its ingestion)."""
        metadata = trace.metadata
        checks = (
            self.service is None or _service(metadata) == self.service,
            self.agent is None or metadata.get(AGENT_NAME_KEY) == self.agent,
            self.tool is None or any(call.name == self.tool for call in trace.tool_calls),
            self.label is None or self.label in labels,
            all(key in metadata for key in self.metadata_keys),
            all(
                key in metadata and json_equal(value, metadata[key], int_equals_float=True)
                for key, value in self.metadata.items()
            ),
        )
        return all(checks) and self._in_window(trace, started_ns)

    def _in_window(self, trace: Trace, started_ns: int | None) -> bool:
        if self.since is None and self.until is None:
            return True
        if started_ns is None and trace.spans:
            started_ns = min(span.start_ns for span in trace.spans)
        if started_ns is None:
            return False
        after_since = self.since is None or started_ns >= to_ns(self.since)
        return after_since and (self.until is None or started_ns < to_ns(self.until))


def _service(metadata: dict[str, Any]) -> Any:
    resource = metadata.get(RESOURCE_METADATA_KEY)
    return resource.get(SERVICE_NAME) if isinstance(resource, dict) else None
