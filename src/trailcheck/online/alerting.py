"""Checking the file's alerts against the scores, and firing each at most once per window.

An alert watches one evaluator's failure rate over windows of its length, aligned to the epoch
(hourly windows are clock hours, UTC), counted by when the traces started. A window is checked
once it is **settled**: it has ended, the evaluator's delay has passed since, and no job of a
trace that started in it is still waiting or leased. A window that has not settled is not
judged on part of its traffic. A change rule compares the window with the one just before it.

A window whose rule fires is recorded in ``online_alerts`` with its notice; the key (alert,
evaluator version, window start) makes a window fire once however many workers check it and
however often. The notice names the window's failing traces (the first few, newest first, and
how many in all) and, for each, the cluster ``trailcheck clusters`` put it in, when it did.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
from sqlalchemy import Engine, select, update

from trailcheck.online.alerts import AlertSpec, Destination
from trailcheck.online.config import Evaluator, OnlineConfig
from trailcheck.online.delivery import DeliveryError, deliver_notice
from trailcheck.online.notices import (
    MAX_FAILING_TRACES,
    AlertNotice,
    AlertWindow,
    FailingTrace,
    notice_from_alert,
)
from trailcheck.online.rates import Alert, WindowCounts, evaluate_alert
from trailcheck.online.results import window_counts
from trailcheck.store import schema
from trailcheck.store.backends import insert_or_ignore, read_only
from trailcheck.telemetry.otlp_http import OtlpTarget

_log = logging.getLogger(__name__)

__all__ = [
    "FiredWindow",
    "Notifier",
    "check_alerts",
    "fired_windows",
    "settled_windows",
]


@dataclass(frozen=True, slots=True)
class FiredWindow:
    """An alert's rule firing over one window: what it found, and the traces behind it."""

    spec: AlertSpec
    evaluator: Evaluator
    start_ns: int
    end_ns: int
    counts: WindowCounts
    baseline: WindowCounts | None
    alert: Alert
    failing: tuple[FailingTrace, ...]


def settled_windows(
    engine: Engine, evaluator: Evaluator, window_ns: int, now_ns: int
) -> dict[int, WindowCounts]:
    """The evaluator's windows that are settled now (see the module), with their counts."""
    counts = window_counts(engine, evaluator.name, evaluator.version, window_ns=window_ns)
    open_windows = _windows_with_open_jobs(engine, evaluator, window_ns)
    delay_ns = evaluator.delay_seconds * 10**9
    return {
        start: in_window
        for start, in_window in counts.items()
        if start + window_ns + delay_ns <= now_ns and start not in open_windows
    }


def _windows_with_open_jobs(engine: Engine, evaluator: Evaluator, window_ns: int) -> set[int]:
    jobs = schema.online_jobs
    bucket = jobs.c.trace_ns // window_ns
    query = (
        select(bucket)
        .where(
            (jobs.c.name == evaluator.name)
            & (jobs.c.version == evaluator.version)
            & jobs.c.state.in_(("due", "leased"))
        )
        .distinct()
    )
    with read_only(engine) as connection:
        return {int(index) * window_ns for (index,) in connection.execute(query)}


def _already_fired(engine: Engine, spec: AlertSpec, evaluator: Evaluator) -> set[int]:
    table = schema.online_alerts
    query = select(table.c.window_start_ns).where(
        (table.c.alert == spec.name) & (table.c.version == evaluator.version)
    )
    with read_only(engine) as connection:
        return {int(start) for (start,) in connection.execute(query)}


def fired_windows(engine: Engine, config: OnlineConfig, now_ns: int) -> list[FiredWindow]:
    """Every settled window, not yet recorded as fired, whose alert fires now."""
    fired: list[FiredWindow] = []
    for spec in config.alerts:
        evaluator = config.evaluator(spec.evaluator)
        if evaluator.sampling == 0:
            continue
        window_ns = spec.window_seconds * 10**9
        settled = settled_windows(engine, evaluator, window_ns, now_ns)
        done = _already_fired(engine, spec, evaluator)
        for start, counts in sorted(settled.items()):
            if start in done:
                continue
            baseline = None
            if spec.kind == "failure_rate_change":
                baseline = settled.get(start - window_ns, WindowCounts(scored=0, passed=0))
            alert = evaluate_alert(spec.rule, counts, baseline)
            if alert is None:
                continue
            failing = failing_traces(engine, evaluator, start, start + window_ns)
            fired.append(
                FiredWindow(
                    spec,
                    evaluator,
                    start,
                    start + window_ns,
                    counts,
                    baseline,
                    alert,
                    failing,
                )
            )
    return fired


