"""Leads from the calls themselves: a call the expected sequence does not have, an expected call
not made where it was due, a call that broke a policy.

Where a missing call was due depends on the case's ``tool_match``: ``exact``, the call made in
its place (or the next one); ``in_order``, the next expected call that was made (any call
before it would have done, so that is the last moment it could come); ``any_order``, or with no
expected call after it, the end of the run (the span that gave the answer). Extra calls fail
only ``exact`` (the other modes score recall), so only there are they leads.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from trailcheck.cases import Case
from trailcheck.policy import MustPrecedePolicy, violations
from trailcheck.scorers.attribute.lead import Lead, Steps
from trailcheck.scorers.calls import considered_calls
from trailcheck.scorers.trajectory import Aligned, TrajectoryScorer, in_order_alignment
from trailcheck.trace import ToolCall, Trace


def trajectory_leads(
    trace: Trace, case: Case, scorer: TrajectoryScorer, steps: Steps
) -> list[Lead]:
    """The departures from ``expected_tools`` that failed the trajectory score."""
    if case.expected_tools is None:
        return []
    calls = considered_calls(
        trace, ignore_tools=scorer.ignore_tools, errored_calls=scorer.errored_calls
    )
    expected = scorer.expected_names(case.expected_tools)
    if not expected:
        return [
            Lead(call.span_id, "wrong_tool", f"no tool may be called; {call.name} was")
            for call in calls[:1]
        ]
    if case.tool_match == "any_order":
        return _any_order_leads(expected, calls, steps)
    exact = case.tool_match == "exact"
    aligned = in_order_alignment(expected, [call.name for call in calls])
    leads: list[Lead] = []
    for row, (e, c) in enumerate(aligned):
        if e is None and c is not None and exact:
            call = calls[c]
            leads.append(
                Lead(call.span_id, "wrong_tool", f"{call.name} is not in the expected sequence")
            )
        elif e is not None and c is None:
            due = _due(aligned, row, exact=exact)
            leads.append(_missing(expected[e], None if due is None else calls[due], steps))
    return leads


def _due(aligned: Sequence[Aligned], row: int, *, exact: bool) -> int | None:
    """The index of the call before which the expected tool of ``aligned[row]`` was due."""
    for e, c in aligned[row + 1 :]:
        if c is not None and (exact or e is not None):
            return c
    return None


def _missing(tool: str, due: ToolCall | None, steps: Steps) -> Lead:
    if due is None:
        where = steps.answer_id or ""
        return Lead(where, "wrong_tool", f"{tool} expected, never called", missing_tool=tool)
    evidence = f"{tool} expected before {due.name}, not called before it"
    return Lead(due.span_id, "wrong_tool", evidence, missing_tool=tool)


def _any_order_leads(
    expected: Sequence[str], calls: Sequence[ToolCall], steps: Steps
) -> list[Lead]:
    short = Counter(expected) - Counter(call.name for call in calls)
    return [
        Lead(
            steps.answer_id or "",
            "wrong_tool",
            f"{tool} expected {Counter(expected)[tool]} time(s), called {count} fewer",
            missing_tool=tool,
        )
        for tool, count in short.items()
    ]


def policy_leads(trace: Trace, case: Case) -> list[Lead]:
    """Each call that broke one of the case's policies."""
    return [
        Lead(
            violation.call.span_id,
            "policy_breach",
            f"broke {violation}",
            requires=violation.rule.tool if isinstance(violation.rule, MustPrecedePolicy) else None,
        )
        for violation in violations(case.policies, trace)
    ]
