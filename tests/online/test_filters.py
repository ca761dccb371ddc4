"""An evaluator's filter: each criterion admits the traces it names, and all combine with and."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from trailcheck.online import EvaluatorFilter
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

# TraceBuilder's root span starts at 1.7e18 ns after the epoch.
STARTED = datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)


def support_trace() -> Trace:
    return (
        TraceBuilder("t-1", input="refund my order")
        .tool("lookup_order", {"order_id": "A-1"}, result={"total": 129})
        .tool("issue_refund", {"order_id": "A-1"}, error="identity not verified")
        .metadata(
            agent_name="support",
            tier="gold",
            region=3,
            vip=True,
            **{"otel.resource": {"service.name": "support-api"}},
        )
        .output("Your refund has been issued.")
        .build()
    )


def test_no_criterion_admits_every_trace() -> None:
    assert EvaluatorFilter().admits(support_trace())
    assert EvaluatorFilter().admits(TraceBuilder("empty").build())


@pytest.mark.parametrize(
    ("criteria", "admitted"),
    [
        ({"service": "support-api"}, True),
        ({"service": "billing-api"}, False),
        ({"agent": "support"}, True),
        ({"agent": "triage"}, False),
        ({"tool": "issue_refund"}, True),  # called, though it failed
        ({"tool": "verify_identity"}, False),
        ({"metadata": {"tier": "gold"}}, True),
        ({"metadata": {"region": 3.0}}, True),  # 3 is 3.0 as JSON
        ({"metadata": {"vip": 1}}, False),  # true is not 1
        ({"metadata": {"tier": "silver"}}, False),
        ({"metadata": {"absent": None}}, False),
        ({"metadata_keys": ["tier", "region"]}, True),
        ({"metadata_keys": ["tier", "customer_id"]}, False),
        ({"since": STARTED}, True),
        ({"since": STARTED + timedelta(microseconds=1)}, False),
        ({"until": STARTED}, False),  # exclusive
        ({"until": STARTED + timedelta(microseconds=1)}, True),
        ({"service": "support-api", "agent": "support", "tool": "lookup_order"}, True),
        ({"service": "support-api", "agent": "triage"}, False),
    ],
)
def test_each_criterion(criteria: dict[str, object], admitted: bool) -> None:
    assert EvaluatorFilter.model_validate(criteria).admits(support_trace()) is admitted


def test_a_label_is_one_of_the_traces_findings_given_by_the_caller() -> None:
    refunds = EvaluatorFilter(label="refund_without_identity_check")
    assert refunds.admits(support_trace(), labels={"refund_without_identity_check"})
    assert not refunds.admits(support_trace(), labels={"tool_call_loop"})
    assert not refunds.admits(support_trace())


def test_the_start_a_caller_knows_better_wins_and_an_unknown_start_is_outside_a_window() -> None:
    june = EvaluatorFilter.model_validate({"since": "2026-06-01", "until": "2026-07-01"})
    in_june = int(datetime(2026, 6, 19, tzinfo=UTC).timestamp()) * 1_000_000_000
    assert not june.admits(support_trace())
    assert june.admits(support_trace(), started_ns=in_june)
    no_spans = Trace(trace_id="bare")
    assert not june.admits(no_spans)
    assert june.admits(no_spans, started_ns=in_june)
    assert EvaluatorFilter(tool=None).admits(no_spans)


def test_times_are_read_as_iso_text_and_kept_in_utc() -> None:
    window = EvaluatorFilter.model_validate(
        {"since": "2026-06-01T02:00:00+02:00", "until": "2026-06-02T00:00:00"}
    )
    assert window.since == datetime(2026, 6, 1, tzinfo=UTC)
    assert window.until == datetime(2026, 6, 2, tzinfo=UTC)  # naive is UTC
    with pytest.raises(ValidationError, match="ISO 8601"):
        EvaluatorFilter.model_validate({"since": 1780000000})
    with pytest.raises(ValidationError, match="must come after"):
        EvaluatorFilter.model_validate({"since": "2026-06-02", "until": "2026-06-01"})
