"""The UI's actions (POST, then a redirect back): add a note or a label to a trace, promote a
cluster, decide a candidate; and signing in with a token. Only the read-write token reaches an
action: the app's guard refuses a viewer before the route runs (:mod:`trailcheck.ui.app`)."""

from __future__ import annotations

from fastapi import FastAPI, Request, Response
from fastapi.responses import RedirectResponse

from trailcheck.errors import UsageError
from trailcheck.trace.finding import SEVERITIES, Severity
from trailcheck.ui.access import TOKEN_COOKIE
from trailcheck.ui.actions import promote_cluster
from trailcheck.ui.context import UiContext, html_response
from trailcheck.ui.forms import parse_form, required
from trailcheck.ui.sign_in import render_sign_in
from trailcheck.ui.traces_page import trace_href

__all__ = ["add_action_routes"]


def _severity(form: dict[str, str]) -> Severity:
    chosen = form.get("severity", "medium")
    for severity in SEVERITIES:
        if severity == chosen:
            return severity
    raise UsageError(f"severity {chosen!r} is not one of {', '.join(SEVERITIES)}")


def add_trace_actions(app: FastAPI, ui: UiContext) -> None:
    @app.post("/traces/{trace_id:path}/notes")
    async def add_note(trace_id: str, request: Request) -> Response:
        def note(form: dict[str, str]) -> str:
            ui.store.add_note(trace_id, required(form, "text"), required(form, "author"))
            return "note added"

        return await ui.act(request, trace_href(trace_id), note)

    @app.post("/traces/{trace_id:path}/labels")
    async def add_label(trace_id: str, request: Request) -> Response:
        def label(form: dict[str, str]) -> str:
            name, who = required(form, "label"), required(form, "who")
            found = ui.store.label(trace_id, name, who, severity=_severity(form))
            return f"labelled {found.label} ({found.source})"

        return await ui.act(request, trace_href(trace_id), label)


def add_sign_in(app: FastAPI, ui: UiContext) -> None:
    @app.get("/login")
    def sign_in_page(request: Request) -> Response:
        return html_response(render_sign_in(failed=request.query_params.get("failed") == "1"))

    @app.post("/login")
    async def sign_in(request: Request) -> Response:
        cookie = ui.access.sign_in(parse_form(await request.body()).get("token", ""))
        if cookie is None:
            return RedirectResponse("/login?failed=1", 303)
        response = RedirectResponse("/traces", 303)
        response.set_cookie(TOKEN_COOKIE, cookie, httponly=True, samesite="strict")
        return response


def add_action_routes(app: FastAPI, ui: UiContext) -> None:
    add_trace_actions(app, ui)
    add_sign_in(app, ui)

    @app.post("/clusters/{cluster_id}/promote")
    async def promote(cluster_id: str, request: Request) -> Response:
        return await ui.act(
            request, "/findings", lambda _: promote_cluster(ui.store, cluster_id, ui.dataset)
        )

    @app.post("/review/{case_id}/{decision}")
    async def decide(case_id: str, decision: str, request: Request) -> Response:
        return await ui.act(
            request, "/review", lambda form: ui.dataset.decide(ui.store, case_id, decision, form)
        )
