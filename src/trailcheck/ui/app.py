"""The web UI over a store: a FastAPI app of server-rendered pages and plain HTML forms.

Every page is HTML built on the server with escaping that cannot be forgotten
(:mod:`trailcheck.report.html_markup`, as the HTML report); every action is a form that posts
and redirects back (POST, redirect, GET), so everything works without JavaScript and none is
shipped; the one style sheet is served from ``/static``, and the Content-Security-Policy lets
the browser fetch nothing from elsewhere.

Each response carries a ``Server-Timing`` header with the time the server spent on it (what
``benchmarks/ui_speed.py`` measures). Access (token, form secret) is :mod:`.access`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from importlib.resources import files
from typing import Final

from fastapi import FastAPI, Request, Response
from fastapi.responses import RedirectResponse

from trailcheck.store import Store
from trailcheck.ui.access import TOKEN_COOKIE, Access
from trailcheck.ui.action_routes import add_action_routes
from trailcheck.ui.actions import DatasetFile
from trailcheck.ui.context import UiContext, UiSettings
from trailcheck.ui.page_routes import add_page_routes

__all__ = ["UiSettings", "create_ui_app"]

_CSS: Final = files("trailcheck.ui").joinpath("static", "ui.css").read_bytes()
# Reachable without the token: the sign-in page, and the style sheet it uses.
_OPEN_PATHS: Final = ("/login", "/static/")
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
    access = Access(settings.token)
    ui = UiContext(store, settings, access, DatasetFile(settings.dataset))
    app = FastAPI(title="trailcheck UI", docs_url=None, redoc_url=None, openapi_url=None)

    @app.middleware("http")
    async def guard(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        started = time.perf_counter()
        allowed = request.url.path.startswith(_OPEN_PATHS) or access.allows(
            request.headers.get("authorization"), request.cookies.get(TOKEN_COOKIE)
        )
        response = await call_next(request) if allowed else RedirectResponse("/login", 303)
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
