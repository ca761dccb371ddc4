"""What every route of the UI shares: the store, the settings, access, the flashed lines and
the dataset file; the role of the request (set by the app's guard); and the two shapes of a
response, a page and an action's redirect."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from trailcheck.errors import TrailcheckError
from trailcheck.report.html_markup import Html
from trailcheck.serve.security import Role
from trailcheck.store import Store, UnknownTraceError
from trailcheck.store.browse import SCAN_WINDOW
from trailcheck.trace import Trace
from trailcheck.ui.access import Access
from trailcheck.ui.actions import DatasetFile
from trailcheck.ui.flash import Flashes
from trailcheck.ui.forms import parse_form
from trailcheck.ui.layout import page

__all__ = ["UiContext", "UiSettings", "html_response", "request_role"]


@dataclass(frozen=True)
class UiSettings:
    """``token``: the read-write token (a reviewer's), ``read_token``: the read-only token (a
    viewer's); when either is set, every request needs one (:mod:`trailcheck.ui.access`);
    ``dataset``: the file promotion adds candidates to and the review queue decides in;
    ``runs_dir``: where run reports are; ``reviewer``: the name the forms start with;
    ``page_size``: traces per list page; ``search_window``: the most traces a filtered list
    reads per page (:data:`~trailcheck.store.browse.SCAN_WINDOW`); ``clock``: now, in
    nanoseconds since the epoch, what the online page's queue lag and ``since=24h`` are read
    against."""

    token: str | None = None
    read_token: str | None = None
    dataset: Path = Path("candidates.yaml")
    runs_dir: Path | None = None
    reviewer: str = ""
    page_size: int = 50
    search_window: int = SCAN_WINDOW
    clock: Callable[[], int] = time.time_ns


def request_role(request: Request) -> Role:
    """The role the app's guard found for ``request``: read-only unless it said otherwise, so
    a route the guard did not see shows no forms."""
    role = getattr(request.state, "role", None)
    return role if isinstance(role, Role) else Role.READ


def html_response(body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(body, status_code=status)


# An action: the posted form in, the line to show after the redirect out.
Action = Callable[[dict[str, str]], str]


@dataclass
class UiContext:
    store: Store
    settings: UiSettings
    access: Access
    dataset: DatasetFile
    flashes: Flashes = field(default_factory=Flashes)

    def shown(self, title: str, current: str, body: Html, request: Request) -> HTMLResponse:
        """A page, with the line the action that redirected here left."""
        flash = self.flashes.take(request.query_params.get("flash"))
        done = flash.text if flash and not flash.failed else None
        failed = flash.text if flash and flash.failed else None
        read_only = not request_role(request).covers(Role.WRITE)
        return html_response(
            page(title, current, body, done=done, failed=failed, read_only=read_only)
        )

    def form_secret(self, request: Request) -> str | None:
        """The form secret for a page's forms; None for a viewer, whose pages show no forms."""
        return self.access.csrf if request_role(request).covers(Role.WRITE) else None

    async def act(self, request: Request, back: str, action: Action) -> Response:
        """Check the form secret, run ``action`` off the event loop, redirect to ``back`` with
        what it said (or why it was refused)."""
        form = parse_form(await request.body())
        if not self.access.posted_by_ui(form.get("csrf")):
            refused = page("Refused", "", failed="this form is not from this UI: reload the page")
            return html_response(refused, 403)
        try:
            said, failed = await run_in_threadpool(action, form), False
        except TrailcheckError as error:
            said, failed = str(error), True
        key = self.flashes.leave(said, failed=failed)
        joiner = "&" if "?" in back else "?"
        return RedirectResponse(f"{back}{joiner}flash={key}", 303)

    def stored_trace(self, trace_id: str) -> Trace | None:
        try:
            return self.store.get_trace(trace_id)
        except UnknownTraceError:
            return None
