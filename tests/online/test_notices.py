"""Alert notices: built from a fired alert with the numbers behind it, the window in nanoseconds
and ISO text, the failing traces capped, and JSON that reads back as the same notice."""

from __future__ import annotations

import orjson
import pytest
from pydantic import ValidationError

from tests.online.notice_examples import (
    ABOVE,
    EVALUATOR,
    FAILING,
    FIRED_NS,
    WINDOW,
    above_notice,
    change_notice,
)
from trailcheck.errors import UsageError
from trailcheck.online import (
    MAX_FAILING_TRACES,
    AlertNotice,
    AlertWindow,
    BaselineCounts,
    Evaluator,
    FailingTrace,
    WindowCounts,
    evaluate_alert,
    notice_from_alert,
)


def test_a_notice_carries_the_alert_the_window_and_the_interval() -> None:
    notice = above_notice()
    assert (notice.alert, notice.evaluator, notice.rule) == (
        "refunds-failing",
        "refund-policy",
        "failure_rate_above",
    )
    assert notice.evaluator_version == EVALUATOR.version
    assert (notice.scored, notice.failed, notice.failure_rate) == (200, 80, 0.4)
    assert notice.interval == pytest.approx((0.3346, 0.4692), abs=1e-4)
    assert (notice.level, notice.method) == (0.95, "wilson")
    assert notice.baseline is None
    assert notice.reason.endswith("lower bound 0.335 > threshold 0.200")
    assert notice.failing_traces == FAILING
    assert notice.fired_ns == FIRED_NS


def test_a_change_notice_carries_the_baseline_and_the_test() -> None:
    notice = change_notice()
    assert notice.rule == "failure_rate_change"
    assert (notice.scored, notice.failed) == (10, 3)
    assert notice.baseline is not None
    assert notice.baseline.model_dump(exclude={"p_value"}) == {
        "scored": 200,
        "failed": 0,
        "failure_rate": 0.0,
        "test": "fisher",
    }
    assert notice.baseline.p_value == pytest.approx(7.887e-05, rel=1e-3)
    assert "(Fisher exact) < alpha 0.01" in notice.reason


def test_the_json_shows_the_window_as_iso_text_too_and_reads_back() -> None:
    notice = above_notice()
    data = orjson.loads(notice.model_dump_json())
    assert data["window"] == {
        "start_ns": WINDOW.start_ns,
        "end_ns": WINDOW.end_ns,
        "start": "2026-06-19T13:00:00Z",
        "end": "2026-06-19T14:00:00Z",
    }
    assert data["interval"] == list(notice.interval)
    assert data["failing_traces"][1] == {"trace_id": "t-2", "cluster_id": None}
    assert AlertNotice.model_validate_json(notice.model_dump_json()) == notice
    assert AlertNotice.model_validate_json(change_notice().model_dump_json()) == change_notice()


def test_a_window_in_iso_text_keeps_its_microseconds() -> None:
    window = AlertWindow(start_ns=1_500, end_ns=2_000_001_000)
    assert (window.start, window.end) == (
        "1970-01-01T00:00:00.000001Z",
        "1970-01-01T00:00:02.000001Z",
    )
    with pytest.raises(ValidationError, match="a window ends after it starts"):
        AlertWindow(start_ns=5, end_ns=5)


def test_the_failing_traces_are_capped_and_failed_is_their_total() -> None:
    many = [FailingTrace(trace_id=f"t-{n}") for n in range(80)]
    notice = above_notice(many)
    assert notice.failing_traces == many[:MAX_FAILING_TRACES]
    assert notice.failed == 80


def test_a_notice_is_for_the_evaluator_its_alert_watches() -> None:
    alert = evaluate_alert(ABOVE.rule, WindowCounts(scored=200, passed=120))
    assert alert is not None
    other = Evaluator(name="other", rule="tool_call_loop")
    with pytest.raises(UsageError, match="watches evaluator 'refund-policy', not 'other'"):
        notice_from_alert(
            alert, spec=ABOVE, evaluator=other, window=WINDOW, failing=[], fired_ns=FIRED_NS
        )


def test_a_notice_refuses_what_no_alert_could_say() -> None:
    data = above_notice().model_dump()
    with pytest.raises(ValidationError):
        AlertNotice.model_validate({**data, "scored": 0})
    with pytest.raises(ValidationError):
        AlertNotice.model_validate({**data, "colour": "red"})
    with pytest.raises(ValidationError):
        BaselineCounts(scored=1, failed=0, failure_rate=0.0, p_value=0.5, test="t")  # type: ignore[arg-type]
