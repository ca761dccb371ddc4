"""The web UI over a store: a FastAPI app of server-rendered pages and plain HTML forms.

Every page is HTML built on the server with escaping that cannot be forgotten
(:mod:`trailcheck.report.html_markup`, as the HTML report); every action is a form that posts
and redirects back (POST, redirect, GET), so everything works without JavaScript and none is
shipped; the one style sheet is served from ``/static``, and the Content-Security-Policy lets
the browser fetch nothing from elsewhere.

Each response carries a ``Server-Timing`` header with the time the server spent on it (what
``benchmarks/ui_speed.py`` measures). Access (tokens and their roles, the sign-in cookie, the
form secret) is :mod:`.access`; the guard here applies it to every request before its route:
without a token, a request whose ``Host`` is not loopback is refused (403: DNS rebinding);
the sign-in page and the style sheet are open; otherwise a request with no token is sent to
sign in (401 when it offered a wrong bearer token), and one whose token is read-only may only
read (GET, HEAD): any other method, on any route, is 403 before the route runs, so an action
added later is refused to viewers without a check of its own.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from importlib.resources import files
from typing import Final

from fastapi import FastAPI, Request, Response
from fastapi.responses import RedirectResponse

from trailcheck.serve.security import Role, Tokens
from trailcheck.store import Store
from trailcheck.ui.access import TOKEN_COOKIE, Access
from trailcheck.ui.action_routes import add_action_routes
from trailcheck.ui.actions import DatasetFile
from trailcheck.ui.context import UiContext, UiSettings, html_response
from trailcheck.ui.layout import page
from trailcheck.ui.page_routes import add_page_routes

__all__ = ["UiSettings", "create_ui_app"]

_CSS: Final = files("trailcheck.ui").joinpath("static", "ui.css").read_bytes()
# Reachable without the token: the sign-in page, and the style sheet it uses.
_OPEN_PATHS: Final = ("/login", "/static/")
# What a viewer may do: read. Every other method needs the read-write token.
_READING: Final = frozenset({"GET", "HEAD"})
_HEADERS: Final = {
    # No inline script may run, and nothing loads from another origin.
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def create_ui_app(store: Store, settings: UiSettings | None = None) -> FastAPI:
    """The UI app over ``store`` (opened and closed by the caller)."""
    settings = settings or UiSettings()
    access = Access(Tokens(settings.token, settings.read_token))
    ui = UiContext(store, settings, access, DatasetFile(settings.dataset))
    app = FastAPI(title="trailcheck UI", docs_url=None, redoc_url=None, openapi_url=None)

    @app.middleware("http")
    async def guard(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        started = time.perf_counter()
        refused = _refusal(access, request)
        response = await call_next(request) if refused is None else refused
        response.headers.update(_HEADERS)
        response.headers["Server-Timing"] = f"app;dur={(time.perf_counter() - started) * 1000:.2f}"
        return response

    @app.get("/static/ui.css")
    def style() -> Response:
        return Response(_CSS, media_type="text/css", headers={"Cache-Control": "max-age=3600"})

    @app.get("/")
    def home() -> Response:
        return RedirectResponse("/traces", 303)

    add_page_routes(app, ui)
    add_action_routes(app, ui)
    return app


def _refusal(access: Access, request: Request) -> Response | None:
    """Why ``request`` may not reach its route, or None when it may, with its role set on
    ``request.state.role`` (what the pages read to show or hide their forms)."""
    if access.tokens.refuses_host(request.headers.get("host")):
        # Tokenless, the UI trusts that only this machine reaches it: a page whose name was
        # rebound to 127.0.0.1 would otherwise read every trace (serve.security).
        said = "without a token this UI answers only requests to localhost or 127.0.0.1"
        return html_response(page("Refused", "", failed=said), 403)
    if request.url.path.startswith(_OPEN_PATHS):
        return None
    authorization = request.headers.get("authorization")
    role = access.role(authorization, request.cookies.get(TOKEN_COOKIE))
    if role is None and authorization is not None:
        wrong = html_response(page("Refused", "", failed="missing or wrong bearer token"), 401)
        wrong.headers["WWW-Authenticate"] = "Bearer"
        return wrong
    if role is None:
        return RedirectResponse("/login", 303)
    if request.method not in _READING and not role.covers(Role.WRITE):
        said = "this token is read-only: it may look, not change anything"
        return html_response(page("Refused", "", failed=said, read_only=True), 403)
    request.state.role = role
    return None
