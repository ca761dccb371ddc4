"""Each tool's success in a candidate run against its baseline: counts, rates with their Wilson
intervals, the difference; and RunReport.against, which the runner, ``report --compare`` and the
UI's runs page use."""

from __future__ import annotations

import pytest

from trailcheck.intervals import wilson_interval
from trailcheck.run.compare import compare_outcomes
from trailcheck.run.results import CallSummary, CaseResult, RunReport, TrialResult
from trailcheck.run.stats import summarize_outcomes
from trailcheck.run.tool_success import compare_tool_success


def test_each_tool_in_either_run_with_its_rate_interval_and_change() -> None:
    candidate = [("search", True)] * 9 + [("search", False)] + [("refund", False)] * 2
    baseline = [("search", True)] * 5 + [("search", False)] * 5 + [("lookup", True)]
    lookup, refund, search = compare_tool_success(candidate, baseline)
    assert (search.tool, search.baseline.calls, search.baseline.succeeded) == ("search", 10, 5)
    assert (search.candidate.calls, search.candidate.succeeded) == (10, 9)
    assert search.delta == pytest.approx(0.4)
    expected = wilson_interval(9, 10)
    assert search.candidate.interval == (expected.low, expected.high)
    # Called in one run only: no rate on the other side, no change.
    assert (lookup.candidate.calls, lookup.candidate.success_rate, lookup.delta) == (0, None, None)
    assert lookup.candidate.interval == (None, None)
    assert (refund.baseline.calls, refund.candidate.success_rate) == (0, 0.0)


def _report(calls: list[tuple[str, bool]], status: str) -> RunReport:
    trial = TrialResult.model_validate(
        {
            "case_id": "c1",
            "attempt": 1,
            "status": status,
            "reason": status,
            "duration_ms": 1.0,
            "calls": [
                CallSummary(
                    span_id=f"s{index}",
                    name=name,
                    arguments={},
                    succeeded=ok,
                    error=None if ok else "boom",
                )
                for index, (name, ok) in enumerate(calls)
            ],
        }
    )
    outcomes = {"c1": [trial.status]}
    return RunReport(
        manifest={},
        summary=summarize_outcomes(outcomes, k=1),
        review_statuses={"approved": 1},
        cases=[CaseResult(id="c1", split="regression", review_status="approved", trials=[trial])],
    )


def test_a_report_against_its_baseline_compares_tasks_and_tools() -> None:
    baseline = _report([("search", True), ("refund", False)], "failed")
    candidate = _report([("search", True), ("refund", True)], "passed")
    comparison = candidate.against(baseline, seed=3)
    expected = compare_outcomes(candidate.outcomes(), baseline.outcomes(), seed=3)
    assert comparison.model_copy(update={"tools": []}) == expected
    assert [
        (t.tool, t.baseline.success_rate, t.candidate.success_rate) for t in comparison.tools
    ] == [
        ("refund", 0.0, 1.0),
        ("search", 1.0, 1.0),
    ]
    # The report file keeps them: a report read back compares the same.
    with_comparison = candidate.model_copy(update={"comparison": comparison})
    assert RunReport.model_validate_json(with_comparison.model_dump_json()) == with_comparison
