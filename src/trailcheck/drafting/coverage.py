"""Coverage: which tools and which policy clauses have approved cases, and how many wait.

A case covers a tool it expects to be called (``expected_tools`` or ``expected_arguments``;
for a candidate, its proposals), and the policy clause its metadata names (a synthetic draft's
``policy_clause``). Each tool and clause gets a row counting the cases in each review status;
a clause's row also lists the scenario kinds its approved cases cover. Only approved cases run
as release tests, so a row with no approved case is a gap, whatever waits in review.

Rows come in the order the tools file and the policy give them; a tool or clause that cases
name but those do not declare follows, sorted, so that nothing counted is hidden.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from trailcheck.cases import REVIEW_STATUSES, Case, ReviewStatus
from trailcheck.drafting.clauses import PolicyClause
from trailcheck.loop import with_proposals
from trailcheck.loop.synthetic import SCENARIO_KEY, policy_clause

__all__ = ["Coverage", "CoverageRow", "coverage"]


@dataclass(slots=True)
class CoverageRow:
    """One tool or clause: the cases covering it by review status, the approved cases' scenario
    kinds (clauses only) and, for a clause, its text."""

    name: str
    text: str = ""
    counts: dict[ReviewStatus, int] = field(
        default_factory=lambda: dict.fromkeys(REVIEW_STATUSES, 0)
    )
    approved_scenarios: list[str] = field(default_factory=list)

    @property
    def approved(self) -> int:
        return self.counts["approved"]

    def add(self, case: Case) -> None:
        self.counts[case.review_status] += 1
        scenario = case.metadata.get(SCENARIO_KEY)
        if case.review_status != "approved" or not isinstance(scenario, str):
            return
        if scenario not in self.approved_scenarios:
            self.approved_scenarios.append(scenario)


@dataclass(frozen=True, slots=True)
class Coverage:
    """The tools' rows and the clauses' rows."""

    tools: tuple[CoverageRow, ...]
    clauses: tuple[CoverageRow, ...]

    @property
    def gaps(self) -> list[str]:
        """The tools and clauses no approved case covers, as ``tool X`` / ``clause Y``."""
        return [f"tool {row.name}" for row in self.tools if not row.approved] + [
            f"clause {row.name}" for row in self.clauses if not row.approved
        ]


def _tools_of(case: Case) -> list[str]:
    adopted = with_proposals(case)
    names = list(adopted.expected_tools or [])
    names += [expected.tool for expected in adopted.expected_arguments]
    return list(dict.fromkeys(names))


def _row(rows: dict[str, CoverageRow], name: str, text: str = "") -> CoverageRow:
    row = rows.get(name)
    if row is None:
        row = rows[name] = CoverageRow(name, text)
    return row


def _ordered(rows: dict[str, CoverageRow], declared: int) -> tuple[CoverageRow, ...]:
    listed = list(rows.values())
    return (*listed[:declared], *sorted(listed[declared:], key=lambda row: row.name))


def coverage(
    cases: Iterable[Case],
    *,
    tools: Sequence[str] = (),
    clauses: Sequence[PolicyClause] = (),
) -> Coverage:
    """The coverage of ``tools`` and ``clauses`` by ``cases`` (see the module)."""
    tool_rows = {name: CoverageRow(name) for name in tools}
    clause_rows = {clause.id: CoverageRow(clause.id, clause.text) for clause in clauses}
    for case in cases:
        for name in _tools_of(case):
            _row(tool_rows, name).add(case)
        clause = policy_clause(case)
        if clause is not None:
            _row(clause_rows, *clause).add(case)
    return Coverage(_ordered(tool_rows, len(tools)), _ordered(clause_rows, len(clauses)))
