"""Alerts checked by the worker on SQLite and PostgreSQL: each fires over settled windows only,
once per window however often and by however many workers it is checked, names the window's
failing traces with their clusters, reaches its webhook, and a delivery that fails is recorded
with its error while the alert is kept."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import insert, select

from tests.online.test_delivery import running_hook
from tests.waiting import GUARD_S
from trailcheck.demo.online import DEMO_ONLINE_FILE, TrafficShape, support_traffic
from trailcheck.online import parse_online_config
from trailcheck.online.alert_log import fired_notices
from trailcheck.online.alerting import Notifier, fired_windows
from trailcheck.online.notices import AlertNotice
from trailcheck.online.worker import OnlineWorker
from trailcheck.store import Store, schema

HOUR = 3_600 * 10**9
SHAPE = TrafficShape(traces=1_600)
# The rule evaluator and its two alerts of the demo file, without the judge.
RULE_ONLY = DEMO_ONLINE_FILE.replace(
    "  - name: task-completion\n    judge: task_completion\n    sampling: 0.05\n", ""
)


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with Store.open(store_url) as opened:
        opened.ingest(support_traffic(SHAPE))
        yield opened


def hours_after_start(notices: list[AlertNotice]) -> list[tuple[str, int]]:
    return [(n.alert, (n.window.start_ns - SHAPE.start_ns) // HOUR) for n in notices]


def test_alerts_fire_on_the_windows_after_the_regression_once_however_often_checked(
    store: Store,
) -> None:
    config = parse_online_config(RULE_ONLY)
    written: list[str] = []
    with httpx.Client() as client:
        notifier = Notifier(write=written.append, client=client)
        first = OnlineWorker(store, config, notifier=notifier).run_once()
        again = OnlineWorker(store, config, notifier=notifier).run_once()

    fired = hours_after_start(fired_notices(store.engine))
    assert ("refund-identity-jump", 4) in fired  # the hour the regression shipped
    assert all(hour >= 4 for _, hour in fired)
    assert {hour for alert, hour in fired if alert == "refund-identity-high"} == {4, 5, 6, 7}
    assert first.alerts == len(fired)
    assert again.alerts == 0
    assert len(written) == len(fired)  # each printed once
    assert all("failing traces" in text for text in written)


def scored_without_alerts(store: Store) -> None:
    """Every trace scored by the file's evaluator, with no alert checked yet."""
    bare = parse_online_config(RULE_ONLY.split("alerts:")[0])
    assert OnlineWorker(store, bare).run_once().alerts == 0


def test_a_window_is_judged_only_once_it_has_ended(store: Store) -> None:
    scored_without_alerts(store)
    config = parse_online_config(RULE_ONLY)

    at_half_past_six = SHAPE.start_ns + 6 * HOUR + HOUR // 2
    fired = fired_windows(store.engine, config, at_half_past_six)

    starts = {(f.spec.name, (f.start_ns - SHAPE.start_ns) // HOUR) for f in fired}
    assert starts == {
        ("refund-identity-jump", 4),
        ("refund-identity-high", 4),
        ("refund-identity-high", 5),
    }


def failing_in(store: Store, start_ns: int, end_ns: int) -> set[str]:
    table = schema.online_scores
    with store.engine.connect() as connection:
        return set(
            connection.execute(
                select(table.c.trace_id).where(
                    (table.c.passed.is_(False))
                    & (table.c.trace_ns >= start_ns)
                    & (table.c.trace_ns < end_ns)
                )
            ).scalars()
        )


def test_a_notice_names_the_windows_failing_traces_with_their_clusters(store: Store) -> None:
    scored_without_alerts(store)
    jump_hour = SHAPE.start_ns + 4 * HOUR
    failing = failing_in(store, jump_hour, jump_hour + HOUR)
    newest = max(failing, key=lambda trace_id: _started(store, trace_id))
    # `trailcheck clusters` put the newest failing trace of the jump's hour in a cluster.
    with store.engine.begin() as connection:
        connection.execute(
            insert(schema.clusters),
            {
                "cluster_id": "c-refunds",
                "label": "refund_without_identity_check",
                "signature": "issue_refund without verify_identity",
                "representative_trace_id": newest,
                "first_seen_ns": jump_hour,
                "last_seen_ns": jump_hour,
            },
        )
        connection.execute(
            insert(schema.cluster_members), {"cluster_id": "c-refunds", "trace_id": newest}
        )

    assert OnlineWorker(store, parse_online_config(RULE_ONLY)).check_alerts()

    [jump] = fired_notices(store.engine, alert="refund-identity-jump")
    assert jump.failed == len(failing)
    assert len(jump.failing_traces) == min(20, len(failing))
    assert {t.trace_id for t in jump.failing_traces} <= failing
    first = jump.failing_traces[0]  # newest first
    assert (first.trace_id, first.cluster_id) == (newest, "c-refunds")
    assert all(t.cluster_id is None for t in jump.failing_traces[1:])


def _started(store: Store, trace_id: str) -> int:
    table = schema.online_scores
    with store.engine.connect() as connection:
        return int(
            connection.execute(
                select(table.c.trace_ns).where(table.c.trace_id == trace_id)
            ).scalar_one()
        )


@pytest.mark.live
def test_a_webhook_gets_each_notice_and_a_refusal_is_recorded_with_the_alert_kept(
    store: Store,
) -> None:
    with running_hook() as good, running_hook(status=500) as bad:
        text = (
            RULE_ONLY.replace(
                "    window: 1h\n  - name: refund-identity-jump",
                f"    window: 1h\n    notify: [{{webhook: '{good.url}'}}]\n"
                "  - name: refund-identity-jump",
            ).rstrip("\n")
            + f"\n    notify: [terminal, {{webhook: '{bad.url}'}}]\n"
        )
        config = parse_online_config(text)
        with httpx.Client(timeout=GUARD_S) as client:
            notifier = Notifier(write=lambda line: None, client=client)
            OnlineWorker(store, config, notifier=notifier).run_once()

    assert len(good.received) == 4  # refund-identity-high, hours 4 to 7
    bodies = [json.loads(body) for _, _, body in good.received]
    assert {body["alert"] for body in bodies} == {"refund-identity-high"}
    table = schema.online_alerts
    with store.engine.connect() as connection:
        rows = connection.execute(select(table.c.alert, table.c.deliveries)).all()
    jump = [json.loads(deliveries) for alert, deliveries in rows if alert == "refund-identity-jump"]
    assert len(jump) == 1
    terminal, webhook = jump[0]
    assert terminal == {"destination": "terminal", "delivered": True}
    assert webhook["delivered"] is False
    assert "500" in webhook["error"]
