"""The UI's pages (GET): the trace list and a trace, findings and clusters, the review queue,
runs, online scoring and an online evaluator's failing traces, and the components. Each handler
is a plain function, so FastAPI runs its store reads in a worker thread. A page shows its forms
only to a request that may act (``form_secret``: None for a viewer)."""

from __future__ import annotations

from fastapi import FastAPI, Request, Response

from trailcheck.components import component_rates
from trailcheck.online.alert_log import fired_alerts
from trailcheck.online.results import failing_scores, online_status
from trailcheck.report.html_markup import el
from trailcheck.store.browse import browse_traces, label_days
from trailcheck.ui.components_page import render_components_page
from trailcheck.ui.components_query import read_components_view
from trailcheck.ui.context import UiContext, html_response
from trailcheck.ui.filters import read_list_request
from trailcheck.ui.findings_page import render_findings_page
from trailcheck.ui.layout import page
from trailcheck.ui.online_failing_page import render_failing_page
from trailcheck.ui.online_page import render_online_page
from trailcheck.ui.online_query import read_online_request
from trailcheck.ui.review_page import render_review_page
from trailcheck.ui.runs import read_runs
from trailcheck.ui.runs_page import render_runs_page
from trailcheck.ui.trace_page import render_trace_page
from trailcheck.ui.traces_page import render_trace_list

__all__ = ["add_page_routes"]


def add_trace_pages(app: FastAPI, ui: UiContext) -> None:
    @app.get("/traces")
    def trace_list(request: Request) -> Response:
        wanted = read_list_request(request.query_params)
        found = browse_traces(
            ui.store.engine,
            wanted.where,
            after=wanted.after,
            limit=ui.settings.page_size,
            window=ui.settings.search_window,
        )
        return ui.shown("Traces", "traces", render_trace_list(wanted, found), request)

    @app.get("/traces/{trace_id:path}")
    def trace_page(trace_id: str, request: Request) -> Response:
        trace = ui.stored_trace(trace_id)
        if trace is None:
            missing = el("p", f"No trace {trace_id!r} in the store.", data_testid="not-found")
            return html_response(page("Not found", "traces", missing), 404)
        body = render_trace_page(
            trace,
            ui.store.findings(trace_id=trace_id),
            ui.store.notes(trace_id),
            secret=ui.form_secret(request),
            reviewer=ui.settings.reviewer,
        )
        return ui.shown(f"Trace {trace_id}", "traces", body, request)


def add_online_pages(app: FastAPI, ui: UiContext) -> None:
    @app.get("/online")
    def online_page(request: Request) -> Response:
        now = ui.settings.clock()
        wanted = read_online_request(request.query_params, now)
        status = online_status(
            ui.store.engine,
            now_ns=now,
            since_ns=wanted.since_ns,
            window_ns=wanted.window_ns,
            window_text=wanted.window,
        )
        alerts = fired_alerts(ui.store.engine, since_ns=wanted.since_ns)
        body = render_online_page(wanted, status, alerts)
        return ui.shown("Online scoring", "online", body, request)

    # An evaluator's name may hold "/" (its version never does), so the name takes the rest.
    @app.get("/online/{name:path}/{version}")
    def failing_page(name: str, version: str, request: Request) -> Response:
        now = ui.settings.clock()
        wanted = read_online_request(request.query_params, now)
        found = online_status(
            ui.store.engine, now_ns=now, since_ns=wanted.since_ns, versions=[(name, version)]
        ).evaluators
        if not found:
            missing = el(
                "p", f"No online evaluator {name}@{version} in the store.", data_testid="not-found"
            )
            return html_response(page("Not found", "online", missing), 404)
        failing = failing_scores(
            ui.store.engine,
            name,
            version,
            since_ns=wanted.since_ns,
            after=wanted.after,
            limit=ui.settings.page_size,
        )
        body = render_failing_page(found[0], wanted, failing)
        return ui.shown(f"Failing traces of {name}@{version}", "online", body, request)


def add_components_page(app: FastAPI, ui: UiContext) -> None:
    @app.get("/components")
    def components_page(request: Request) -> Response:
        wanted = read_components_view(request.query_params, ui.settings.clock())
        since_ns = wanted.period.since_ns
        rates = component_rates(
            ui.store.span_scores(since_ns=since_ns),
            since_ns=since_ns,
            window_ns=wanted.period.window_ns,
        )
        body = render_components_page(wanted, rates)
        return ui.shown("Components", "components", body, request)


def add_page_routes(app: FastAPI, ui: UiContext) -> None:
    add_trace_pages(app, ui)
    add_online_pages(app, ui)
    add_components_page(app, ui)

    @app.get("/findings")
    def findings_page(request: Request) -> Response:
        body = render_findings_page(
            label_days(ui.store.engine),
            ui.store.clusters(),
            secret=ui.form_secret(request),
            dataset=str(ui.dataset.path),
        )
        return ui.shown("Findings & clusters", "findings", body, request)

    @app.get("/review")
    def review_page(request: Request) -> Response:
        body = render_review_page(
            ui.dataset.read(),
            str(ui.dataset.path),
            ui.stored_trace,
            secret=ui.form_secret(request),
            reviewer=ui.settings.reviewer,
        )
        return ui.shown("Review queue", "review", body, request)

    @app.get("/runs")
    def runs_page(request: Request) -> Response:
        runs = read_runs(ui.settings.runs_dir)
        baseline = request.query_params.get("baseline") or None
        candidate = request.query_params.get("candidate") or None
        return ui.shown("Runs", "runs", render_runs_page(runs, baseline, candidate), request)
