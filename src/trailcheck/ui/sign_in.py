"""The sign-in page of a UI started with a token: one field, posted to ``/login``, which sets
the sign-in cookie of the token's role (:mod:`trailcheck.ui.access`)."""

from __future__ import annotations

from trailcheck.report.html_markup import el, void
from trailcheck.ui.layout import page

__all__ = ["render_sign_in"]


def render_sign_in(*, failed: bool) -> str:
    form = el(
        "form",
        el(
            "label",
            "token ",
            void("input", type="password", name="token", required=True, data_testid="token"),
        ),
        el("button", "Sign in", type="submit"),
        method="post",
        action="/login",
        class_="inline",
    )
    note = el(
        "p",
        "This UI was started with a token: the read-write token (--token) may review and act,"
        " the read-only token (--read-token) may look.",
        class_="meta",
    )
    return page("Sign in", "", note, form, failed="wrong token" if failed else None)
