"""The alerts that fired, read back: newest first, filtered, and a damaged notice still listed
with the reason it could not be read (both backends)."""

from __future__ import annotations

from collections.abc import Iterator

import orjson
import pytest
from sqlalchemy import insert

from trailcheck.online.alert_log import FailingTraceRef, fired_alerts
from trailcheck.store import Store, schema

HOUR = 3600 * 10**9


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with Store.open(store_url) as opened:
        yield opened


def fire(store: Store, alert: str, name: str, hour: int, notice: str) -> None:
    with store.engine.begin() as connection:
        connection.execute(
            insert(schema.online_alerts).values(
                alert=alert,
                name=name,
                version="abc123def456",
                window_start_ns=hour * HOUR,
                window_end_ns=(hour + 1) * HOUR,
                fired_ns=(hour + 1) * HOUR + 1,
                notice=notice,
                deliveries="[]",
            )
        )


def test_alerts_newest_first_with_their_reason_and_traces(store: Store) -> None:
    notice = {
        "reason": "failure rate 3/4=0.750",
        "failing_traces": [{"trace_id": "t-1", "cluster_id": "cl-1"}, {"trace_id": "t-2"}],
        "total_failing": 5,
        "rule": {"kind": "failure_rate_above"},  # a field this reader does not need
    }
    fire(store, "above", "refunds", 1, orjson.dumps(notice).decode())
    fire(store, "change", "refunds", 3, orjson.dumps({"reason": "up 0.5"}).decode())
    fire(store, "above", "other", 2, orjson.dumps({"reason": "other"}).decode())

    fired = fired_alerts(store.engine)
    assert [(a.alert, a.name, a.window_start_ns) for a in fired] == [
        ("change", "refunds", 3 * HOUR),
        ("above", "other", 2 * HOUR),
        ("above", "refunds", 1 * HOUR),
    ]
    oldest = fired[-1]
    assert oldest.reason == "failure rate 3/4=0.750"
    assert oldest.failing_traces == [
        FailingTraceRef(trace_id="t-1", cluster_id="cl-1"),
        FailingTraceRef(trace_id="t-2"),
    ]
    assert oldest.total_failing == 5
    assert oldest.problem is None
    assert fired[0].total_failing == 0  # no traces named, no total: none counted
    assert [a.alert for a in fired_alerts(store.engine, name="refunds")] == ["change", "above"]
    # Windows that ended after since: the one ending at 3h is out, 4h is in.
    assert [a.name for a in fired_alerts(store.engine, since_ns=3 * HOUR)] == ["refunds"]
    assert len(fired_alerts(store.engine, limit=2)) == 2


@pytest.mark.parametrize(
    ("notice", "problem"),
    [
        ("{not json", "unreadable notice: notice: Invalid JSON"),
        ('{"failing_traces": []}', "unreadable notice: reason: Field required"),
        ('{"reason": "r", "failing_traces": [{"cluster_id": "c"}]}', "failing_traces.0.trace_id"),
    ],
)
def test_a_damaged_notice_is_listed_with_why_it_could_not_be_read(
    store: Store, notice: str, problem: str
) -> None:
    fire(store, "above", "refunds", 1, notice)
    [alert] = fired_alerts(store.engine)
    assert alert.problem is not None
    assert problem in alert.problem
    assert (alert.alert, alert.reason, alert.failing_traces) == ("above", "", [])
