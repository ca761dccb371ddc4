"""The frame every page shares: head, navigation, the message an action left, and small pieces
(times, the hidden form secret, what a viewer sees where a form would be). Markup is built with
the report's escaping builder (:mod:`trailcheck.report.html_markup`): a string from a trace is
always escaped, and only what ``el`` made passes through as markup."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

from trailcheck.report.html_markup import Html, el, join, void

__all__ = ["PAGES", "csrf_field", "format_ns", "page", "post_form", "read_only_note"]

PAGES: Final = (
    ("traces", "/traces", "Traces"),
    ("findings", "/findings", "Findings & clusters"),
    ("review", "/review", "Review queue"),
    ("runs", "/runs", "Runs"),
    ("online", "/online", "Online"),
    ("components", "/components", "Components"),
)


def format_ns(moment_ns: int | None) -> str:
    """A time in nanoseconds as UTC to the millisecond; ``-`` when unknown."""
    if moment_ns is None:
        return "-"
    moment = datetime.fromtimestamp(moment_ns / 1e9, tz=UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def csrf_field(secret: str) -> Html:
    return void("input", type="hidden", name="csrf", value=secret)


def post_form(action: str, secret: str, *fields: Html, testid: str, css: str = "inline") -> Html:
    """A form posting to ``action`` with the form secret, ``fields`` and whatever they hold."""
    return el(
        "form",
        csrf_field(secret),
        *fields,
        method="post",
        action=action,
        class_=css,
        data_testid=testid,
    )


def read_only_note(what: str) -> Html:
    """What a viewer (read-only token) sees where the forms to ``what`` would be."""
    return el(
        "p",
        f"Read-only: {what} needs the read-write token.",
        class_="meta",
        data_testid="read-only-note",
    )


def _flash(done: str | None, failed: str | None) -> Html | None:
    if failed:
        return el("p", failed, class_="flash bad", role="alert", data_testid="flash-error")
    if done:
        return el("p", done, class_="flash", role="status", data_testid="flash")
    return None


def page(
    title: str,
    current: str,
    *body: Html | None,
    done: str | None = None,
    failed: str | None = None,
    read_only: bool = False,
) -> str:
    """A whole document: ``current`` is the navigation entry to mark; ``read_only`` says in
    the navigation that the reader signed in with the read-only token."""
    links = [
        el("a", text, href=href, class_="here" if key == current else None)
        for key, href, text in PAGES
    ]
    role = el("span", "read-only", class_="meta", data_testid="read-only") if read_only else None
    nav = el("nav", el("span", "trailcheck", class_="brand"), *links, role)
    head = el(
        "head",
        void("meta", charset="utf-8"),
        void("meta", name="viewport", content="width=device-width, initial-scale=1"),
        el("title", f"{title} · trailcheck"),
        void("link", rel="stylesheet", href="/static/ui.css"),
    )
    main = el("main", el("h1", title), _flash(done, failed), join(body))
    return "<!DOCTYPE html>\n" + el("html", head, el("body", nav, main), lang="en") + "\n"
