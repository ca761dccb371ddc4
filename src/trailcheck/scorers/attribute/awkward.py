"""Awkward results: a correct tool result the agent misread.

A case's fault may declare the result it returns correct but awkward (``ToolFault.awkward``: an
empty list, a partial match, a stale value, a first page, a success that reads like an error).
The tool did right, so what went wrong after it went wrong in the agent's reading of it:

- a wrong value traced to an awkward result is ``misread_tool_result`` at the call that used
  it, never the tool's wrong data (:func:`~.values.value_lead` asks :attr:`.Steps.awkward`);
- a lead at the step that read an awkward result, that says the run left the reference there
  (``wrong_tool``), used a wrong value (``wrong_argument``) or stopped short
  (``gave_up_or_looped``), is that reading: ``misread_tool_result``, its evidence naming the
  result. A policy breach stays one, as a named rule says more, and so does a claim the answer
  makes that nothing supports.

The step that read a result is the agent's next move after it: the first call made after a
model span that started once the result was in, or the answer when that span gave it (without
model spans, the next call, else the answer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from trailcheck.cases import AWKWARD_DESCRIPTIONS, AwkwardKind, Case
from trailcheck.scorers.attribute.lead import Lead, Steps
from trailcheck.scorers.attribution import AttributionCategory
from trailcheck.scorers.comparison import json_equal
from trailcheck.trace import ToolCall, Trace

_READING_CATEGORIES: frozenset[AttributionCategory] = frozenset(
    {"wrong_tool", "wrong_argument", "gave_up_or_looped"}
)


def awkward_results(trace: Trace, case: Case) -> dict[str, AwkwardKind]:
    """The span ids of the calls that returned an awkward result of the case's faults: a call
    of the fault's tool that succeeded with the fault's result, and its kind."""
    faults = [(f.tool, f.result, kind) for f in case.faults if (kind := f.awkward) is not None]
    found: dict[str, AwkwardKind] = {}
    for call in trace.tool_calls if faults else ():
        for tool, result, kind in faults:
            same = call.name == tool and call.succeeded
            if same and json_equal(result, call.result, int_equals_float=True):
                found[call.span_id] = kind
                break
    return found


def describe_awkward(span_id: str, steps: Steps) -> str:
    """``search_orders (step 2) returned a first page of several, a correct result``."""
    kind = steps.awkward[span_id]
    return f"{steps.describe(span_id)} returned {AWKWARD_DESCRIPTIONS[kind]}, a correct result"


def _ended(call: ToolCall) -> int:
    return call.end_ns if call.end_ns is not None else call.start_ns


def reading_step(trace: Trace, awkward: ToolCall, steps: Steps) -> str | None:
    """The span of the agent's next move after ``awkward``'s result (see the module)."""
    after = _ended(awkward)
    reader = next((s for s in steps.spans if s.kind == "llm" and s.start_ns >= after), None)
    if reader is not None and reader.span_id == steps.answer_id:
        return reader.span_id
    since = after if reader is None else reader.start_ns
    move = next(
        (c for c in trace.tool_calls if c is not awkward and c.start_ns >= since),
        None,
    )
    return move.span_id if move is not None else steps.answer_id


def misreadings(trace: Trace, leads: Sequence[Lead], steps: Steps) -> list[Lead]:
    """``leads`` with each one at the step that read an awkward result, and of a category that
    reading explains, made a misreading of it (see the module)."""
    if not steps.awkward:
        return list(leads)
    read_at: dict[str, str] = {}
    for call in trace.tool_calls:  # in call order: a later awkward result read at the same
        if call.span_id in steps.awkward:  # step is the one read last, so it wins
            reading = reading_step(trace, call, steps)
            if reading is not None:
                read_at[reading] = call.span_id
    return [
        replace(
            lead,
            category="misread_tool_result",
            evidence=f"{describe_awkward(read_at[lead.span_id], steps)}, misread: {lead.evidence}",
        )
        if lead.span_id in read_at and lead.category in _READING_CATEGORIES
        else lead
        for lead in leads
    ]
