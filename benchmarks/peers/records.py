"""What every peer adapter reads from a raw trailcheck JSONL line and from a trailcheck Case.

A peer is timed end to end from the raw line, as a user of that peer would start from the file:
``orjson.loads`` of the line, then these plain-dict helpers, then the peer's own objects. None
of this goes through trailcheck's models, so no peer is charged for (or helped by) trailcheck's
reading.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trailcheck.cases import (
    Case,
    DateComparator,
    DatetimeComparator,
    ExactComparator,
    NumberComparator,
    TextComparator,
)
from trailcheck.cases.comparators import Comparator

Record = dict[str, Any]
"""One trailcheck JSONL line as ``orjson.loads`` returns it."""


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """One tool span of a record, in the shape every peer needs."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    result: Any
    """As recorded: for these traces, the tool's JSON result as text."""
    failed: bool


def _start_order(span: Record) -> tuple[int, int]:
    tool = span["tool"]
    return span["start_ns"], tool.get("sequence", 0)


def recorded_calls(record: Record) -> list[RecordedCall]:
    """The record's tool calls in start order (as trailcheck orders them)."""
    tool_spans = sorted((s for s in record["spans"] if "tool" in s), key=_start_order)
    return [
        RecordedCall(
            call_id=span["tool"].get("call_id") or span["span_id"],
            name=span["tool"]["name"],
            arguments=span["tool"].get("arguments", {}),
            result=span["tool"].get("result"),
            failed=span.get("status", {}).get("code") == "error" or "error" in span["tool"],
        )
        for span in tool_spans
    ]


def input_text(record: Record) -> str:
    value = record.get("input")
    return value if isinstance(value, str) else ""


def output_text(record: Record) -> str:
    value = record.get("final_output")
    return value if isinstance(value, str) else ""


def plain_value(comparator: Comparator) -> tuple[bool, Any]:
    """``(True, value)`` for a comparator a peer can state as a literal expected value; the
    peers compare arguments by equality, so regex, one_of, present, absent and subset checks
    have no literal form and are left out of the peers' expectations."""
    if isinstance(comparator, DateComparator | DatetimeComparator):
        return True, comparator.value.isoformat()
    if isinstance(comparator, ExactComparator | TextComparator | NumberComparator):
        return True, comparator.value
    return False, None


def reference_calls(case: Case) -> list[tuple[str, dict[str, Any]]]:
    """The whole calls of the case's reference run (``metadata.reference_calls``), for the peers
    that compare a call's arguments as a whole (ADK, DeepEval): their users state the full
    expected call, since a partial one never equals a real call."""
    stated: Any = case.metadata.get("reference_calls", [])  # JSON written by peers/templates.py
    return [(call["tool"], call["arguments"]) for call in stated]


def expected_calls(case: Case) -> list[tuple[str, dict[str, Any]]]:
    """The case's expected tools in order, each with the literal arguments of the k-th
    expectation of that tool (``{}`` when the case expects none): how a peer's user writes the
    same case, since no peer pairs expectations with calls on its own."""
    by_tool: dict[str, list[dict[str, Any]]] = {}
    for invocation in case.expected_arguments:
        literal = {}
        for key, comparator in invocation.arguments.items():
            stated, value = plain_value(comparator)
            if stated:
                literal[key] = value
        by_tool.setdefault(invocation.tool, []).append(literal)
    taken: dict[str, int] = {}
    calls = []
    for name in case.expected_tools or []:
        k = taken.get(name, 0)
        taken[name] = k + 1
        options = by_tool.get(name, [])
        calls.append((name, options[k] if k < len(options) else {}))
    return calls
