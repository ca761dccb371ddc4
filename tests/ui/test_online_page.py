"""The online page and an evaluator's failing traces, through the UI's HTTP interface, over a
store the online worker scored (both backends), with alerts written as the worker writes them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from tests.online.notice_examples import above_notice
from tests.ui.markup import Texts
from tests.ui.seed import LOOPBACK_URL, fire_alert, moved
from trailcheck.online import Evaluator, FailingTrace, OnlineConfig
from trailcheck.online.worker import OnlineWorker
from trailcheck.store import Store, schema
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace
from trailcheck.ui import UiSettings, create_ui_app

HOUR: Final = 3600 * 10**9
MINUTE: Final = 60 * 10**9
HOSTILE_ID: Final = "t-online-2-0<script>alert(1)</script>"
HOSTILE_REASON: Final = 'rate up <script>document.title="owned"</script><img src=x onerror=1>'
POLICY: Final = Evaluator(name="refund-policy", rule="refund_without_identity_check")
# The same rule, due an hour after a trace arrives: its jobs wait, so the queue has a lag. Its
# name holds a "/", and sorts after the other's in any collation.
LATER: Final = Evaluator(name="waiting/refunds", rule="refund_without_identity_check", delay="1h")


def refund(trace_id: str, hour: int, *, verified: bool) -> Trace:
    builder = TraceBuilder(trace_id, input=f"Refund order {trace_id}")
    if verified:
        builder = builder.tool("verify_identity", {"customer": "c-1"}, result={"ok": True})
    built = builder.tool("issue_refund", {"order_id": trace_id}, result="ok").output("Done.")
    return moved(built.build(), hour * HOUR)


def traffic() -> list[Trace]:
    """Three hours of four refunds each (the builder starts at 2023-11-14 22:13:20 UTC); in
    hour h, h + 1 of them skip the identity check: 1/4, 2/4, 3/4 fail, 6 of 12 in all."""
    traces = []
    for hour in range(3):
        for index in range(4):
            trace_id = HOSTILE_ID if (hour, index) == (2, 0) else f"t-online-{hour}-{index}"
            traces.append(refund(trace_id, hour, verified=index > hour))
    return traces


@dataclass
class Online:
    client: TestClient
    store: Store


def _fire(store: Store, alert: str, hour: int, notice: bytes) -> None:
    """``alert`` fired on the ``hour``-th clock hour of the traffic."""
    start = TraceBuilder("x").build().spans[0].start_ns // HOUR * HOUR + hour * HOUR
    fire_alert(store, alert, POLICY, (start, start + HOUR), notice.decode())


@pytest.fixture
def online(store_url: str, tmp_path: Path) -> Iterator[Online]:
    with Store.open(store_url) as store:
        store.ingest(traffic())
        OnlineWorker(store, OnlineConfig(evaluators=[POLICY, LATER])).run_once()
        jobs = schema.online_jobs
        with store.engine.connect() as connection:
            first_due = connection.execute(
                select(func.min(jobs.c.due_ns)).where(jobs.c.name == LATER.name)
            ).scalar_one()
        now = first_due + 90 * MINUTE + 5 * 10**9  # the later jobs have waited 1h 30m 5s
        notice = above_notice().model_copy(
            update={
                "reason": HOSTILE_REASON,
                "failing_traces": [
                    FailingTrace(trace_id="t-online-2-1", cluster_id="cl-0007"),
                    FailingTrace(trace_id=HOSTILE_ID),
                ],
                "failed": 3,
            }
        )
        _fire(store, "refunds-failing", 2, notice.model_dump_json().encode())
        _fire(store, "refunds-worse", 1, b"{not json")
        settings = UiSettings(dataset=tmp_path / "candidates.yaml", page_size=4, clock=lambda: now)
        with TestClient(create_ui_app(store, settings), base_url=LOOPBACK_URL) as client:
            yield Online(client, store)


def _get(client: TestClient, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.text


def _charts(markup: str) -> list[str]:
    return re.findall(r'<svg[^>]*data-testid="rate-chart"[^>]*>.*?</svg>', markup, re.S)


def _polyline_points(chart: str) -> list[str]:
    found = re.search(r'<polyline points="([^"]*)"', chart)
    assert found is not None
    return found[1].split()


def test_each_evaluator_with_its_counts_interval_and_queue(online: Online) -> None:
    page = Texts(_get(online.client, "/online"))
    assert len(page.texts["evaluator-row"]) == 2
    # Name order: refund-policy, then waiting/refunds.
    assert page.texts["scored"] == ["12", "0"]
    assert page.texts["failed"] == ["6", "0"]
    assert page.texts["failure-rate"] == ["0.500", "-"]
    assert page.texts["interval"] == ["[0.254, 0.746]", "-"]  # Wilson, 6 of 12
    assert page.texts["waiting"] == ["0", "12"]
    assert page.texts["lag"] == ["-", "1h 30m"]
    assert page.texts["quarantined"] == ["0", "0"]
    assert page.scripts == 0


def test_the_chart_has_a_point_and_a_band_a_window(online: Online) -> None:
    markup = _get(online.client, "/online")
    [chart] = _charts(markup)  # the later evaluator has no scores, so no chart
    assert len(_polyline_points(chart)) == 3
    assert chart.count("<polygon ") == 3
    assert chart.count("<circle ") == 3
    assert 'aria-labelledby="rate-0-title rate-0-desc"' in chart
    assert '<title id="rate-0-title">refund-policy@' in chart
    assert "3 window(s) with scores, from 2023-11-14 22:00 to 2023-11-15 01:00" in chart
    assert "2023-11-14 23:00: 2/4 failed, rate 0.500 [0.150, 0.850]" in chart
    assert "No window holds a score." in markup
    # Two-hour windows (aligned to the epoch) hold hours 22-23 and 00.
    [wide] = _charts(_get(online.client, "/online?window=2h"))
    assert len(_polyline_points(wide)) == 2


def test_since_counts_only_the_traces_started_after_it(online: Online) -> None:
    page = Texts(_get(online.client, "/online?since=2023-11-14T23:00"))
    assert page.texts["scored"][0] == "8"
    assert page.texts["failed"][0] == "5"
    assert len(page.texts["alert-row"]) == 2  # both windows end after 23:00
    early = Texts(_get(online.client, "/online?since=2023-11-15T00:10"))
    assert early.texts["scored"][0] == "4"
    assert len(early.texts["alert-row"]) == 1
    [chart] = _charts(_get(online.client, "/online?since=2023-11-15T00:10"))
    assert len(_polyline_points(chart)) == 1


def test_a_bad_window_or_since_is_named_and_the_default_used(online: Online) -> None:
    markup = _get(online.client, "/online?window=soon&since=yesterday")
    assert "window: a duration is" in markup
    assert "since: a duration ago" in markup
    assert Texts(markup).texts["scored"][0] == "12"
    [chart] = _charts(markup)
    assert len(_polyline_points(chart)) == 3


def test_alerts_show_their_reason_traces_and_clusters_as_text(online: Online) -> None:
    markup = _get(online.client, "/online")
    page = Texts(markup)
    assert page.texts["alert-reason"][0] == HOSTILE_REASON
    assert page.texts["alert-reason"][1].startswith("unreadable notice: ")
    traces = page.texts["alert-traces"][0]
    assert traces == f"t-online-2-1 (cl-0007), {HOSTILE_ID} and 1 more"
    assert 'href="/traces/t-online-2-1"' in markup
    assert "<script>" not in markup
    assert "<img src=x" not in markup
    assert page.scripts == 0


def test_the_navigation_links_the_online_page(online: Online) -> None:
    markup = _get(online.client, "/traces")
    assert '<a href="/online">Online</a>' in markup
    assert '<a href="/online" class="here">Online</a>' in _get(online.client, "/online")


def _failing_rows(markup: str) -> list[tuple[str, str]]:
    rows = re.findall(r'<tr data-testid="failing-row"><td><a href="([^"]+)">([^<]+)</a>', markup)
    return [(href, text.replace("&lt;", "<").replace("&gt;", ">")) for href, text in rows]


def test_an_evaluator_links_its_failing_traces_newest_first_a_page_at_a_time(
    online: Online,
) -> None:
    overview = _get(online.client, "/online?window=1h")
    link = f"/online/refund-policy/{POLICY.version}?window=1h"
    assert f'href="{link}"' in overview
    first = _get(online.client, link)
    rows = _failing_rows(first)
    assert [text for _, text in rows] == [
        "t-online-2-2",
        "t-online-2-1",
        HOSTILE_ID,
        "t-online-1-1",
    ]
    assert rows[2][0] == "/traces/t-online-2-0%3Cscript%3Ealert%281%29%3C%2Fscript%3E"
    assert "<script>" not in first
    assert f"Failing traces of refund-policy@{POLICY.version}" in first
    assert "scored 12, failed 6, failure rate 0.500 [0.254, 0.746]" in first
    nxt = re.search(r'href="([^"]+)" data-testid="next-page"', first)
    assert nxt is not None
    second = _get(online.client, nxt[1].replace("&amp;", "&"))
    assert [text for _, text in _failing_rows(second)] == ["t-online-1-0", "t-online-0-0"]
    assert "next-page" not in second
    trace = _get(online.client, rows[2][0])  # the click-through reaches the trace page
    assert "issue_refund" in trace


def test_a_name_with_a_slash_and_an_unknown_evaluator(online: Online) -> None:
    overview = _get(online.client, "/online")
    link = f"/online/waiting%2Frefunds/{LATER.version}?window=1h"
    assert f'href="{link}"' in overview
    later = _get(online.client, link)
    assert "No failing trace." in later
    assert "scored 0, failed 0" in later
    missing = online.client.get("/online/refund-policy/000000000000")
    assert missing.status_code == 404
    assert "No online evaluator refund-policy@000000000000" in missing.text


def test_a_store_without_online_scores_says_how_to_get_them(store_url: str, tmp_path: Path) -> None:
    with Store.open(store_url) as store:
        settings = UiSettings(dataset=tmp_path / "candidates.yaml")
        with TestClient(create_ui_app(store, settings), base_url=LOOPBACK_URL) as client:
            page = Texts(_get(client, "/online"))
    assert page.texts["no-evaluators"] == [
        "No online evaluator has run on this store (trailcheck online run)."
    ]


def test_a_failing_trace_links_the_step_where_its_failure_began(online: Online) -> None:
    page = _get(online.client, f"/online/refund-policy/{POLICY.version}?window=1h")
    began = re.findall(
        r'began at <a href="([^"]+)" title="[^"]*" data-testid="attribution">([^<]+)</a>'
        r" \((\w+)\)",
        page,
    )
    assert began  # each failing row names where its failure began
    href, where, category = began[0]
    assert category == "policy_breach"
    assert where == "step 1, execute_tool issue_refund"
    trace_url, anchor = href.split("#")
    assert anchor.startswith("span-")
    assert f'id="{anchor}"' in _get(online.client, trace_url)  # the span row is the anchor
