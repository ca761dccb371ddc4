"""Awkward tool results in the report: which cases return one, the pass rate per kind in the
report file, and the HTML section showing both (none for a run without such cases)."""

from __future__ import annotations

import orjson
import pytest
from rich.console import Console

from trailcheck.report.html import render_html
from trailcheck.report.run_view import awkward_table, render_run
from trailcheck.run.results import RunReport, dump_report

from .test_html import Parsed

pytestmark = pytest.mark.live

CASES_BY_KIND = {
    "empty_list": ["search-empty-result"],
    "partial_match": ["latest-order-near-match"],
    "stale": ["stale-delivery-estimate"],
    "paginated": ["latest-order-paginated"],
    "reads_like_error": ["refund-policy-reads-like-error"],
}


def test_the_report_file_says_which_cases_and_how_each_kind_fared(v1_report: RunReport) -> None:
    data = orjson.loads(dump_report(v1_report))
    kinds = {case["id"]: case["awkward_results"] for case in data["cases"]}
    assert {case_id: found for case_id, found in kinds.items() if found} == {
        case_id: [kind] for kind, case_ids in CASES_BY_KIND.items() for case_id in case_ids
    }
    rates = data["awkward_results"]
    # v1 reads an empty search right, and misreads the other four kinds every time (k = 4).
    assert {kind: (r["count"], r["total"]) for kind, r in rates.items()} == {
        "empty_list": (4, 4),
        "partial_match": (0, 4),
        "stale": (0, 4),
        "paginated": (0, 4),
        "reads_like_error": (0, 4),
    }
    assert rates["paginated"]["interval"]["method"] == "wilson"
    assert RunReport.model_validate_json(dump_report(v1_report)) == v1_report


def test_the_html_shows_a_row_per_kind(v1_report: RunReport, v2_report: RunReport) -> None:
    for report, expected in ((v1_report, ["1.000", *["0.000"] * 4]), (v2_report, ["1.000"] * 5)):
        html = render_html(report)
        parsed = Parsed(html)
        rows = [a for _, a in parsed.tags if a.get("data-testid") == "awkward-row"]
        assert [row["data-kind"] for row in rows] == list(CASES_BY_KIND)
        assert parsed.texts["awkward-pass-rate"] == expected
        section = html[html.index('id="awkward-results"') :]
        row = section[section.index('data-kind="paginated"') :]
        row = row[: row.index("</tr>")]
        assert "latest-order-paginated" in row
        assert "a first page of several" in row


def test_a_run_without_awkward_results_has_no_section(mixed_report: RunReport) -> None:
    assert mixed_report.awkward_results == {}
    assert 'id="awkward-results"' not in render_html(mixed_report)


def test_the_terminal_report_shows_a_row_per_kind(
    v1_report: RunReport, mixed_report: RunReport
) -> None:
    console = Console(width=200, record=True)
    console.print(render_run(v1_report))
    text = console.export_text()
    section = text[text.index("Awkward tool results") :]
    for kind, cases in CASES_BY_KIND.items():
        row = next(line for line in section.splitlines() if line.lstrip("│ ").startswith(kind))
        assert cases[0] in row
        assert ("4/4" if kind == "empty_list" else "0/4") in row
    assert awkward_table(mixed_report) is None
