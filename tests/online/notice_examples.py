"""Alerts that fired, and their notices, shared by the notice and delivery tests."""

from __future__ import annotations

from trailcheck.online import (
    AlertNotice,
    AlertWindow,
    Evaluator,
    FailingTrace,
    FailureRateAboveAlert,
    FailureRateChangeAlert,
    WindowCounts,
    evaluate_alert,
    notice_from_alert,
)

EVALUATOR = Evaluator(name="refund-policy", rule="refund_without_identity_check")
# 2026-06-19 13:00 to 14:00 UTC.
WINDOW = AlertWindow(start_ns=1_781_874_000_000_000_000, end_ns=1_781_877_600_000_000_000)
FIRED_NS = 1_781_877_600_500_000_000
ABOVE = FailureRateAboveAlert(name="refunds-failing", evaluator="refund-policy", threshold=0.2)
CHANGE = FailureRateChangeAlert(name="refunds-worse", evaluator="refund-policy")
FAILING = [
    FailingTrace(trace_id="4bf92f3577b34da6a3ce929d0e0e4736", cluster_id="c-refund"),
    FailingTrace(trace_id="t-2"),
    FailingTrace(trace_id="t-3", cluster_id="c-refund"),
]


def above_notice(failing: list[FailingTrace] = FAILING) -> AlertNotice:
    """80 failures in 200 traces, above 0.2 with its interval."""
    alert = evaluate_alert(ABOVE.rule, WindowCounts(scored=200, passed=120))
    assert alert is not None
    return notice_from_alert(
        alert, spec=ABOVE, evaluator=EVALUATOR, window=WINDOW, failing=failing, fired_ns=FIRED_NS
    )


def change_notice() -> AlertNotice:
    """3 failures in 10 after none in 200: a change only Fisher's exact test can judge."""
    alert = evaluate_alert(
        CHANGE.rule, WindowCounts(scored=10, passed=7), WindowCounts(scored=200, passed=200)
    )
    assert alert is not None
    return notice_from_alert(
        alert, spec=CHANGE, evaluator=EVALUATOR, window=WINDOW, failing=FAILING, fired_ns=FIRED_NS
    )
