"""The review queue: each candidate case, its source trace redacted as promotion redacts it
(:mod:`trailcheck.loop.redact`) beside the proposed expectations, and the forms that approve,
reject, or edit the proposals (:class:`trailcheck.ui.actions.DatasetFile`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import quote

from trailcheck.cases import Case, Dataset
from trailcheck.loop.redact import Redaction, redact_text, redact_value
from trailcheck.loop.review import proposals_text
from trailcheck.report.html_markup import Html, el, join, void
from trailcheck.trace import Trace
from trailcheck.ui.layout import post_form, read_only_note
from trailcheck.ui.traces_page import trace_href

__all__ = ["render_review_page"]

# A source trace, or None when the store does not hold it.
TraceLookup = Callable[[str], Trace | None]


def _json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)


def _redacted_trace(trace: Trace) -> Html:
    """The trace's tool calls with every text redacted: what the reviewer may see."""
    found: list[Redaction] = []
    rows = []
    for call in trace.tool_calls:
        arguments = redact_value(call.arguments, "arguments", found)
        result = redact_value(call.result, "result", found)
        error = redact_text(call.error, "error", found) if call.error else None
        rows.append(
            el(
                "tr",
                el("td", el("code", call.name)),
                el("td", el("pre", _json(arguments))),
                el(
                    "td",
                    el("pre", _json(result)),
                    el("pre", error, class_="error") if error else None,
                ),
            )
        )
    output = redact_text(trace.final_text, "final_output", found)
    head = el("tr", el("th", "tool"), el("th", "arguments"), el("th", "result"))
    return join(
        [
            el("table", el("thead", head), el("tbody", *rows))
            if rows
            else el("p", "No tool calls.", class_="meta"),
            el("h4", "final output"),
            el("pre", output, data_testid="redacted-output"),
        ]
    )


def _source(case: Case, lookup: TraceLookup) -> Html:
    if not case.source_trace_ids:
        return el("p", "No source trace.", class_="meta")
    trace_id = case.source_trace_ids[0]
    trace = lookup(trace_id)
    link = el("p", "source trace ", el("a", trace_id, href=trace_href(trace_id)), class_="meta")
    if trace is None:
        return join([link, el("p", "(not in the store)", class_="meta")])
    return join([link, _redacted_trace(trace)])


def _decisions(case: Case, secret: str | None, reviewer: str) -> Html:
    if secret is None:
        proposals = el("pre", proposals_text(case), data_testid="proposals")
        note = read_only_note("approving, rejecting or editing a candidate")
        return join([el("h3", "Proposed expectations"), proposals, note])
    base = f"/review/{quote(case.id, safe='')}"
    name = void(
        "input",
        name="reviewer",
        required=True,
        value=reviewer,
        placeholder="your name",
        data_testid="reviewer",
    )
    edit = post_form(
        base + "/edit",
        secret,
        el("textarea", proposals_text(case), name="proposals", rows=10, data_testid="proposals"),
        el("button", "Save proposals", type="submit", data_testid="edit-submit"),
        testid="edit-form",
        css="",
    )
    approve = post_form(
        base + "/approve",
        secret,
        name,
        el("button", "Approve", type="submit", data_testid="approve-submit"),
        testid="approve-form",
    )
    reject = post_form(
        base + "/reject",
        secret,
        name,
        void("input", name="reason", placeholder="why not", data_testid="reject-reason"),
        el("button", "Reject", type="submit", data_testid="reject-submit"),
        testid="reject-form",
    )
    return join([el("h3", "Proposed expectations"), edit, approve, reject])


def _candidate(case: Case, lookup: TraceLookup, secret: str | None, reviewer: str) -> Html:
    left = el(
        "div",
        el("h3", "Input (redacted)"),
        el("pre", case.input_text(), data_testid="case-input"),
        el("p", "failure modes: ", ", ".join(case.failure_modes) or "-", class_="meta"),
        _source(case, lookup),
    )
    return el(
        "section",
        el("h2", case.id),
        el("p", case.notes or "", class_="meta"),
        el("div", left, el("div", _decisions(case, secret, reviewer)), class_="columns"),
        data_testid="candidate",
        id=f"case-{case.id}",
    )


def _tally(cases: Sequence[Case]) -> str:
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.review_status] = counts.get(case.review_status, 0) + 1
    return ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))


def render_review_page(
    dataset: Dataset | None,
    path: str,
    lookup: TraceLookup,
    *,
    secret: str | None,
    reviewer: str,
) -> Html:
    """The review queue; ``secret`` is the form secret, None for a viewer (the proposals shown,
    no forms)."""
    if dataset is None:
        return el(
            "p",
            f"No candidates yet: {path} does not exist. Promote a cluster first.",
            class_="meta",
        )
    candidates = [case for case in dataset.cases if case.review_status == "candidate"]
    summary = el("p", f"{path}: version {dataset.version}; {_tally(dataset.cases)}", class_="meta")
    if not candidates:
        return join([summary, el("p", "The queue is empty.", data_testid="queue-empty")])
    return join([summary, *(_candidate(c, lookup, secret, reviewer) for c in candidates)])
