"""Vendor attributes: what some projects record beyond the GenAI and OpenInference conventions.

Each vendor is one row of :data:`VENDORS`, naming the attributes it writes for

- a tool call as one JSON object ``{"name", "arguments", "result", "is_error"}`` on a tool span;
- the order of a tool call (an integer);
- a run summary: one JSON object on the root span, whose keys say the input, final output,
  environment state and run metadata (:class:`RunSummaryKeys`);
- flat root attributes: a state snapshot, and values copied into ``Trace.metadata``.

The standard conventions come first: a vendor's value only fills what they left empty, and a
vendor row listed earlier wins over a later one. Adding a vendor is adding a row; nothing here
knows one vendor from another.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.genai_messages import json_kind, json_object, tool_arguments
from trailcheck.trace import parse_json_text


@dataclass(frozen=True, slots=True)
class RunSummaryKeys:
    """The keys of a vendor's run summary object, and the ``Trace.metadata`` key each other
    copied value goes to."""

    input: str | None = None
    final_output: str | None = None
    state_before: str | None = None
    state_after: str | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class VendorConvention:
    """The attribute names one vendor writes. ``None`` means the vendor does not record it."""

    name: str
    tool_call: str | None = None
    # When a tool call is marked is_error: the key of its result object holding the error text.
    tool_error_key: str | None = None
    sequence: str | None = None
    run_summary: str | None = None
    run_summary_keys: RunSummaryKeys = RunSummaryKeys()
    state_before: str | None = None
    state_after: str | None = None
    # Root attribute → Trace.metadata key.
    metadata: Mapping[str, str] = field(default_factory=dict)


# trace2evals (github.com/slavadubrov/trace2evals): schema v1 writes gen_ai.tool.* plus flat
# root attributes; schema v2 writes trace2evals.call on tool spans and one trajectory summary.
TRACE2EVALS: Final = VendorConvention(
    name="trace2evals",
    tool_call="trace2evals.call",
    tool_error_key="error",
    sequence="trace2evals.sequence",
    run_summary="trace2evals.trajectory",
    run_summary_keys=RunSummaryKeys(
        input="user_message",
        final_output="final_answer",
        state_after="final_state",
        metadata={
            "scenario_id": "scenario_id",
            "agent_version": "agent_version",
            "principal": "principal",
            "metadata": "trace2evals",
        },
    ),
    state_after="trace2evals.final_state",
    metadata={
        "trace2evals.scenario_id": "scenario_id",
        "trace2evals.agent_version": "agent_version",
        "trace2evals.backend": "backend",
    },
)

VENDORS: Final[tuple[VendorConvention, ...]] = (TRACE2EVALS,)


@dataclass(frozen=True, slots=True)
class VendorToolCall:
    """A tool call as a vendor recorded it in one object. ``error`` is set iff it failed."""

    name: str | None
    arguments: dict[str, Any] | None
    result: Any
    error: str | None


@dataclass(slots=True)
class VendorTraceFields:
    """Trace-level fields the vendor attributes of a root span supply."""

    input: str | None = None
    final_output: Any = None
    state_before: dict[str, Any] | None = None
    state_after: dict[str, Any] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def sequence_attributes() -> tuple[str, ...]:
    """The vendors' tool-order attributes, in precedence order."""
    return tuple(vendor.sequence for vendor in VENDORS if vendor.sequence is not None)


def vendor_tool_call(attributes: Mapping[str, Any]) -> VendorToolCall | None:
    """The first vendor tool-call object among ``attributes``; ``None`` when there is none."""
    for vendor in VENDORS:
        if vendor.tool_call is not None and vendor.tool_call in attributes:
            return _tool_call(vendor, vendor.tool_call, attributes[vendor.tool_call])
    return None


def _tool_call(vendor: VendorConvention, key: str, value: Any) -> VendorToolCall:
    path = f"attributes.{key}"
    call = json_object(value, path, "a tool call record")
    name = call.get("name")
    if name is not None and (not isinstance(name, str) or not name):
        raise RecordError("a tool call's name must be a non-empty string", field=f"{path}.name")
    arguments = (
        tool_arguments(call["arguments"], f"{path}.arguments") if "arguments" in call else None
    )
    is_error = call.get("is_error", False)
    if not isinstance(is_error, bool):
        raise RecordError(
            f"is_error must be true or false, not {json_kind(is_error)}", field=f"{path}.is_error"
        )
    result = call.get("result")
    error = _error_text(vendor, key, result) if is_error else None
    return VendorToolCall(name=name, arguments=arguments, result=result, error=error)


def _error_text(vendor: VendorConvention, key: str, result: Any) -> str:
    # The result is kept verbatim elsewhere; here it is only read for the vendor's error text.
    parsed = parse_json_text(result)
    if vendor.tool_error_key is not None and isinstance(parsed, dict):
        text = parsed.get(vendor.tool_error_key)
        if isinstance(text, str) and text:
            return text
    return f"{key} marks the call as failed (is_error)"


def vendor_trace_fields(root_attributes: Mapping[str, Any]) -> VendorTraceFields:
    """What the vendor attributes of the root span say about the whole trace."""
    found = VendorTraceFields()
    for vendor in VENDORS:
        _read_flat(vendor, root_attributes, found)
        if vendor.run_summary is not None and vendor.run_summary in root_attributes:
            _read_summary(vendor.run_summary_keys, vendor.run_summary, root_attributes, found)
    return found


def _state(value: Any, path: str) -> dict[str, Any]:
    return json_object(value, path, "an environment state snapshot")


def _read_flat(
    vendor: VendorConvention, attributes: Mapping[str, Any], found: VendorTraceFields
) -> None:
    before, after = vendor.state_before, vendor.state_after
    if found.state_before is None and before is not None and before in attributes:
        found.state_before = _state(attributes[before], f"attributes.{before}")
    if found.state_after is None and after is not None and after in attributes:
        found.state_after = _state(attributes[after], f"attributes.{after}")
    for attribute, metadata_key in vendor.metadata.items():
        if attribute in attributes:
            found.metadata.setdefault(metadata_key, attributes[attribute])


def _read_summary(
    keys: RunSummaryKeys, attribute: str, attributes: Mapping[str, Any], found: VendorTraceFields
) -> None:
    path = f"attributes.{attribute}"
    summary = json_object(attributes[attribute], path, "a run summary")

    def value_of(key: str | None) -> tuple[Any, str]:
        return (None if key is None else summary.get(key)), f"{path}.{key}"

    user_input, input_path = value_of(keys.input)
    if found.input is None and user_input is not None:
        if not isinstance(user_input, str):
            raise RecordError(f"must be text, not {json_kind(user_input)}", field=input_path)
        found.input = user_input
    final_output, _ = value_of(keys.final_output)
    if found.final_output is None:
        found.final_output = final_output
    state_before, before_path = value_of(keys.state_before)
    if found.state_before is None and state_before is not None:
        found.state_before = _state(state_before, before_path)
    state_after, after_path = value_of(keys.state_after)
    if found.state_after is None and state_after is not None:
        found.state_after = _state(state_after, after_path)
    for summary_key, metadata_key in keys.metadata.items():
        if summary_key in summary:
            found.metadata.setdefault(metadata_key, summary[summary_key])
