"""A failed trial's calls beside what its case expected, with the differences marked.

Two comparisons, each kept simple enough to check by eye:

- **Tools**: the expected tool names and the names of the calls made are aligned as a longest
  common subsequence (:class:`difflib.SequenceMatcher`). A call outside it is ``extra``; an
  expected tool outside it is ``missing``; a stretch where both sides differ is paired up as
  ``differs``. This is an in-order reading: the trajectory scorer may have been configured
  otherwise (any order, ignored tools), so its own score and reason are shown beside this view
  and are the verdict.
- **Arguments**: the case's expected invocations are paired with the calls of their tool and
  compared exactly as the arguments scorer does (the same pairing and the same comparators), so
  a marked field is one the scorer counted as a mismatch.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from itertools import zip_longest
from typing import Literal

import orjson
from pydantic import JsonValue, ValidationError

from trailcheck.cases import ExpectedInvocation
from trailcheck.run.results import CallSummary, CaseResult, TrialResult
from trailcheck.scorers.arguments import mismatches, pair_invocations
from trailcheck.trace import ToolCall

StepKind = Literal["same", "extra", "missing", "differs"]


@dataclass(frozen=True, slots=True)
class Step:
    """One row of the side-by-side view: the expected tool, the call made, or both."""

    kind: StepKind
    expected: str | None
    call: CallSummary | None
    call_index: int | None


@dataclass(frozen=True, slots=True)
class ArgumentMarks:
    """Per call index, the expected fields it missed (field → ``expected X, got Y``); per
    expectation, the call index it was paired with (``None``: no call to pair with)."""

    by_call: dict[int, dict[str, str]] = field(default_factory=dict)
    paired_call: list[int | None] = field(default_factory=list)


def align_tools(expected: Sequence[str] | None, calls: Sequence[CallSummary]) -> list[Step]:
    """Expected tools against calls; every call is ``same`` when the case expects no tools."""
    if expected is None:
        return [Step("same", None, call, i) for i, call in enumerate(calls)]
    names = [call.name for call in calls]
    steps: list[Step] = []
    matcher = SequenceMatcher(a=list(expected), b=names, autojunk=False)
    for tag, e_start, e_end, c_start, c_end in matcher.get_opcodes():
        pairs = zip_longest(range(e_start, e_end), range(c_start, c_end))
        for e_index, c_index in pairs:
            kind: StepKind = "same" if tag == "equal" else "differs"
            if e_index is None:
                kind = "extra"
            elif c_index is None:
                kind = "missing"
            steps.append(
                Step(
                    kind,
                    None if e_index is None else expected[e_index],
                    None if c_index is None else calls[c_index],
                    c_index,
                )
            )
    return steps


def _tool_call(call: CallSummary) -> ToolCall:
    return ToolCall(
        call_id=None,
        name=call.name,
        arguments=dict(call.arguments),
        recorded_result=None,
        error=call.error,
        span_id=call.span_id,
        start_ns=0,
        end_ns=None,
    )


def expected_invocations(case: CaseResult) -> list[ExpectedInvocation] | None:
    """The case's expected invocations read back; ``None`` when they do not validate (a report
    from another version), and the view then marks no argument rather than guess."""
    try:
        return [ExpectedInvocation.model_validate(item) for item in case.expected_arguments]
    except ValidationError:
        return None


def mark_arguments(
    expected: Sequence[ExpectedInvocation], calls: Sequence[CallSummary]
) -> ArgumentMarks:
    """The arguments scorer's pairing and mismatches, per tool, laid onto call indexes."""
    marks = ArgumentMarks(paired_call=[None] * len(expected))
    indexes_by_tool: defaultdict[str, list[int]] = defaultdict(list)
    for index, call in enumerate(calls):
        indexes_by_tool[call.name].append(index)
    positions_by_tool: defaultdict[str, list[int]] = defaultdict(list)
    for position, invocation in enumerate(expected):
        positions_by_tool[invocation.tool].append(position)
    for tool, positions in positions_by_tool.items():
        call_indexes = indexes_by_tool[tool]
        tool_calls = [_tool_call(calls[i]) for i in call_indexes]
        pairing = pair_invocations([expected[p] for p in positions], tool_calls)
        for k, call_k in pairing.items():
            call_index = call_indexes[call_k]
            marks.paired_call[positions[k]] = call_index
            missed = mismatches(expected[positions[k]], tool_calls[call_k])
            marks.by_call.setdefault(call_index, {}).update(
                {key: str(mismatch) for key, mismatch in missed.items()}
            )
    return marks


def expected_value_text(comparator: JsonValue) -> str:
    """An expected field as the dataset writes it, short: ``A-1001``, ``date 2026-06-19``."""
    if isinstance(comparator, dict) and "$compare" in comparator:
        kind = comparator["$compare"]
        if "value" in comparator:
            value = comparator["value"]
            shown = value if isinstance(value, str) else _json(value)
            return shown if kind == "exact" else f"{kind} {shown}"
        return str(kind)
    return comparator if isinstance(comparator, str) else _json(comparator)


def _json(value: JsonValue) -> str:
    return orjson.dumps(value).decode()


@dataclass(frozen=True, slots=True)
class TrialDiff:
    """Everything the side-by-side view of one trial shows."""

    steps: list[Step]
    marks: ArgumentMarks
    invocations_read: bool


def diff_trial(case: CaseResult, trial: TrialResult) -> TrialDiff:
    """The tool alignment and the argument marks of ``trial`` against ``case``."""
    invocations = expected_invocations(case)
    marks = mark_arguments(invocations, trial.calls) if invocations else ArgumentMarks()
    return TrialDiff(align_tools(case.expected_tools, trial.calls), marks, invocations is not None)