def failing_traces(
    engine: Engine,
    evaluator: Evaluator,
    start_ns: int,
    end_ns: int,
    *,
    limit: int = MAX_FAILING_TRACES,
) -> tuple[FailingTrace, ...]:
    """The first ``limit`` traces the evaluator failed in ``[start_ns, end_ns)``, newest first,
    each with its cluster (when one holds it)."""
    scores = schema.online_scores
    where = (
        (scores.c.name == evaluator.name)
        & (scores.c.version == evaluator.version)
        & (scores.c.trace_ns >= start_ns)
        & (scores.c.trace_ns < end_ns)
        & scores.c.passed.is_(False)
    )
    with read_only(engine) as connection:
        trace_ids = list(
            connection.execute(
                select(scores.c.trace_id)
                .where(where)
                .order_by(scores.c.trace_ns.desc(), scores.c.trace_id)
                .limit(limit)
            ).scalars()
        )
        clusters = _clusters_of(connection, trace_ids)
    return tuple(FailingTrace(trace_id=t, cluster_id=clusters.get(t)) for t in trace_ids)


def _clusters_of(connection: Any, trace_ids: Sequence[str]) -> dict[str, str]:
    members = schema.cluster_members
    rows = connection.execute(
        select(members.c.trace_id, members.c.cluster_id)
        .where(members.c.trace_id.in_(trace_ids))
        .order_by(members.c.cluster_id)
    )
    clusters: dict[str, str] = {}
    for trace_id, cluster_id in rows:
        clusters.setdefault(trace_id, cluster_id)
    return clusters


@dataclass(slots=True)
class Notifier:
    """Where notices go: ``write`` prints to the terminal, ``client`` posts to webhooks,
    ``otel`` is the OTLP/HTTP endpoint of ``otel`` destinations (none: such a delivery fails,
    saying so)."""

    write: Callable[[str], None]
    client: httpx.Client
    otel: OtlpTarget | None = None

    def deliver(
        self, notice: AlertNotice, destinations: Sequence[Destination]
    ) -> list[dict[str, Any]]:
        """Deliver to each destination; what became of each, a failure with its error (a
        delivery that failed is recorded, not retried: the alert stays in the store)."""
        outcomes: list[dict[str, Any]] = []
        for destination in destinations:
            shown = destination if isinstance(destination, str) else destination.webhook
            try:
                deliver_notice(
                    notice, destination, write=self.write, client=self.client, otel=self.otel
                )
            except DeliveryError as error:
                _log.warning("alert %s not delivered to %s: %s", notice.alert, shown, error)
                outcomes.append({"destination": shown, "delivered": False, "error": str(error)})
            else:
                outcomes.append({"destination": shown, "delivered": True})
        return outcomes


def check_alerts(
    engine: Engine, config: OnlineConfig, now_ns: int, notifier: Notifier | None
) -> list[AlertNotice]:
    """Fire every alert due now (:func:`fired_windows`): record each window's notice once and,
    when this call recorded it, deliver it. Returns the notices this call fired."""
    notices = []
    for fired in fired_windows(engine, config, now_ns):
        notice = notice_from_alert(
            fired.alert,
            spec=fired.spec,
            evaluator=fired.evaluator,
            window=AlertWindow(start_ns=fired.start_ns, end_ns=fired.end_ns),
            failing=fired.failing,
            fired_ns=now_ns,
        )
        row = {
            "alert": notice.alert,
            "name": notice.evaluator,
            "version": notice.evaluator_version,
            "window_start_ns": fired.start_ns,
            "window_end_ns": fired.end_ns,
            "fired_ns": now_ns,
            "notice": notice.model_dump_json(),
            "deliveries": "[]",
        }
        table = schema.online_alerts
        with engine.begin() as connection:
            recorded = insert_or_ignore(connection, table, [row])
        if not recorded:  # another worker fired this window first
            continue
        notices.append(notice)
        if notifier is None:
            continue
        outcomes = notifier.deliver(notice, fired.spec.notify)
        with engine.begin() as connection:
            connection.execute(
                update(table)
                .where(
                    (table.c.alert == notice.alert)
                    & (table.c.version == notice.evaluator_version)
                    & (table.c.window_start_ns == fired.start_ns)
                )
                .values(deliveries=orjson.dumps(outcomes).decode())
            )
    return notices
