"""The single-file HTML report: self-contained, escaped, and showing the report's own numbers.

The pure-Python tests parse the document; the browser test opens it in headless Chromium with
every network request refused and reads the numbers as a person would see them.
"""

from __future__ import annotations

import os
import shutil
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType

import pytest

from trailcheck.report.html import render_html
from trailcheck.run.results import RunReport

from .conftest import HOSTILE_OUTPUT

pytestmark = pytest.mark.live


class Parsed(HTMLParser):
    """Every start tag with its attributes, and the text inside each ``data-testid`` element."""

    def __init__(self, document: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.texts: dict[str, list[str]] = {}
        self._open: list[tuple[str, str | None]] = []
        self.feed(document)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        testid = attributes.get("data-testid")
        self._open.append((tag, testid))
        if testid is not None:
            self.texts.setdefault(testid, []).append("")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        for _, testid in self._open:
            if testid is not None:
                self.texts[testid][-1] += data

    def text(self, testid: str) -> str:
        (only,) = self.texts[testid]
        return only


def _number(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


@pytest.fixture(scope="module")
def v1_html(v1_report: RunReport) -> str:
    return render_html(v1_report)


def test_nothing_is_fetched_from_anywhere(v1_html: str, v2_report: RunReport) -> None:
    for document in (v1_html, render_html(v2_report)):
        parsed = Parsed(document)
        tags = {tag for tag, _ in parsed.tags}
        assert not tags & {"script", "link", "iframe", "object", "embed", "img", "base"}
        for tag, attributes in parsed.tags:
            for name in ("src", "href", "srcset", "action", "xlink:href"):
                value = attributes.get(name)
                assert value is None or value.startswith("#"), (tag, name, value)
        for fetching in ("url(", "@import", "http://", "https://"):
            assert fetching not in document
        assert document.startswith("<!DOCTYPE html>")


def test_agent_output_is_escaped(mixed_report: RunReport) -> None:
    document = render_html(mixed_report)
    parsed = Parsed(document)
    # Safe: the answer's markup is text, so no element came out of it.
    assert HOSTILE_OUTPUT not in document
    assert "&lt;script&gt;" in document
    assert not any(tag in {"script", "img"} for tag, _ in parsed.tags)
    assert not any("onerror" in attributes for _, attributes in parsed.tags)
    # Functional: the answer is still shown, character for character.
    assert HOSTILE_OUTPUT in parsed.texts["final-output"]


def test_summary_numbers_are_the_reports(v1_html: str, v1_report: RunReport) -> None:
    parsed = Parsed(v1_html)
    summary = v1_report.summary
    for status in ("attempted", "passed", "failed", "timeout", "crashed", "unscorable"):
        assert parsed.text(f"count-{status}") == str(getattr(summary.trials, status))
    assert parsed.text("count-infra_error") == str(summary.trials.infra_error)
    assert parsed.text("count-tasks") == str(summary.tasks)
    assert parsed.text("pass-at-1") == _number(summary.pass_at_1)
    for k in range(1, summary.k + 1):
        assert parsed.text(f"pass-hat-k-{k}") == _number(summary.pass_hat_k[k])
        assert parsed.text(f"pass-at-k-{k}") == _number(summary.pass_at_k[k])
        interval = summary.pass_hat_k_interval[k]
        expected = f"[{interval.low:.3f}, {interval.high:.3f}]"
        assert parsed.text(f"pass-hat-k-{k}-interval") == expected
    assert "bootstrap-task 95%, 2000 resamples, seed 0" in v1_html
    assert "partial-banner" not in v1_html


def test_chart_draws_a_point_per_defined_value(v1_html: str, v1_report: RunReport) -> None:
    chart = v1_html[v1_html.index('data-testid="pass-chart"') :]
    chart = chart[: chart.index("</svg>")]
    assert chart.count("<circle") == 2 * v1_report.summary.k
    assert chart.count('class="whisker') == 2 * v1_report.summary.k


def test_grid_and_failed_trials(v1_html: str, v1_report: RunReport) -> None:
    parsed = Parsed(v1_html)
    rows = [a for tag, a in parsed.tags if a.get("data-testid") == "case-row"]
    assert [row["data-case"] for row in rows] == [case.id for case in v1_report.cases]
    failed = [a for _, a in parsed.tags if a.get("data-testid") == "failed-trial"]
    assert len(failed) == v1_report.summary.trials.failed
    assert all(a["data-status"] == "failed" for a in failed)


def test_differences_are_marked(v1_html: str) -> None:
    # The wrong date, marked with the arguments scorer's own words.
    assert 'data-mark="argument">new_date=2026-06-17' in v1_html
    assert "expected 2026-06-19, got 2026-06-17" in v1_html
    # A refund that no expected step asked for, and a verification that never happened.
    article = v1_html[v1_html.index('id="case-refund-without-proof"') :]
    article = article[: article.index("</article>")]
    extra_rows = [row[: row.index("</tr>")] for row in article.split('data-mark="extra"')[1:]]
    assert [row for row in extra_rows if "<code>issue_refund</code>" in row]
    verified = v1_html[v1_html.index('id="case-refund-verified"') :]
    missing = verified[verified.index('data-mark="missing"') :]
    assert "verify_identity" in missing[: missing.index("</tr>")]


def test_each_failed_trial_says_where_it_began_and_marks_that_call(
    v1_html: str, v1_report: RunReport
) -> None:
    parsed = Parsed(v1_html)
    failed = [t for t in v1_report.trials() if t.status == "failed"]
    notes = [a for _, a in parsed.tags if a.get("data-testid") == "attribution"]
    assert [(a["data-span"], a["data-category"]) for a in notes] == [
        (t.attribution.span_id, t.attribution.category) for t in failed if t.attribution
    ]
    assert len(notes) == len(failed)
    # The Friday date: the reschedule call's row is the one marked, with the category.
    friday = v1_html[v1_html.index('id="case-reschedule-friday"') :]
    friday = friday[: friday.index("</details>")]
    assert "began at step 6: reschedule_delivery" in friday
    row = friday[friday.index('data-attribution="wrong_argument"') :]
    row = row[: row.index("</tr>")]
    assert "<code>reschedule_delivery</code>" in row
    assert "began here: wrong_argument" in row


def test_the_symptom_is_marked_apart_and_evidence_is_escaped(mixed_report: RunReport) -> None:
    document = render_html(mixed_report)
    parsed = Parsed(document)
    [attributed] = [a for _, a in parsed.tags if a.get("data-attribution")]
    [symptom] = [a for _, a in parsed.tags if a.get("data-symptom")]
    assert attributed["class"] == "step same attributed"
    assert attributed["data-attribution"] == "tool_returned_wrong_data"
    assert symptom["class"] == "step same"
    note = parsed.text("attribution")
    assert note == (
        f"began at step 2: lookup_order — tool_returned_wrong_data: lookup_order returned"
        f" {HOSTILE_OUTPUT} (it showed at span {'b' * 16})"
    )
    assert not any(tag in {"script", "img"} for tag, _ in parsed.tags)


def test_tool_table_counts_every_call(v1_html: str, v1_report: RunReport) -> None:
    parsed = Parsed(v1_html)
    calls = [c for t in v1_report.trials() for c in t.calls]
    assert sum(int(n) for n in parsed.texts["tool-calls"]) == len(calls)
    assert sum(int(n) for n in parsed.texts["tool-errors"]) == sum(not c.succeeded for c in calls)


def test_partial_infra_and_comparison(mixed_report: RunReport, v2_report: RunReport) -> None:
    parsed = Parsed(render_html(mixed_report))
    assert "PARTIAL RUN" in parsed.text("partial-banner")
    assert parsed.text("count-infra_error") == "1"
    assert len(parsed.texts["failed-trial"]) == 5  # all but the passed trial
    v2 = Parsed(render_html(v2_report))
    assert v2_report.comparison is not None
    assert v2.text("comparison-statement") == v2_report.comparison.statement
    assert (
        "comparison-statement"
        not in Parsed(render_html(mixed_report.model_copy(update={"comparison": None}))).texts
    )


def _browser_or_skip() -> tuple[ModuleType, str]:
    """Playwright's sync API and Debian's chromium, or a skip (a failure in CI) saying which is
    missing."""
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


@pytest.mark.browser
def test_browser_shows_the_reports_numbers_offline(
    tmp_path: Path, v1_report: RunReport, mixed_report: RunReport
) -> None:
    sync_api, chromium = _browser_or_skip()
    v1_file = tmp_path / "v1.html"
    v1_file.write_text(render_html(v1_report), encoding="utf-8")
    mixed_file = tmp_path / "mixed.html"
    mixed_file.write_text(render_html(mixed_report), encoding="utf-8")
    allowed = {v1_file.as_uri(), mixed_file.as_uri()}
    requested: list[str] = []
    refused: list[str] = []

    def guard(route: sync_api.Route) -> None:
        if route.request.url in allowed:
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True)
        try:
            context = browser.new_context(offline=True, java_script_enabled=True)
            context.route("**/*", guard)
            page = context.new_page()
            page.on("request", lambda request: requested.append(request.url))
            dialogs: list[str] = []
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

            page.goto(v1_file.as_uri())
            summary = v1_report.summary
            shown = page.text_content('[data-testid="pass-hat-k-4"]')
            assert shown == _number(summary.pass_hat_k[4])
            assert page.text_content('[data-testid="count-failed"]') == str(summary.trials.failed)
            assert page.text_content('[data-testid="count-infra_error"]') == "0"
            assert page.text_content('[data-testid="pass-at-1"]') == _number(summary.pass_at_1)
            assert page.locator('[data-testid="failed-trial"]').count() == summary.trials.failed
            assert page.locator('[data-testid="pass-chart"] circle').count() == 2 * summary.k
            assert page.locator('[data-testid="pass-chart"]').bounding_box() is not None

            page.goto(mixed_file.as_uri())
            assert page.title() != "owned"
            assert not dialogs
            outputs = page.locator('[data-testid="final-output"]').all_text_contents()
            assert HOSTILE_OUTPUT in outputs
            assert page.locator("script, img").count() == 0
            assert page.is_visible('[data-testid="partial-banner"]')
        finally:
            browser.close()
    assert refused == []
    assert set(requested) <= allowed
    assert set(requested) == allowed  # the route saw both pages, so it was in force


def test_each_tools_success_in_this_run_against_the_baseline(
    v1_report: RunReport, v2_report: RunReport
) -> None:
    assert v2_report.comparison is not None
    tools = v2_report.comparison.tools
    called = sorted({call.name for trial in v2_report.trials() for call in trial.calls})
    assert [t.tool for t in tools] == sorted(
        set(called) | {call.name for trial in v1_report.trials() for call in trial.calls}
    )
    parsed = Parsed(render_html(v2_report))
    rows = [
        attrs["data-tool"]
        for tag, attrs in parsed.tags
        if attrs.get("data-testid") == "tool-success-row"
    ]
    assert rows == [t.tool for t in tools]
    for index, tool in enumerate(tools):
        calls = [c for trial in v2_report.trials() for c in trial.calls if c.name == tool.tool]
        succeeded = sum(c.succeeded for c in calls)
        shown = parsed.texts["tool-candidate"][index]
        if calls:
            assert shown.startswith(f"{succeeded / len(calls):.3f} [")
        assert tool.candidate.calls == len(calls)
    # Without a baseline there is no such table.
    assert "tool-success" not in Parsed(render_html(v1_report)).texts


def test_a_tool_name_in_the_comparison_is_escaped(v2_report: RunReport) -> None:
    assert v2_report.comparison is not None
    [first, *rest] = v2_report.comparison.tools
    hostile = first.model_copy(update={"tool": HOSTILE_OUTPUT})
    comparison = v2_report.comparison.model_copy(update={"tools": [hostile, *rest]})
    document = render_html(v2_report.model_copy(update={"comparison": comparison}))
    assert "<script>" not in document
    assert Parsed(document).texts["tool-success-row"][0].startswith(HOSTILE_OUTPUT)
