"""Reports to render: the demo shop's v1 and v2 runs (real runs, k = 4), the conversation demo's
(simulated users, k = 2), and a hand-made report with every trial status, an interruption and
hostile text, for what the demos never produce."""

from __future__ import annotations

import pytest

from trailcheck.demo.conversation.showcase import run_conversation_demo
from trailcheck.demo.support import prompt_only_shop, support_dataset, v1_agent, v2_agent
from trailcheck.run.compare import compare_outcomes
from trailcheck.run.plan import RunOptions
from trailcheck.run.results import (
    CallSummary,
    CaseResult,
    RunReport,
    TrialError,
    TrialResult,
)
from trailcheck.run.runner import run
from trailcheck.run.stats import summarize_outcomes
from trailcheck.run.status import TrialStatus
from trailcheck.scorers import Attribution, Score, ScorerFailure

HOSTILE_OUTPUT = '<script>document.title="owned"</script><img src=x onerror=alert(1)>'


@pytest.fixture(scope="session")
def v1_report() -> RunReport:
    return run(support_dataset(), v1_agent, prompt_only_shop, options=RunOptions(k=4)).report


@pytest.fixture(scope="session")
def v2_report(v1_report: RunReport) -> RunReport:
    return run(
        support_dataset(), v2_agent, prompt_only_shop, options=RunOptions(k=4), baseline=v1_report
    ).report


@pytest.fixture(scope="session")
def conversation_reports() -> tuple[RunReport, RunReport]:
    """The conversation demo's v1 and v2 runs (v1's simulated users replayed to v2), k = 2."""
    v1, v2 = (result.report for _, result in run_conversation_demo(k=2))
    return v1, v2


def _trial(case_id: str, attempt: int, status: TrialStatus, **extra: object) -> TrialResult:
    return TrialResult.model_validate(
        {
            "case_id": case_id,
            "attempt": attempt,
            "status": status,
            "reason": extra.pop("reason", status),
            "duration_ms": 12.5,
            **extra,
        }
    )


def _failed_score(reason: str) -> Score:
    return Score(scorer="arguments", value=0.5, passed=False, threshold=1.0, reason=reason)


def _calls(date: str, *, error: str | None = None) -> list[CallSummary]:
    return [
        CallSummary(
            span_id="a" * 16,
            name="lookup_order",
            arguments={"order_id": "A-1"},
            succeeded=error is None,
            error=error,
            duration_ms=2.0,
        ),
        CallSummary(
            span_id="b" * 16,
            name="reschedule_delivery",
            arguments={"order_id": "A-1", "new_date": date},
            succeeded=True,
            duration_ms=4.0,
        ),
        CallSummary(
            span_id="c" * 16,
            name="issue_refund",
            arguments={"order_id": "A-1"},
            succeeded=True,
            duration_ms=None,
        ),
    ]


@pytest.fixture(scope="session")
def mixed_report() -> RunReport:
    """Every status once or more, a partial run, a ``<script>`` answer, markup in an id."""
    expected = [
        {
            "tool": "reschedule_delivery",
            "arguments": {
                "order_id": {"$compare": "exact", "value": "A-1"},
                "new_date": {"$compare": "date", "value": "2026-06-19"},
            },
        }
    ]
    date_reason = "arguments 1/2=0.500; reschedule_delivery[0].new_date: expected 2026-06-19"
    cases = [
        CaseResult(
            id="reschedule",
            split="regression",
            review_status="approved",
            failure_modes=["wrong_date"],
            expected_tools=["lookup_order", "reschedule_delivery"],
            expected_arguments=expected,
            trials=[
                _trial("reschedule", 1, "passed", calls=_calls("2026-06-19")),
                _trial(
                    "reschedule",
                    2,
                    "failed",
                    scores=[_failed_score(date_reason)],
                    calls=_calls("2026-06-17"),
                    final_output=HOSTILE_OUTPUT,
                    attribution=Attribution(
                        span_id="a" * 16,
                        step=2,
                        name="lookup_order",
                        category="tool_returned_wrong_data",
                        evidence=f"lookup_order returned {HOSTILE_OUTPUT}",
                        symptom_span_id="b" * 16,
                    ),
                ),
                _trial(
                    "reschedule",
                    3,
                    "timeout",
                    reason="timed out after 5 s",
                    error=TrialError(type="TimeoutError", message="", traceback="tb"),
                ),
            ],
        ),
        CaseResult(
            id="[bold]markup[/bold]",
            split="holdout",
            review_status="approved",
            trials=[
                _trial(
                    "[bold]markup[/bold]",
                    1,
                    "crashed",
                    reason="KeyError: 'order'",
                    error=TrialError(
                        type="KeyError", message="'order'", traceback="Traceback: KeyError"
                    ),
                ),
                _trial(
                    "[bold]markup[/bold]",
                    2,
                    "unscorable",
                    scorer_failures=[
                        ScorerFailure(
                            scorer="judge",
                            error_type="ValueError",
                            message="bad verdict",
                            traceback="tb",
                        )
                    ],
                ),
                _trial(
                    "[bold]markup[/bold]",
                    3,
                    "infra_error",
                    reason="APIConnectionError: refused",
                    calls=_calls("x", error="503"),
                    error=TrialError(type="APIConnectionError", message="refused", traceback="tb"),
                ),
            ],
        ),
    ]
    outcomes = {case.id: [t.status for t in case.trials] for case in cases}
    return RunReport(
        partial=True,
        manifest={
            "dataset": {"version": "mixed@1"},
            "agent": {"reference": "pkg:make"},
            "interrupted_trials": 2,
        },
        summary=summarize_outcomes(outcomes, k=3),
        review_statuses={"approved": 2},
        cases=cases,
        comparison=compare_outcomes(outcomes, {"reschedule": ["passed"] * 3}),
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "browser: renders in headless Chromium (Debian's chromium + Playwright); skipped when"
        " absent unless TRAILCHECK_REQUIRE_BROWSER=1",
    )
