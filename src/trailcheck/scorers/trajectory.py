"""The trajectory scorer: the sequence of tools called against the case's ``expected_tools``.

Modes (the case's ``tool_match``):

- ``exact``: 1 when the called sequence equals the expected one, else 0;
- ``in_order``: recall of the longest common subsequence, the fraction of the expected sequence
  that appears in the calls in order;
- ``any_order``: multiset recall, the fraction of expected calls (with repeats) that were made.

Precision (matched / called) is reported beside recall, so a wandering agent shows. In ``exact``
mode the reason also gives the in-order figures, to say how far off the sequence is.
``expected_tools: []`` means no tool may be called: 1 with no calls, else 0, and it fails
whatever the threshold. An absent ``expected_tools`` produces no Score.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from trailcheck.cases import Case, ScorerSpec, ToolMatch
from trailcheck.scorers.calls import ErroredCalls, considered_calls
from trailcheck.scorers.registry import scorer_to_spec
from trailcheck.scorers.score import Score, ratio
from trailcheck.trace import Trace


@dataclass(frozen=True, slots=True)
class Matching:
    """How many expected tools were matched, and which expected and called ones were not."""

    matched: int
    missing: tuple[str, ...]
    extra: tuple[str, ...]


Aligned = tuple[int | None, int | None]
"""One row of an alignment: (expected index, called index); ``None`` on the side left out."""


def in_order_alignment(expected: Sequence[str], called: Sequence[str]) -> list[Aligned]:
    """A longest common subsequence as rows in sequence order: a matched pair, an expected tool
    missing (``(i, None)``) or an extra call (``(None, j)``); ties resolved the same way every
    time (earliest first: a missing tool comes before the extra call beside it)."""
    rows, cols = len(expected), len(called)
    # lcs[i][j]: the LCS length of expected[i:] and called[j:].
    lcs = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            if expected[i] == called[j]:
                lcs[i][j] = lcs[i + 1][j + 1] + 1
            else:
                lcs[i][j] = max(lcs[i + 1][j], lcs[i][j + 1])
    aligned: list[Aligned] = []
    i = j = 0
    while i < rows and j < cols:
        if expected[i] == called[j]:
            aligned.append((i, j))
            i, j = i + 1, j + 1
        elif lcs[i + 1][j] >= lcs[i][j + 1]:
            aligned.append((i, None))
            i += 1
        else:
            aligned.append((None, j))
            j += 1
    aligned.extend((k, None) for k in range(i, rows))
    aligned.extend((None, k) for k in range(j, cols))
    return aligned


def in_order_matching(expected: Sequence[str], called: Sequence[str]) -> Matching:
    """The matching of :func:`in_order_alignment`."""
    aligned = in_order_alignment(expected, called)
    matched = sum(1 for e, c in aligned if e is not None and c is not None)
    missing = tuple(expected[e] for e, c in aligned if e is not None and c is None)
    extra = tuple(called[c] for e, c in aligned if e is None and c is not None)
    return Matching(matched, missing, extra)


def any_order_matching(expected: Sequence[str], called: Sequence[str]) -> Matching:
    """Multiset intersection: each call matches at most one expected occurrence."""
    missing = Counter(expected) - Counter(called)
    extra = Counter(called) - Counter(expected)
    return Matching(len(expected) - missing.total(), _take(expected, missing), _take(called, extra))


def _take(names: Sequence[str], surplus: Counter[str]) -> tuple[str, ...]:
    """The first ``surplus[name]`` occurrences of each name, in the order of ``names``."""
    left = Counter(surplus)
    taken: list[str] = []
    for name in names:
        if left[name] > 0:
            taken.append(name)
            left[name] -= 1
    return tuple(taken)


def _listing(label: str, names: Sequence[str]) -> str:
    return f"; {label} {', '.join(names)}" if names else ""


def _details(mode: ToolMatch, matching: Matching, expected: int, called: int) -> str:
    """``in_order recall 2/3=0.667; precision 2/3=0.667; missing ...; extra ...``."""
    return (
        f"{mode} recall {ratio(matching.matched, expected)};"
        f" precision {ratio(matching.matched, called)}"
        f"{_listing('missing', matching.missing)}{_listing('extra', matching.extra)}"
    )


@lru_cache(maxsize=256)
def _matched_all(mode: ToolMatch, count: int) -> str:
    """The details when every one of ``count`` expected tools was called, and nothing else."""
    return _details(mode, Matching(count, (), ()), count, count)


def trajectory_value(mode: ToolMatch, expected: Sequence[str], called: Sequence[str]) -> float:
    """The value of ``called`` against a non-empty ``expected`` in ``mode``."""
    if mode == "exact":
        return 1.0 if list(expected) == list(called) else 0.0
    match = in_order_matching if mode == "in_order" else any_order_matching
    return match(expected, called).matched / len(expected)


@dataclass(frozen=True)
class TrajectoryScorer:
    """Tools called against ``expected_tools`` in the case's ``tool_match`` mode.

    ``ignore_tools`` are left out of both sequences (e.g. ``think``); ``errored_calls`` says
    whether a call that errored counts as a call.
    """

    name: ClassVar[str] = "trajectory"
    # Reads the calls: unscorable on a trace that recorded none (no tool span, no message).
    reads_calls: ClassVar[bool] = True
    version: ClassVar[str] = "1"

    ignore_tools: tuple[str, ...] = ()
    errored_calls: ErroredCalls = "count"

    def to_spec(self) -> ScorerSpec:
        return scorer_to_spec(self)

    def score(self, trace: Trace, case: Case) -> Score | None:
        if case.expected_tools is None:
            return None
        calls = considered_calls(
            trace, ignore_tools=self.ignore_tools, errored_calls=self.errored_calls
        )
        called = [call.name for call in calls]
        expected = self.expected_names(case.expected_tools)
        evidence = tuple([call.span_id for call in calls])
        if not expected:
            reason = "no tool may be called; " + (
                f"called {len(called)}: {', '.join(called)}" if called else "none was"
            )
            return Score(self.name, 0.0 if called else 1.0, not called, 1.0, reason, evidence)
        mode = case.tool_match
        # One matching serves the value and the reason (exact mode reports in-order figures).
        shown: ToolMatch = "any_order" if mode == "any_order" else "in_order"
        match = any_order_matching if shown == "any_order" else in_order_matching
        # The common case, an agent that did what was expected, needs no matching at all.
        same = expected == called
        if same:
            value, details = 1.0, _matched_all(shown, len(expected))
        else:
            matching = match(expected, called)
            value = matching.matched / len(expected)
            details = _details(shown, matching, len(expected), len(called))
        if mode == "exact":
            value = 1.0 if same else 0.0
            verdict = "sequence equal" if same else "sequence differs"
            reason = f"exact {value:.0f}: {verdict}; {details}"
        else:
            reason = details
        threshold = case.tool_threshold
        return Score(self.name, value, value >= threshold, threshold, reason, evidence)

    def expected_names(self, expected_tools: list[str]) -> list[str]:
        """The expected tools less the ignored ones; ``ValueError`` when that would turn "call
        these" into "call nothing"."""
        if not self.ignore_tools:
            return expected_tools
        expected = [name for name in expected_tools if name not in self.ignore_tools]
        if expected_tools and not expected:
            raise ValueError(
                f"every expected tool is in ignore_tools ({', '.join(expected_tools)}):"
                " the trajectory cannot be checked"
            )
        return expected
