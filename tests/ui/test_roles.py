"""Read-only and read-write tokens through the UI's HTTP interface (both backends): a viewer sees
every page and no form, and every action is 403 to it and changes nothing; a reviewer acts; a
wrong token is 401; no token is the sign-in page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from tests.ui.conftest import Seeded
from tests.ui.markup import Texts
from tests.ui.seed import CLUSTER_ID, LABEL, write_candidates
from trailcheck.cases import load_dataset
from trailcheck.ui import UiSettings, create_ui_app
from trailcheck.ui.access import TOKEN_COOKIE

WRITE: Final = "reviewer-s3cret"
READ: Final = "viewer-l00k"
PROPOSALS: Final = "expected_tools: [verify_identity, issue_refund]\n"

# Every page (GET route) of the UI: a path that reaches it and what it answers. The failing
# traces of an online evaluator answer 404 for one the store does not have: its handler ran.
PAGES: Final = {
    "/": ("/", 303),
    "/login": ("/login", 200),
    "/static/ui.css": ("/static/ui.css", 200),
    "/traces": ("/traces", 200),
    "/traces/{trace_id:path}": ("/traces/t-refund-1", 200),
    "/findings": ("/findings", 200),
    "/review": ("/review", 200),
    "/runs": ("/runs?baseline=v1&candidate=v2", 200),
    "/online": ("/online", 200),
    "/online/{name:path}/{version}": ("/online/refund-policy/v0", 404),
    "/components": ("/components", 200),
}
# Every action of the UI (a route for any method but GET): the paths that reach it, with the
# form a reviewer would post. A route added without an entry here fails
# test_every_route_is_listed, so no action escapes the viewer's test. ``{case}`` is the
# candidate's id.
ACTIONS: Final = {
    ("POST", "/traces/{trace_id:path}/notes"): [
        ("/traces/t-hours-1/notes", {"text": "slow", "author": "vi"})
    ],
    ("POST", "/traces/{trace_id:path}/labels"): [
        ("/traces/t-hours-1/labels", {"label": "hours_wrong", "who": "vi", "severity": "low"})
    ],
    ("POST", "/clusters/{cluster_id}/promote"): [(f"/clusters/{CLUSTER_ID}/promote", {})],
    ("POST", "/review/{case_id}/{decision}"): [
        ("/review/{case}/edit", {"proposals": PROPOSALS}),
        ("/review/{case}/approve", {"reviewer": "vi"}),
        ("/review/{case}/reject", {"reviewer": "vi", "reason": "no"}),
    ],
}
# Open to all: signing in, with whichever token.
SIGN_IN: Final = ("POST", "/login")


@dataclass
class Roles:
    app: FastAPI
    seeded: Seeded
    secret: str  # the form secret, as a reviewer's page shows it

    def client(self, token: str | None = None) -> TestClient:
        """A client signed in with ``token`` through the sign-in form (None: not signed in)."""
        client = TestClient(self.app)
        if token is not None:
            signed = client.post("/login", data={"token": token}, follow_redirects=False)
            assert signed.headers["location"] == "/traces"
        return client

    def state(self) -> tuple[object, ...]:
        """Everything an action could change: notes, findings, clusters, the dataset file."""
        store, dataset = self.seeded.store, self.seeded.dataset
        return (
            [(n.text, n.author) for n in store.notes("t-hours-1")],
            [(f.label, f.source) for f in store.findings(trace_id="t-hours-1")],
            [(c.cluster_id, c.case_id) for c in store.clusters(LABEL)],
            dataset.read_bytes() if dataset.exists() else None,
        )


@pytest.fixture
def roles(seeded: Seeded) -> Iterator[Roles]:
    settings = UiSettings(
        token=WRITE,
        read_token=READ,
        dataset=seeded.dataset,
        runs_dir=seeded.runs,
        reviewer="ana",
    )
    app = create_ui_app(seeded.store, settings)
    with TestClient(app) as reviewer:
        page = reviewer.get("/traces/t-hours-1", headers={"Authorization": f"Bearer {WRITE}"})
        found = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert found is not None
        yield Roles(app, seeded, found[1])


def _routes(app: FastAPI) -> set[tuple[str, str]]:
    return {
        (method, route.path)
        for route in app.routes
        if isinstance(route, APIRoute)
        for method in route.methods
    }


def test_every_route_is_listed(roles: Roles) -> None:
    routes = _routes(roles.app)
    assert {route for route in routes if route[0] == "GET"} == {("GET", p) for p in PAGES}
    assert {route for route in routes if route[0] != "GET"} == {*ACTIONS, SIGN_IN}


def test_a_viewer_sees_every_page_without_a_form(roles: Roles) -> None:
    write_candidates(roles.seeded.store, roles.seeded.dataset)
    viewer = roles.client(READ)
    for path, status in PAGES.values():
        response = viewer.get(path, follow_redirects=False)
        assert response.status_code == status, path
        assert 'method="post"' not in response.text or path == "/login", path
        assert roles.secret not in response.text, path
    trace = Texts(viewer.get("/traces/t-hours-1").text).texts
    assert "t-hours-1" in trace["trace-input"][0]
    assert trace["read-only"] == ["read-only"]
    assert "adding a note or a label" in trace["read-only-note"][0]
    review = Texts(viewer.get("/review").text).texts
    assert "issue_refund" in review["proposals"][0]  # shown, as text
    assert "approving, rejecting or editing" in review["read-only-note"][0]
    findings = Texts(viewer.get("/findings").text).texts
    assert len(findings["cluster-row"]) == 1
    assert "promote-form" not in findings
    assert "promoting a cluster" in findings["read-only-note"][0]


@pytest.mark.parametrize("carried", ["cookie", "bearer"])
def test_every_action_is_403_to_a_viewer_and_changes_nothing(roles: Roles, carried: str) -> None:
    case_id = write_candidates(roles.seeded.store, roles.seeded.dataset)
    before = roles.state()
    viewer = roles.client(READ if carried == "cookie" else None)
    headers = {"Authorization": f"Bearer {READ}"} if carried == "bearer" else {}
    for samples in ACTIONS.values():
        for path, form in samples:
            url = path.format(case=case_id)
            data = {"csrf": roles.secret, **form}
            refused = viewer.post(url, data=data, headers=headers, follow_redirects=False)
            assert refused.status_code == 403, url
            assert "this token is read-only" in refused.text
    assert roles.state() == before
    assert viewer.get("/traces", headers=headers).status_code == 200  # it still reads


def test_a_reviewer_takes_every_action(roles: Roles) -> None:
    reviewer = roles.client(WRITE)
    page = reviewer.get("/traces/t-hours-1").text
    assert 'data-testid="read-only"' not in page
    assert 'data-testid="note-form"' in page

    def act(url: str, form: dict[str, str], **headers: str) -> str:
        data = {"csrf": roles.secret, **form}
        response = reviewer.post(url, data=data, headers=headers, follow_redirects=True)
        assert response.status_code == 200, url
        assert 'data-testid="flash-error"' not in response.text, response.text
        return response.text

    (note_path, note), *_ = ACTIONS["POST", "/traces/{trace_id:path}/notes"]
    act(note_path, note)
    assert [(n.text, n.author) for n in roles.seeded.store.notes("t-hours-1")] == [("slow", "vi")]
    (label_path, label), *_ = ACTIONS["POST", "/traces/{trace_id:path}/labels"]
    # A bearer header with no cookie acts too: a fresh client.
    bearer = TestClient(roles.app)
    labelled = bearer.post(
        label_path,
        data={"csrf": roles.secret, **label},
        headers={"Authorization": f"Bearer {WRITE}"},
        follow_redirects=False,
    )
    assert labelled.status_code == 303
    (finding,) = roles.seeded.store.findings(trace_id="t-hours-1")
    assert (finding.label, finding.source) == ("hours_wrong", "human:vi")
    (promote_path, _), *_ = ACTIONS["POST", "/clusters/{cluster_id}/promote"]
    assert "added to" in act(promote_path, {})
    (case,) = load_dataset(roles.seeded.dataset).cases
    edit, approve, _ = ACTIONS["POST", "/review/{case_id}/{decision}"]
    act(edit[0].format(case=case.id), edit[1])
    assert "approve saved" in act(approve[0].format(case=case.id), approve[1])
    (approved,) = load_dataset(roles.seeded.dataset).cases
    assert (approved.review_status, approved.reviewed_by) == ("approved", "vi")
    assert approved.expected_tools == ["verify_identity", "issue_refund"]
    assert roles.seeded.store.clusters(LABEL)[0].case_id == case.id


def test_a_wrong_token_is_401_and_no_token_is_sent_to_sign_in(roles: Roles) -> None:
    before = roles.state()
    nobody = roles.client()
    for headers in ({"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {WRITE}"}):
        page = nobody.get("/traces", headers=headers)
        assert (page.status_code, page.headers["www-authenticate"]) == (401, "Bearer")
        assert "t-hours-1" not in page.text
        action = nobody.post(
            "/traces/t-hours-1/notes",
            data={"csrf": roles.secret, "text": "x", "author": "mallory"},
            headers=headers,
        )
        assert action.status_code == 401
    for method in ("GET", "POST"):
        refused = nobody.request(method, "/traces/t-hours-1/notes", follow_redirects=False)
        assert (refused.status_code, refused.headers["location"]) == (303, "/login")
    nobody.cookies.set(TOKEN_COOKIE, WRITE)  # the token itself is not the sign-in cookie
    assert nobody.get("/traces", follow_redirects=False).status_code == 303
    wrong = nobody.post("/login", data={"token": "guess"}, follow_redirects=False)
    assert wrong.headers["location"] == "/login?failed=1"
    assert "set-cookie" not in wrong.headers
    assert roles.state() == before


def test_the_sign_in_cookie_is_not_the_token_and_a_viewer_cannot_raise_it(roles: Roles) -> None:
    cookie = roles.client(READ).cookies[TOKEN_COOKIE]
    assert READ not in cookie
    assert WRITE not in cookie
    assert roles.client(WRITE).cookies[TOKEN_COOKIE] != cookie
    before = roles.state()
    # What a viewer could make of what it has: none is a cookie at all, let alone a reviewer's.
    for forged in (f"{cookie}:write", f"write:{cookie}", "write", cookie.upper(), READ):
        forger = TestClient(roles.app, cookies={TOKEN_COOKIE: forged})
        response = forger.post(
            "/traces/t-hours-1/notes",
            data={"csrf": roles.secret, "text": "forged", "author": "vi"},
            follow_redirects=False,
        )
        assert (response.status_code, response.headers["location"]) == (303, "/login"), forged
    viewer = TestClient(roles.app, cookies={TOKEN_COOKIE: cookie})
    assert viewer.get("/traces").status_code == 200  # the real one reads, as a viewer
    assert viewer.post("/traces/t-hours-1/notes", data={"csrf": roles.secret}).status_code == 403
    assert roles.state() == before
