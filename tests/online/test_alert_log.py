"""The alerts that fired, read back: newest first, filtered, and a damaged notice still listed
with the reason it could not be read (both backends)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import insert

from tests.online.notice_examples import above_notice
from trailcheck.online import FailingTrace
from trailcheck.online.alert_log import fired_alerts, fired_notices
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


def notice(reason: str, failing: list[FailingTrace], failed: int) -> str:
    """A notice as the worker writes one, with this reason, these traces named of ``failed``."""
    return (
        above_notice()
        .model_copy(update={"reason": reason, "failing_traces": failing, "failed": failed})
        .model_dump_json()
    )


def test_alerts_newest_first_with_their_reason_and_traces(store: Store) -> None:
    named = [FailingTrace(trace_id="t-1", cluster_id="cl-1"), FailingTrace(trace_id="t-2")]
    fire(store, "above", "refunds", 1, notice("failure rate 3/4=0.750", named, 5))
    fire(store, "change", "refunds", 3, notice("up 0.5", [], 0))
    fire(store, "above", "other", 2, notice("other", [], 0))

    fired = fired_alerts(store.engine)
    assert [(a.alert, a.name, a.window_start_ns) for a in fired] == [
        ("change", "refunds", 3 * HOUR),
        ("above", "other", 2 * HOUR),
        ("above", "refunds", 1 * HOUR),
    ]
    oldest = fired[-1]
    assert oldest.reason == "failure rate 3/4=0.750"
    assert oldest.failing_traces == named
    assert oldest.total_failing == 5
    assert oldest.problem is None
    assert fired[0].total_failing == 0
    assert [a.alert for a in fired_alerts(store.engine, name="refunds")] == ["change", "above"]
    # Windows that ended after since: the one ending at 3h is out, 4h is in.
    assert [a.name for a in fired_alerts(store.engine, since_ns=3 * HOUR)] == ["refunds"]
    assert len(fired_alerts(store.engine, limit=2)) == 2
    assert [n.reason for n in fired_notices(store.engine)] == [
        "failure rate 3/4=0.750",
        "other",
        "up 0.5",
    ]


@pytest.mark.parametrize(
    ("notice", "problem"),
    [
        ("{not json", "unreadable notice: notice: Invalid JSON"),
        ('{"failing_traces": []}', "Field required"),
        (
            above_notice().model_dump_json().replace('"trace_id"', '"trace"', 1),
            "failing_traces.0.trace_id",
        ),
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
