"""The report's pass rate per kind of awkward tool result: over the scored trials of the cases
whose faults return one, a case counted under each kind it returns."""

from __future__ import annotations

from trailcheck.cases import AwkwardKind
from trailcheck.run.results import CaseResult, TrialResult, awkward_pass_rates
from trailcheck.run.status import TrialStatus


def _case(case_id: str, kinds: list[AwkwardKind], *statuses: TrialStatus) -> CaseResult:
    trials = [
        TrialResult(case_id=case_id, attempt=n, status=s, reason="", duration_ms=1.0)
        for n, s in enumerate(statuses, start=1)
    ]
    return CaseResult(
        id=case_id,
        split="regression",
        review_status="approved",
        awkward_results=kinds,
        trials=trials,
    )


def test_each_kind_counts_the_scored_trials_of_its_cases() -> None:
    cases = [
        _case("pages", ["paginated"], "failed", "failed", "passed"),
        _case("pages-and-empty", ["paginated", "empty_list"], "passed", "infra_error"),
        _case("plain", [], "failed", "failed"),
        _case("error-words", ["reads_like_error"], "passed", "passed"),
    ]
    rates = awkward_pass_rates(cases)
    # In the order of the kinds; a kind no case returns is absent, not 0/0.
    assert list(rates) == ["empty_list", "paginated", "reads_like_error"]
    assert [(r.count, r.total) for r in rates.values()] == [(1, 1), (2, 4), (2, 2)]
    paginated = rates["paginated"]
    assert paginated.value == 0.5
    assert paginated.interval.low is not None
    assert paginated.interval.high is not None
    assert paginated.interval.low < 0.5 < paginated.interval.high
    assert awkward_pass_rates([_case("plain", [], "passed")]) == {}
