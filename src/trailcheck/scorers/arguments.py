"""The arguments scorer: the case's ``expected_arguments`` against the calls' arguments.

Expected invocations of a tool are paired with the actual calls of that tool by an optimal
assignment: the pairing matches the most fields in all, and among such pairings the one that
keeps order best (least squared distance between an expectation's and its call's position
among that tool's). An expectation left without a call (fewer calls than expectations) has
every field mismatched. Value = matched fields / expected fields. No ``expected_arguments``
produces no Score.

Reasons name a field as ``tool[k].field``, ``k`` counting the case's expectations of that tool
from 0: ``reschedule_delivery[0].date: expected 2026-06-19, got 2026-06-17``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from trailcheck.cases import Case, ExpectedInvocation, ScorerSpec
from trailcheck.scorers.assignment import pair_most_matched
from trailcheck.scorers.calls import ErroredCalls, considered_calls
from trailcheck.scorers.comparison import Mismatch, compare_field
from trailcheck.scorers.registry import scorer_to_spec
from trailcheck.scorers.score import Score, ratio
from trailcheck.trace import ToolCall, Trace


def mismatches(expected: ExpectedInvocation, call: ToolCall) -> dict[str, Mismatch]:
    """Each expected field that ``call`` does not satisfy, by field name."""
    found: dict[str, Mismatch] = {}
    arguments = call.arguments
    for key, comparator in expected.arguments.items():
        mismatch = compare_field(comparator, arguments, key)
        if mismatch is not None:
            found[key] = mismatch
    return found


def pair_invocations(
    expected: Sequence[ExpectedInvocation], calls: Sequence[ToolCall]
) -> dict[int, int]:
    """Expectation index → call index, by the optimal assignment the module describes."""
    return _paired(expected, [[mismatches(e, c) for c in calls] for e in expected])


def _paired(
    expected: Sequence[ExpectedInvocation], missed: Sequence[Sequence[dict[str, Mismatch]]]
) -> dict[int, int]:
    if not expected or not missed[0]:
        return {}
    if len(expected) == 1 == len(missed[0]):
        return {0: 0}
    matched = [
        [len(e.arguments) - len(row_missed) for row_missed in row]
        for e, row in zip(expected, missed, strict=True)
    ]
    return pair_most_matched(matched)


# Not frozen: made for every expected tool of every trace graded, and a frozen dataclass is
# half again as slow to make; nothing changes one after it is made.
@dataclass(slots=True)
class Pair:
    """Expectation ``k`` of ``tool`` (counting the case's expectations of that tool from 0, of
    which there are ``expected``, for ``made`` calls of it), the call paired with it (``None``:
    no call to pair with) and the fields that call missed."""

    tool: str
    k: int
    invocation: ExpectedInvocation
    call: ToolCall | None
    missed: dict[str, Mismatch]
    expected: int
    made: int

    @property
    def label(self) -> str:
        """``reschedule_delivery[0]``, as reasons name an expectation."""
        return f"{self.tool}[{self.k}]"


def expectation_pairs(
    trace: Trace, case: Case, errored_calls: ErroredCalls = "count"
) -> Iterator[Pair]:
    """Each of the case's expectations, by tool in the case's order, paired with a call of its
    tool (those ``errored_calls`` keeps) by the optimal assignment the module describes."""
    expected_by_tool: defaultdict[str, list[ExpectedInvocation]] = defaultdict(list)
    for invocation in case.expected_arguments:
        expected_by_tool[invocation.tool].append(invocation)
    # The calls of the expected tools only: no other call is read.
    calls_by_tool: dict[str, list[ToolCall]] = {tool: [] for tool in expected_by_tool}
    for call in considered_calls(trace, ignore_tools=(), errored_calls=errored_calls):
        same_tool = calls_by_tool.get(call.name)
        if same_tool is not None:
            same_tool.append(call)
    for tool, expected in expected_by_tool.items():
        calls = calls_by_tool[tool]
        if len(expected) == 1 == len(calls):  # the common case: nothing to assign
            missed = mismatches(expected[0], calls[0])
            yield Pair(tool, 0, expected[0], calls[0], missed, 1, 1)
            continue
        # Each expectation against each call, once: the pairing and the reasons both read it.
        missed_by_pair = [[mismatches(e, c) for c in calls] for e in expected]
        pairing = _paired(expected, missed_by_pair)
        for k, invocation in enumerate(expected):
            j = pairing.get(k)
            paired = None if j is None else calls[j]
            missed = {} if j is None else missed_by_pair[k][j]
            yield Pair(tool, k, invocation, paired, missed, len(expected), len(calls))


@dataclass(slots=True)
class _Tally:
    """What the expectations of every tool add up to, filled in one pair at a time."""

    matched: int = 0
    total: int = 0
    problems: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)

    def add(self, pair: Pair) -> None:
        fields = len(pair.invocation.arguments)
        self.total += fields
        if pair.call is None:
            self.problems.append(
                f"{pair.label}: no call to pair with ({pair.expected} expected, {pair.made} made)"
            )
            return
        self.matched += fields - len(pair.missed)
        self.evidence.append(pair.call.span_id)
        if pair.missed:
            self.problems.extend(f"{pair.label}.{key}: {m}" for key, m in pair.missed.items())


@dataclass(frozen=True)
class ArgumentsScorer:
    """Expected argument fields matched by the calls; passed iff value >= ``threshold``.

    ``errored_calls`` says whether a call that errored may be paired with an expectation.
    """

    name: ClassVar[str] = "arguments"
    # Reads message content (arguments, results, the answer): unscorable without it.
    needs_content: ClassVar[bool] = True
    version: ClassVar[str] = "1"

    threshold: float = 1.0
    errored_calls: ErroredCalls = "count"

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold is between 0 and 1, got {self.threshold}")

    def to_spec(self) -> ScorerSpec:
        return scorer_to_spec(self)

    def score(self, trace: Trace, case: Case) -> Score | None:
        if not case.expected_arguments:
            return None
        tally = _Tally()
        for pair in expectation_pairs(trace, case, self.errored_calls):
            tally.add(pair)
        value = tally.matched / tally.total
        reason = "; ".join([f"arguments {ratio(tally.matched, tally.total)}", *tally.problems])
        passed = value >= self.threshold
        return Score(self.name, value, passed, self.threshold, reason, tuple(tally.evidence))
