"""The components page through the UI's HTTP interface, over a store that scored its traffic at
ingest (both backends): each component's counts, rate and interval, its sparkline, sorting by
any column through the query string, the period, and names from traffic escaped."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest
from fastapi.testclient import TestClient

from tests.ui.markup import Texts
from tests.ui.seed import LOOPBACK_URL, moved
from trailcheck.online.fields import iso
from trailcheck.store import Store
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace
from trailcheck.ui import UiSettings, create_ui_app

HOUR: Final = 3600 * 10**9
HOSTILE: Final = 'lookup<script>alert("owned")</script><img src=x onerror=1>'
START: Final = TraceBuilder("x").build().spans[0].start_ns // HOUR * HOUR


def _trace(trace_id: str, hour: int, *, refund_fails: bool) -> Trace:
    builder = (
        TraceBuilder(trace_id)
        .tool(HOSTILE, {"q": trace_id}, result={"found": True})
        .llm("refunding", model="gpt-x", input_tokens=10)
    )
    if refund_fails:
        builder = builder.tool("issue_refund", {}, error="TimeoutError: upstream")
    else:
        builder = builder.tool("issue_refund", {}, result={"ok": True})
    return moved(builder.build(), hour * HOUR)


def traffic() -> list[Trace]:
    """Three hours of four traces; in hour h, h of them fail their refund: 3 of 12 in all."""
    return [
        _trace(f"t-{hour}-{index}", hour, refund_fails=index < hour)
        for hour in range(3)
        for index in range(4)
    ]


@dataclass
class Components:
    client: TestClient
    store: Store


@pytest.fixture
def components(store_url: str, tmp_path: Path) -> Iterator[Components]:
    with Store.open(store_url) as store:
        store.ingest(traffic())
        settings = UiSettings(dataset=tmp_path / "candidates.yaml", clock=lambda: START + 5 * HOUR)
        with TestClient(create_ui_app(store, settings), base_url=LOOPBACK_URL) as client:
            yield Components(client, store)


def _get(client: TestClient, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.text


def test_each_component_with_its_counts_rate_interval_and_errors(components: Components) -> None:
    markup = _get(components.client, "/components?window=1h")
    page = Texts(markup)
    # The default order: the lowest success rate first.
    assert page.texts["component"] == ["issue_refund", HOSTILE, "gpt-x"]
    assert page.texts["kind"] == ["tool", "tool", "model"]
    assert page.texts["calls"] == ["12", "12", "12"]
    assert page.texts["success-rate"] == ["0.750", "1.000", "1.000"]
    assert page.texts["interval"][0] == "[0.468, 0.911]"  # Wilson, 9 of 12
    assert page.texts["errors"] == ["3 (TimeoutError 3)", "0", "0"]
    assert page.texts["p50"] == ["0.0", "0.0", "0.0"]
    # A name from traffic is text, never markup; the page has no script at all.
    assert "<script>alert" not in markup
    assert page.scripts == 0
    assert 'href="/components"' in markup  # in the navigation


def _sparklines(markup: str) -> list[str]:
    return re.findall(r'<svg[^>]*data-testid="sparkline"[^>]*>.*?</svg>', markup, re.S)


def test_a_sparkline_per_row_with_a_point_per_window(components: Components) -> None:
    markup = _get(components.client, "/components?window=1h")
    refund, hostile, model = _sparklines(markup)
    tips = re.findall(r"<title[^>]*>([^<]*)</title>", refund)
    assert tips[0].startswith("issue_refund: success rate in 3 window(s), lowest 0.500")
    assert [tip.split(": ", 1)[1] for tip in tips[1:]] == [
        "4/4 succeeded, rate 1.000",
        "3/4 succeeded, rate 0.750",
        "2/4 succeeded, rate 0.500",
    ]
    points = re.search(r'<polyline points="([^"]*)"', refund)
    assert points is not None
    heights = [float(point.split(",")[1]) for point in points[1].split()]
    assert heights == sorted(heights)  # falling rate: each point lower (a larger y)
    # The rows share a time axis: the same x for the same hour.
    assert re.findall(r'cx="([^"]*)"', refund) == re.findall(r'cx="([^"]*)"', model)
    assert "&lt;script&gt;" in hostile  # its title names it, escaped


def test_sorting_by_any_column_through_the_query_string(components: Components) -> None:
    page = Texts(_get(components.client, "/components?window=1h&sort=component&order=desc"))
    assert page.texts["component"] == [
        "lookup" + HOSTILE.removeprefix("lookup"),
        "issue_refund",
        "gpt-x",
    ]
    page = Texts(_get(components.client, "/components?sort=errors"))
    assert page.texts["component"][0] == "issue_refund"
    markup = _get(components.client, "/components?sort=kind&order=asc")
    assert Texts(markup).texts["kind"] == ["model", "tool", "tool"]
    # The current column's link turns the order round and keeps the view.
    heading = re.search(
        r'<th aria-sort="ascending" data-testid="sort-kind"><a href="([^"]*)"', markup
    )
    assert heading is not None
    assert heading[1] == "/components?window=1h&amp;sort=kind&amp;order=desc"


def test_the_period_counts_only_the_calls_since_then(components: Components) -> None:
    since = iso(START + 2 * HOUR)
    page = Texts(_get(components.client, f"/components?since={since}&window=1h"))
    assert page.texts["calls"] == ["4", "4", "4"]
    assert page.texts["success-rate"][0] == "0.500"
    relative = Texts(_get(components.client, "/components?since=3h"))  # the clock: START + 5h
    assert relative.texts["calls"] == ["4", "4", "4"]


def test_a_bad_query_is_named_and_the_default_shown(components: Components) -> None:
    markup = _get(components.client, "/components?sort=bogus&order=sideways&window=0s")
    assert "sort: no column &#x27;bogus&#x27;; sorting by success" in markup
    assert "order: asc or desc, not &#x27;sideways&#x27;" in markup
    assert "window: must be longer than 0s; showing 1h windows" in markup
    assert Texts(markup).texts["component"][0] == "issue_refund"


def test_a_store_without_span_scores_says_how_to_get_them(store_url: str, tmp_path: Path) -> None:
    with Store.open(store_url) as store:
        settings = UiSettings(dataset=tmp_path / "candidates.yaml")
        with TestClient(create_ui_app(store, settings), base_url=LOOPBACK_URL) as client:
            page = Texts(_get(client, "/components"))
    assert "trailcheck components --backfill" in page.texts["no-components"][0]
