"""The UI's pages and actions through its HTTP interface, on a seeded store (both backends)."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from tests.ui.conftest import Seeded
from tests.ui.markup import Texts
from tests.ui.seed import CLUSTER_ID, HOSTILE, LABEL, LOOPBACK_URL, write_candidates
from trailcheck.cases import load_dataset
from trailcheck.ui import UiSettings, create_ui_app


def _csrf(markup: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', markup)
    assert found is not None
    return found[1]


def _rows(client: TestClient, url: str) -> list[str]:
    response = client.get(url)
    assert response.status_code == 200
    return re.findall(r'<tr data-testid="trace-row"><td><a href="[^"]+">([^<]+)</a>', response.text)


def test_the_four_pages_load_and_say_how_long_they_took(client: TestClient) -> None:
    for url in ("/traces", "/traces/t-refund-1", "/findings", "/review", "/runs"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.headers["server-timing"].startswith("app;dur=")
        assert "default-src 'self'" in response.headers["content-security-policy"]
    assert client.get("/static/ui.css").headers["content-type"].startswith("text/css")


def test_the_list_pages_newest_first_and_keeps_filters_on_the_next_link(
    client: TestClient,
) -> None:
    first = client.get("/traces?tool=store_hours")
    assert _rows(client, "/traces?tool=store_hours") == ["t-hours-3", "t-hours-2", "t-hours-1"]
    everything = _rows(client, "/traces")
    assert everything == ["t-hours-3", "t-hours-2", "t-refund-2", "t-hostile"]
    nxt = re.search(r'href="(/traces\?[^"]+)" data-testid="next-page"', client.get("/traces").text)
    assert nxt is not None
    assert _rows(client, nxt[1].replace("&amp;", "&")) == ["t-refund-1", "t-hours-1"]
    assert "next-page" not in first.text


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (f"label={LABEL}", ["t-refund-2", "t-refund-1"]),
        ("session=s-refunds", ["t-refund-2", "t-refund-1"]),
        ("status=error", ["t-hostile"]),
        ("q=refund+order", ["t-refund-2", "t-refund-1"]),
        ("since=2023-11-15T12:00&until=2023-11-16T12:00", ["t-refund-2", "t-hostile"]),
        ("tool=lookup_order&label=" + LABEL, ["t-refund-2", "t-refund-1"]),
    ],
)
def test_each_filter_of_the_list(client: TestClient, query: str, expected: list[str]) -> None:
    assert _rows(client, f"/traces?{query}") == expected


def test_a_bad_filter_value_is_named_not_a_server_error(client: TestClient) -> None:
    response = client.get("/traces?since=yesterday&status=maybe&after=junk")
    assert response.status_code == 200
    assert "since: not a time" in response.text
    assert "neither error nor ok" in response.text
    assert len(_rows(client, "/traces?since=yesterday")) == 4


def test_the_trace_page_shows_spans_calls_messages_usage_and_findings(client: TestClient) -> None:
    page = Texts(client.get("/traces/t-hostile").text)
    assert len(page.texts["span-row"]) == 3
    assert page.texts["call-arguments"] == [
        '{\n  "query": "' + HOSTILE.replace('"', '\\"') + '"\n}'
    ]
    assert page.texts["final-output"] == [HOSTILE]
    assert "120" in page.texts["usage"][0]
    refund = Texts(client.get("/traces/t-refund-1").text)
    assert LABEL in refund.texts["finding"][0]


def test_text_from_a_trace_is_shown_as_text_never_as_markup(client: TestClient) -> None:
    for url in ("/traces", "/traces/t-hostile", "/traces?q=script"):
        markup = client.get(url).text
        assert "<script>" not in markup
        assert "<img src=x" not in markup
        assert Texts(markup).scripts == 0
    assert "&lt;script&gt;document.title" in client.get("/traces/t-hostile").text


def test_an_unknown_trace_is_a_404(client: TestClient) -> None:
    response = client.get("/traces/no-such-trace")
    assert response.status_code == 404
    assert "no-such-trace" in response.text


def test_a_note_and_a_label_added_on_the_page_are_in_the_store(
    client: TestClient, seeded: Seeded
) -> None:
    secret = _csrf(client.get("/traces/t-hours-1").text)
    note = client.post(
        "/traces/t-hours-1/notes",
        data={"csrf": secret, "text": "<b>slow</b>", "author": "ana"},
        follow_redirects=False,
    )
    assert note.status_code == 303
    shown = client.get(note.headers["location"])
    assert "note added" in shown.text
    assert "&lt;b&gt;slow&lt;/b&gt;" in shown.text
    assert [(n.text, n.author) for n in seeded.store.notes("t-hours-1")] == [("<b>slow</b>", "ana")]
    client.post(
        "/traces/t-hours-1/labels",
        data={"csrf": secret, "label": "hours_wrong", "who": "ana", "severity": "low"},
    )
    (finding,) = seeded.store.findings(trace_id="t-hours-1")
    assert (finding.label, finding.source, finding.severity) == ("hours_wrong", "human:ana", "low")


def test_a_refused_action_says_why_and_changes_nothing(client: TestClient, seeded: Seeded) -> None:
    secret = _csrf(client.get("/traces/t-hours-1").text)
    response = client.post(
        "/traces/t-hours-1/labels",
        data={"csrf": secret, "label": "Not A Label", "who": "ana"},
        follow_redirects=True,
    )
    assert 'data-testid="flash-error"' in response.text
    blank = client.post(
        "/traces/t-hours-1/notes",
        data={"csrf": secret, "text": " ", "author": "ana"},
        follow_redirects=True,
    )
    assert "text is required" in blank.text
    assert seeded.store.findings(trace_id="t-hours-1") == []
    assert seeded.store.notes("t-hours-1") == []


def test_a_post_without_the_form_secret_is_refused(client: TestClient, seeded: Seeded) -> None:
    for secret in (None, "guess"):
        data = {"text": "x", "author": "mallory"} | ({"csrf": secret} if secret else {})
        assert client.post("/traces/t-hours-1/notes", data=data).status_code == 403
    assert seeded.store.notes("t-hours-1") == []


def test_with_a_token_every_page_needs_it(seeded: Seeded) -> None:
    settings = UiSettings(token="s3cret", dataset=seeded.dataset, runs_dir=seeded.runs)
    with TestClient(create_ui_app(seeded.store, settings), base_url=LOOPBACK_URL) as client:
        refused = client.get("/traces", follow_redirects=False)
        assert (refused.status_code, refused.headers["location"]) == (303, "/login")
        assert "s3cret" not in client.get("/login").text
        assert client.get("/static/ui.css").status_code == 200
        bearer = client.get("/traces", headers={"Authorization": "Bearer s3cret"})
        assert bearer.status_code == 200
        assert "t-hours-3" in bearer.text
        wrong = client.post("/login", data={"token": "guess"}, follow_redirects=False)
        assert wrong.headers["location"] == "/login?failed=1"
        assert client.get("/traces", follow_redirects=False).status_code == 303
        signed = client.post("/login", data={"token": "s3cret"}, follow_redirects=False)
        assert "httponly" in signed.headers["set-cookie"].lower()
        assert "samesite=strict" in signed.headers["set-cookie"].lower()
        assert client.get("/traces").status_code == 200


def test_the_findings_page_charts_labels_and_promotes_a_cluster(
    client: TestClient, seeded: Seeded
) -> None:
    page = client.get("/findings").text
    texts = Texts(page)
    assert texts.texts["label-total"] == ["2"]
    assert page.count('class="day"') == 2  # two days, one trace each
    assert "lookup_order -&gt; issue_refund" in page
    promoted = client.post(
        f"/clusters/{CLUSTER_ID}/promote", data={"csrf": _csrf(page)}, follow_redirects=True
    )
    assert "added to" in promoted.text
    written = load_dataset(seeded.dataset)
    (case,) = written.cases
    assert (case.review_status, case.failure_modes) == ("candidate", [LABEL])
    # Recorded in the store, so a prune keeps the candidate's sources.
    assert seeded.store.dataset_versions(written.name) == [written.version]
    again = client.post(
        f"/clusters/{CLUSTER_ID}/promote", data={"csrf": _csrf(page)}, follow_redirects=True
    )
    assert "already has case" in again.text


def test_the_queue_shows_the_candidate_redacted_beside_its_proposals(
    client: TestClient, seeded: Seeded
) -> None:
    write_candidates(seeded.store, seeded.dataset)
    page = Texts(client.get("/review").text)
    (case_input,) = page.texts["case-input"]
    assert "[REDACTED:email]" in case_input
    assert "a@b.example" not in case_input
    assert "issue_refund" in page.texts["proposals"][0]


def test_approving_in_the_ui_writes_what_the_review_command_writes(
    client: TestClient, seeded: Seeded
) -> None:
    from typer.testing import CliRunner

    from trailcheck.cli import app

    case_id = write_candidates(seeded.store, seeded.dataset)
    by_command = seeded.dataset.with_name("by-command.yaml")
    by_command.write_bytes(seeded.dataset.read_bytes())
    result = CliRunner().invoke(
        app, ["review", str(by_command), "--approve", case_id, "--reviewer", "ana"]
    )
    assert result.exit_code == 0, result.output
    secret = _csrf(client.get("/review").text)
    approved = client.post(
        f"/review/{case_id}/approve",
        data={"csrf": secret, "reviewer": "ana"},
        follow_redirects=True,
    )
    assert "approve saved" in approved.text
    assert "linked to cluster" in approved.text
    assert seeded.dataset.read_bytes() == by_command.read_bytes()
    decided = load_dataset(seeded.dataset)
    (case,) = decided.cases
    assert (case.review_status, case.reviewed_by) == ("approved", "ana")
    assert seeded.store.dataset_versions(decided.name)[-1] == decided.version
    assert seeded.store.clusters(LABEL)[0].case_id == case_id
    assert 'data-testid="queue-empty"' in approved.text


def test_rejecting_and_editing_in_the_ui_match_the_library(
    client: TestClient, seeded: Seeded
) -> None:
    from trailcheck.loop import reject
    from trailcheck.loop.review import edit_proposals

    case_id = write_candidates(seeded.store, seeded.dataset)
    before = load_dataset(seeded.dataset)
    secret = _csrf(client.get("/review").text)
    text = "expected_tools: [verify_identity, issue_refund]\n"
    client.post(f"/review/{case_id}/edit", data={"csrf": secret, "proposals": text})
    edited = edit_proposals(before, case_id, text)
    assert load_dataset(seeded.dataset) == edited
    client.post(
        f"/review/{case_id}/reject", data={"csrf": secret, "reviewer": "bo", "reason": "dup"}
    )
    assert load_dataset(seeded.dataset) == reject(edited, case_id, reviewer="bo", reason="dup")
    bad = client.post(
        f"/review/{case_id}/edit",
        data={"csrf": secret, "proposals": "nope: 1"},
        follow_redirects=True,
    )
    assert "may set" in bad.text


def test_the_runs_page_sets_two_reports_side_by_side(client: TestClient) -> None:
    page = client.get("/runs?baseline=v1&candidate=v2").text
    texts = Texts(page)
    assert len(texts.texts["run-column"]) == 2
    assert texts.texts["pass-hat-k-2"] == ["1.000", "0.500"]
    assert "McNemar" in page
    assert texts.texts["comparison-statement"]
    failed = texts.texts["failed-trial"]
    assert len(failed) == 2
    assert all("refund-1" in line for line in failed)
    # Where each failure began, linked to the span's row on the trace page.
    assert all(
        "began at step 2, execute_tool issue_refund (policy_breach)" in line for line in failed
    )
    assert page.count('href="/traces/t-refund-1#span-span-002"') == 2
    assert page.count('href="/traces/t-refund-1"') == 2
    listing = client.get("/runs").text
    assert "v1" in listing
    assert "run-column" not in listing


def test_a_file_in_the_runs_folder_that_is_not_a_report_is_listed_with_why(
    client: TestClient, seeded: Seeded
) -> None:
    (seeded.runs / "notes.json").write_text("{}", encoding="utf-8")
    assert "not a trailcheck report" in client.get("/runs").text


def test_a_decision_made_with_the_review_command_shows_in_the_queue(
    client: TestClient, seeded: Seeded
) -> None:
    from trailcheck.cli import run_cli

    case_id = write_candidates(seeded.store, seeded.dataset)
    assert 'data-testid="candidate"' in client.get("/review").text
    assert run_cli(["review", str(seeded.dataset), "--reject", case_id, "--reason", "dup"]) == 0
    page = client.get("/review").text
    assert 'data-testid="queue-empty"' in page
    assert "1 rejected" in page


def test_a_search_that_reaches_its_window_offers_to_search_older(seeded: Seeded) -> None:
    settings = UiSettings(runs_dir=seeded.runs, page_size=4, search_window=2)
    with TestClient(create_ui_app(seeded.store, settings), base_url=LOOPBACK_URL) as client:
        first = client.get(f"/traces?label={LABEL}").text
        assert 'data-testid="searched-to"' in first
        assert "No trace matches" not in first
        older = re.search(r'href="(/traces\?[^"]+)" data-testid="next-page">Search older', first)
        assert older is not None
        url = older[1].replace("&amp;", "&")
        assert f"label={LABEL}" in url
        assert _rows(client, url) == ["t-refund-2"]


def test_without_a_token_only_requests_to_loopback_are_answered(seeded: Seeded) -> None:
    # A page elsewhere that rebinds its own name to 127.0.0.1 reaches a tokenless UI as the
    # same origin; its requests name it in Host, and are refused before any page is made.
    with TestClient(create_ui_app(seeded.store, seeded.settings)) as client:
        for host in ("evil.example", "evil.example:8765", "127.0.0.1.evil.example"):
            refused = client.get("/traces/t-hours-1", headers={"Host": host})
            assert refused.status_code == 403, host
            assert "t-hours-1" not in refused.text
            posted = client.post("/traces/t-hours-1/notes", headers={"Host": host}, data={})
            assert posted.status_code == 403
        for host in ("127.0.0.1:8765", "localhost", "[::1]:8765", "127.0.0.2"):
            page = client.get("/traces/t-hours-1", headers={"Host": host})
            assert page.status_code == 200, host
            assert "t-hours-1" in page.text
    assert seeded.store.notes("t-hours-1") == []
    # With a token the token decides, whatever the Host (a proxy may name the server).
    settings = UiSettings(token="s3cret", dataset=seeded.dataset, runs_dir=seeded.runs)
    with TestClient(create_ui_app(seeded.store, settings)) as client:
        bearer = {"Authorization": "Bearer s3cret", "Host": "trailcheck.example"}
        assert client.get("/traces", headers=bearer).status_code == 200
