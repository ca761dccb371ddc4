"""One trace: its spans as a tree with their timings as a waterfall (a simulated user's turns
marked as such, with their message), each tool call's arguments, result and error, the
conversation with a simulated user, the model calls' messages, usage and cost, its findings and
notes, and the forms that add a note or a label. Everything from the trace is escaped as text."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from trailcheck.report.html_markup import Html, el, join, void
from trailcheck.report.trace_view import format_duration
from trailcheck.store.observations import Note
from trailcheck.trace import Finding, Message, Span, Trace
from trailcheck.trace.finding import SEVERITIES
from trailcheck.trace.tool_calls import ToolCall
from trailcheck.ui.attribution_view import span_anchor
from trailcheck.ui.conversation_view import conversation_section, turn_note
from trailcheck.ui.layout import format_ns, post_form, read_only_note
from trailcheck.ui.traces_page import trace_href

__all__ = ["render_trace_page"]


def _json(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def _waterfall(trace: Trace) -> Html:
    spans = list(trace.tree)  # depth-first, siblings in start order
    if not spans:
        return el("p", "No spans.", class_="meta")
    origin = min(span.start_ns for span in spans)
    end = max((span.end_ns or span.start_ns) for span in spans)
    total = max(end - origin, 1)
    rows = []
    for span in spans:
        left = 100 * (span.start_ns - origin) / total
        width = 100 * ((span.end_ns or span.start_ns) - span.start_ns) / total
        bar = el(
            "div",
            el(
                "div",
                class_="span-bar failed" if span.failed else "span-bar",
                style=f"left:{left:.2f}%;width:{width:.2f}%",
            ),
            class_="track",
        )
        indent = "\u00a0\u00a0" * trace.tree.depth(span.span_id)
        rows.append(
            el(
                "tr",
                el("td", indent + span.name, turn_note(span), class_="name"),
                el("td", span.kind),
                el("td", "error" if span.failed else span.status.code, class_=_status(span)),
                el(
                    "td",
                    "not ended" if span.duration_ns is None else format_duration(span.duration_ns),
                ),
                el("td", bar, class_="bar"),
                data_testid="span-row",
                id=span_anchor(span.span_id),
            )
        )
    header = el("tr", *(el("th", name) for name in ("span", "kind", "status", "duration", "")))
    return el("table", el("thead", header), el("tbody", *rows), class_="waterfall")


def _status(span: Span) -> str | None:
    return "error" if span.failed else None


def _call(call: ToolCall) -> Html:
    outcome = el("span", "error", class_="error") if call.error else "ok"
    parts = [
        el("summary", el("code", call.name), " — ", outcome),
        el("h4", "arguments"),
        el("pre", _json(call.arguments), data_testid="call-arguments"),
        el("h4", "result"),
        el("pre", _json(call.result), data_testid="call-result"),
    ]
    if call.error:
        parts += [el("h4", "error"), el("pre", call.error, class_="error")]
    return el("details", *parts, class_="call", open=True, data_testid="tool-call")


def _message(message: Message) -> Html:
    calls = [f"{c.name}({_json(c.arguments)})" for c in message.tool_calls]
    return el(
        "tr",
        el("td", message.role),
        el("td", el("pre", message.text or "\n".join(calls)), data_testid="message-text"),
    )


def _messages(trace: Trace) -> Html:
    blocks: list[Html] = []
    if isinstance(trace.input, list):
        blocks.append(el("table", el("caption", "input"), *map(_message, trace.input)))
    for span in trace.spans:
        if span.llm is None:
            continue
        shown = [*(span.llm.input_messages or [])[-1:], *(span.llm.output_messages or [])]
        if shown:
            caption = f"{span.name} ({span.llm.model or 'model'}): last input, then output"
            blocks.append(el("table", el("caption", caption), *map(_message, shown)))
    return join(blocks) if blocks else el("p", "No messages recorded.", class_="meta")


def _usage(trace: Trace) -> Html:
    rows: list[Html] = []
    for span in trace.spans:
        usage = span.llm.usage if span.llm is not None else None
        if usage is not None:
            rows.append(
                _usage_row(span.name, usage.input_tokens, usage.output_tokens, usage.cost_usd)
            )
    if trace.usage is not None:
        rows.append(
            _usage_row(
                "trace total",
                trace.usage.input_tokens,
                trace.usage.output_tokens,
                trace.usage.cost_usd,
            )
        )
    if not rows:
        return el("p", "No usage recorded.", class_="meta")
    header = el(
        "tr", *(el("th", name) for name in ("where", "input tokens", "output tokens", "cost (USD)"))
    )
    return el(
        "table", el("thead", header), el("tbody", *rows), class_="numbers", data_testid="usage"
    )


def _usage_row(
    where: str, tokens_in: int | None, tokens_out: int | None, cost: float | None
) -> Html:
    shown = [str(value) if value is not None else "-" for value in (tokens_in, tokens_out)]
    return el(
        "tr",
        el("td", where),
        *(el("td", s) for s in shown),
        el("td", "-" if cost is None else f"{cost:.6f}"),
    )


def _findings(findings: Sequence[Finding]) -> Html:
    if not findings:
        return el("p", "No findings.", class_="meta")
    rows = [
        el(
            "tr",
            el("td", el("span", f.label, class_="label")),
            el("td", f.severity),
            el("td", f.reason, class_="text"),
            el("td", f.source),
            data_testid="finding",
        )
        for f in findings
    ]
    return el("table", *rows)


def _notes(notes: Sequence[Note]) -> Html:
    if not notes:
        return el("p", "No notes.", class_="meta")
    return el(
        "ul",
        *(
            el(
                "li",
                el("span", note.text, data_testid="note-text"),
                " — ",
                el("span", note.author, class_="meta"),
            )
            for note in notes
        ),
    )


def _forms(trace_id: str, secret: str | None, reviewer: str) -> Html:
    if secret is None:
        return read_only_note("adding a note or a label")
    base = trace_href(trace_id)
    note = post_form(
        base + "/notes",
        secret,
        void(
            "input",
            name="text",
            required=True,
            placeholder="note",
            size=50,
            data_testid="note-input",
        ),
        void(
            "input",
            name="author",
            required=True,
            value=reviewer,
            placeholder="your name",
            data_testid="note-author",
        ),
        el("button", "Add note", type="submit", data_testid="note-submit"),
        testid="note-form",
    )
    severities = el(
        "select", *(el("option", s, selected=s == "medium") for s in SEVERITIES), name="severity"
    )
    label = post_form(
        base + "/labels",
        secret,
        void(
            "input",
            name="label",
            required=True,
            placeholder="failure_mode_label",
            pattern="[a-z][a-z0-9_]*",
            data_testid="label-input",
        ),
        severities,
        void(
            "input",
            name="who",
            required=True,
            value=reviewer,
            placeholder="your name",
            data_testid="label-who",
        ),
        el("button", "Add label", type="submit", data_testid="label-submit"),
        testid="label-form",
    )
    return join([note, label])


def render_trace_page(
    trace: Trace,
    findings: Sequence[Finding],
    notes: Sequence[Note],
    *,
    secret: str | None,
    reviewer: str,
) -> Html:
    """The trace page; ``secret`` is the form secret, None for a viewer (no forms)."""
    duration = trace.duration_ns
    facts = el(
        "table",
        el(
            "tr",
            el("th", "input"),
            el("td", el("pre", trace.input_text), data_testid="trace-input"),
        ),
        el(
            "tr",
            el("th", "final output"),
            el("td", el("pre", trace.final_text), data_testid="final-output"),
        ),
        el(
            "tr",
            el("th", "started"),
            el("td", format_ns(min((s.start_ns for s in trace.spans), default=None))),
        ),
        el(
            "tr",
            el("th", "duration"),
            el("td", "-" if duration is None else format_duration(duration)),
        ),
        el("tr", el("th", "metadata"), el("td", el("pre", _json(trace.metadata)))),
    )
    return join(
        [
            facts,
            el("section", el("h2", "Findings"), _findings(findings), id="findings"),
            el(
                "section",
                el("h2", "Notes"),
                _notes(notes),
                _forms(trace.trace_id, secret, reviewer),
                id="notes",
            ),
            el("section", el("h2", "Spans and timings"), _waterfall(trace), id="spans"),
            el(
                "section",
                el("h2", "Tool calls"),
                join(map(_call, trace.tool_calls)) or el("p", "No tool calls.", class_="meta"),
                id="tools",
            ),
            conversation_section(trace),
            el("section", el("h2", "Messages"), _messages(trace), id="messages"),
            el("section", el("h2", "Usage and cost"), _usage(trace), id="usage"),
        ]
    )
