"""The UI in headless Chromium (Debian's chromium driven by Playwright, as the report's browser
test): the pages load offline from the server alone, filters work, a note typed in the browser
lands in the store, approving in the browser changes the dataset file, and a trace's
``<script>`` is shown as text and never runs.

With ``TRAILCHECK_UI_SCREENSHOTS=DIR`` the pages are also saved as PNGs there (docs/ui/ holds
the ones docs/ui.md shows)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.online.notice_examples import above_notice
from tests.serve.live_server import live_server
from tests.ui.seed import (
    DAY_NS,
    HOSTILE,
    LABEL,
    TRACES,
    fire_alert,
    seed_store,
    write_candidates,
    write_runs,
)
from tests.waiting import GUARD_S
from trailcheck.cases import load_dataset
from trailcheck.online import Evaluator, FailingTrace, OnlineConfig
from trailcheck.online.worker import OnlineWorker
from trailcheck.store import Store
from trailcheck.ui import UiSettings, create_ui_app

pytestmark = [pytest.mark.browser, pytest.mark.live]

_WIDTH = 1200
# Playwright's waits (launch, navigation, a selector, an action's auto-wait) end on their event;
# its 30 s default would decide the outcome on a busy machine, so they get the hang guard.
_GUARD_MS = GUARD_S * 1000


def _browser_or_skip() -> tuple[ModuleType, str]:
    """Playwright's sync API and Debian's chromium, or a skip (a failure when
    TRAILCHECK_REQUIRE_BROWSER=1) saying which is missing."""
    required = os.environ.get("TRAILCHECK_REQUIRE_BROWSER") == "1"
    chromium = shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )
    problem = None
    try:
        from playwright import sync_api
    except ImportError:
        problem = "playwright is not installed (it is a dev dependency: uv sync)"
    if problem is None and chromium is None:
        problem = "no chromium binary on PATH or at /usr/bin/chromium (apt-get install chromium)"
    if problem is not None:
        if required:
            pytest.fail(f"TRAILCHECK_REQUIRE_BROWSER=1 but {problem}")
        pytest.skip(problem)
    assert chromium is not None
    return sync_api, chromium


class Ui:
    """A served UI over a seeded SQLite store, and a page of a browser that may reach only it."""

    def __init__(self, store: Store, dataset: Path, base: str, page: Any) -> None:
        self.store, self.dataset, self.base, self.page = store, dataset, base, page
        self.dialogs: list[str] = []
        self.elsewhere: list[str] = []

    def go(self, path: str) -> None:
        response = self.page.goto(self.base + path)
        assert response is not None, path
        assert response.status == 200, path

    def shoot(self, name: str) -> None:
        folder = os.environ.get("TRAILCHECK_UI_SCREENSHOTS")
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=False)


@pytest.fixture
def ui(tmp_path: Path) -> Iterator[Ui]:
    sync_api, chromium = _browser_or_skip()
    with Store.open(f"sqlite:///{tmp_path / 'ui.db'}") as store:
        seed_store(store)
        write_runs(tmp_path / "runs")
        dataset = tmp_path / "candidates.yaml"
        settings = UiSettings(dataset=dataset, runs_dir=tmp_path / "runs", reviewer="ana")
        with live_server(create_ui_app(store, settings)) as base, sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True, timeout=_GUARD_MS)
            try:
                context = browser.new_context(viewport={"width": _WIDTH, "height": 900})
                context.set_default_timeout(_GUARD_MS)
                context.set_default_navigation_timeout(_GUARD_MS)
                page = context.new_page()
                served = Ui(store, dataset, base, page)

                def guard(route: Any) -> None:
                    if route.request.url.startswith(base + "/"):
                        route.continue_()
                    else:
                        served.elsewhere.append(route.request.url)
                        route.abort()

                context.route("**/*", guard)
                page.on("dialog", lambda d: (served.dialogs.append(d.message), d.dismiss()))
                yield served
            finally:
                browser.close()


def test_the_four_pages_load_from_the_server_alone(ui: Ui) -> None:
    write_candidates(ui.store, ui.dataset)
    for path, heading, shot in (
        ("/traces", "Traces", "traces"),
        ("/traces/t-refund-1", "Trace t-refund-1", "trace"),
        ("/findings", "Findings & clusters", "findings"),
        ("/review", "Review queue", "review"),
        ("/runs?baseline=v1&candidate=v2", "Runs", "runs"),
    ):
        ui.go(path)
        assert ui.page.text_content("h1") == heading
        assert ui.page.evaluate("getComputedStyle(document.body).maxWidth") == "1400px"
        ui.shoot(shot)
    # Each failed trial links its trace, and the step where its failure began.
    assert ui.page.locator('[data-testid="failed-trial"] a').count() == 4
    ui.page.locator('[data-testid="failed-trial"] a').first.click()
    ui.page.wait_for_url("**/traces/t-refund-1")  # the trace's page, not the one left behind
    assert ui.page.text_content("h1") == "Trace t-refund-1"
    ui.go("/runs?baseline=v1&candidate=v2")
    ui.page.locator('[data-testid="failed-trial"] [data-testid="attribution"]').first.click()
    ui.page.wait_for_url("**/traces/t-refund-1#span-span-002")
    assert ui.elsewhere == []


def test_filters_narrow_the_list(ui: Ui) -> None:
    ui.go("/traces")
    assert ui.page.locator('[data-testid="trace-row"]').count() == 6
    ui.page.fill('[data-testid="filter-label"]', LABEL)
    ui.page.click('[data-testid="filter-submit"]')
    ui.page.wait_for_url("**/traces?**")
    rows = ui.page.locator('[data-testid="trace-row"] td:first-child').all_text_contents()
    assert rows == ["t-refund-2", "t-refund-1"]
    ui.page.fill('[data-testid="filter-label"]', "")
    ui.page.select_option('[data-testid="filter-status"]', "error")
    ui.page.click('[data-testid="filter-submit"]')
    ui.page.wait_for_url("**status=error**")
    rows = ui.page.locator('[data-testid="trace-row"] td:first-child').all_text_contents()
    assert rows == ["t-hostile"]


def test_a_note_added_in_the_browser_is_in_the_store(ui: Ui) -> None:
    ui.go("/traces/t-hours-2")
    ui.page.fill('[data-testid="note-input"]', "answer ignores the holiday")
    ui.page.click('[data-testid="note-submit"]')
    ui.page.wait_for_selector('[data-testid="flash"]')
    ui.page.wait_for_load_state()  # the whole page after the flash, its notes included
    assert ui.page.locator('[data-testid="note-text"]').all_text_contents() == [
        "answer ignores the holiday"
    ]
    assert [(n.text, n.author) for n in ui.store.notes("t-hours-2")] == [
        ("answer ignores the holiday", "ana")
    ]


def test_approving_in_the_browser_changes_the_dataset_file(ui: Ui) -> None:
    ui.go("/findings")
    ui.page.click('[data-testid="promote-form"] button')
    ui.page.wait_for_selector('[data-testid="flash"]')
    (candidate,) = load_dataset(ui.dataset).cases
    assert candidate.review_status == "candidate"
    before = ui.dataset.read_bytes()
    ui.go("/review")
    ui.page.fill('[data-testid="approve-form"] [data-testid="reviewer"]', "bo")
    ui.page.click('[data-testid="approve-submit"]')
    ui.page.wait_for_selector('[data-testid="queue-empty"]')
    assert ui.dataset.read_bytes() != before
    (case,) = load_dataset(ui.dataset).cases
    assert (case.review_status, case.reviewed_by) == ("approved", "bo")
    assert case.expected_tools == ["lookup_order", "issue_refund"]


def test_a_script_in_a_trace_shows_as_text_and_never_runs(ui: Ui) -> None:
    for path in ("/traces", "/traces/t-hostile"):
        ui.go(path)
        assert ui.page.title() != "owned"
        assert ui.page.locator("script").count() == 0
        assert ui.page.locator("img").count() == 0
    assert ui.page.text_content('[data-testid="final-output"]') == HOSTILE
    ui.shoot("hostile")
    assert ui.dialogs == []
    assert ui.elsewhere == []


def test_the_online_page_draws_its_chart_and_shows_an_alert_as_text(ui: Ui) -> None:
    policy = Evaluator(name="refund-policy", rule="refund_without_identity_check")
    worker = OnlineWorker(ui.store, OnlineConfig(evaluators=[policy]))
    # Playwright's sync API holds an event loop on this thread; the worker runs its own.
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(worker.run_once).result(timeout=GUARD_S).scored == 6
    first_day = TRACES[0].spans[0].start_ns // DAY_NS * DAY_NS
    notice = above_notice().model_copy(
        update={"reason": HOSTILE, "failing_traces": [FailingTrace(trace_id="t-refund-2")]}
    )
    window = (first_day, first_day + DAY_NS)
    fire_alert(ui.store, "refunds", policy, window, notice.model_dump_json())
    ui.go("/online?window=1d")
    assert ui.page.text_content("h1") == "Online scoring"
    chart = ui.page.locator('[data-testid="rate-chart"]')
    box = chart.bounding_box()
    assert box is not None
    assert (box["width"], box["height"]) == (560, 200)
    assert chart.locator("polygon").count() == 3  # the seeded traces span three days
    assert ui.page.text_content('[data-testid="alert-reason"]') == HOSTILE
    assert ui.page.title() != "owned"
    assert ui.page.locator("script").count() == 0
    assert ui.page.locator("img").count() == 0
    ui.shoot("online")
    ui.page.locator('[data-testid="evaluator-row"] a').click()
    ui.page.wait_for_url("**/online/refund-policy/**")
    rows = ui.page.locator('[data-testid="failing-row"] td:first-child').all_text_contents()
    assert rows == ["t-refund-2", "t-refund-1"]
    ui.page.locator('[data-testid="failing-row"] a').first.click()
    ui.page.wait_for_url("**/traces/t-refund-2")
    assert ui.page.text_content("h1") == "Trace t-refund-2"
    assert ui.dialogs == []
    assert ui.elsewhere == []
