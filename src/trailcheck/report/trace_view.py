"""A terminal view of one trace: the span tree with timings, each tool call's arguments and
result, errors highlighted. Everything from the trace is shown as plain text, never as markup:
a trace is untrusted content."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from rich.tree import Tree

from trailcheck.terminal_text import shown
from trailcheck.trace import Span, Trace, parse_json_text
from trailcheck.trace.unread import unread_parts

# Long values are cut to this many characters unless the caller asks for everything.
PREVIEW_CHARS = 240


def _json_text(value: Any) -> str:
    value = parse_json_text(value)
    if isinstance(value, str):
        return value
    # Keys in recorded order, spaced for reading; non-ASCII text shown as itself.
    return json.dumps(value, ensure_ascii=False, default=str)


def _cut(text: str, full: bool) -> str:
    if full or len(text) <= PREVIEW_CHARS:
        return text
    return f"{text[:PREVIEW_CHARS]}… ({len(text) - PREVIEW_CHARS} more chars; --full shows all)"


def format_duration(nanoseconds: int) -> str:
    """``4.30 s``, ``600.0 ms``, ``0.013 ms``: three significant figures or so, readable."""
    if nanoseconds >= 1_000_000_000:
        return f"{nanoseconds / 1e9:.2f} s"
    if nanoseconds >= 1_000_000:
        return f"{nanoseconds / 1e6:.1f} ms"
    return f"{nanoseconds / 1e6:.3f} ms"


def _duration(span: Span) -> str:
    return "not ended" if span.duration_ns is None else format_duration(span.duration_ns)


def _span_label(span: Span) -> Text:
    label = Text()
    if span.failed:
        label.append("✗ ", style="bold red")
    label.append(shown(span.name), style="bold red" if span.failed else "bold")
    label.append(f"  {span.kind}  {_duration(span)}", style="dim")
    if span.status.code == "error" and span.status.message:
        label.append(f"  error: {shown(span.status.message)}", style="red")
    return label


def _field(name: str, value: str, style: str = "") -> Text:
    line = Text(f"{shown(name)} ", style="cyan")
    line.append(shown(value), style=style)
    return line


def _add_details(node: Tree, span: Span, full: bool) -> None:
    if span.tool is not None:
        tool = span.tool
        node.add(_field("tool", tool.name + (f"  (call {tool.call_id})" if tool.call_id else "")))
        node.add(_field("arguments", _cut(_json_text(tool.arguments), full)))
        if tool.result is not None:
            node.add(_field("result", _cut(_json_text(tool.result), full)))
        if tool.error is not None:
            node.add(_field("error", _cut(tool.error, full), style="bold red"))
    if span.llm is not None:
        llm = span.llm
        if llm.model:
            node.add(_field("model", llm.model))
        if llm.usage is not None:
            node.add(
                _field("tokens", f"in {llm.usage.input_tokens} · out {llm.usage.output_tokens}")
            )
        for message in llm.output_messages or []:
            if message.text:
                node.add(_field(message.role, _cut(message.text, full)))
            for call in message.tool_calls:
                node.add(
                    _field("requests", f"{call.name} {_cut(_json_text(call.arguments), full)}")
                )


def _span_tree(trace: Trace, full: bool) -> Tree:
    tree = Tree(Text("spans", style="bold"), guide_style="dim")
    nodes: dict[str, Tree] = {}
    for span in trace.tree:
        parent = nodes[span.parent_id] if span.parent_id is not None else tree
        node = parent.add(_span_label(span))
        _add_details(node, span, full)
        nodes[span.span_id] = node
    return tree


def _header(trace: Trace) -> Text:
    calls = trace.tool_calls
    errors = sum(1 for call in calls if not call.succeeded)
    header = Text(f"trace {shown(trace.trace_id)}", style="bold")
    summary = f"  ·  {len(trace.spans)} spans  ·  {len(calls)} tool calls"
    header.append(summary, style="dim")
    if errors:
        header.append(f"  ·  {errors} failed", style="bold red")
    if trace.duration_ns is not None:
        header.append(f"  ·  {format_duration(trace.duration_ns)}", style="dim")
    return header


def render_trace(trace: Trace, *, full: bool = False) -> RenderableType:
    """A rich renderable of one trace for a person to read."""
    parts: list[RenderableType] = [_header(trace)]
    parts.append(_field("input", _cut(trace.input_text, full)))
    if trace.tool_calls:
        sequence = " → ".join(
            call.name if call.succeeded else f"{call.name} ✗" for call in trace.tool_calls
        )
        parts.append(_field("tools", sequence))
    parts.append(_field("final output", _cut(trace.final_text, full) or "(none)"))
    if trace.spans:
        parts.append(_span_tree(trace, full))
    for name, state in (("state before", trace.state_before), ("state after", trace.state_after)):
        if state is not None:
            parts.append(_field(name, _cut(_json_text(state), full)))
    if trace.metadata:
        parts.append(_field("metadata", _cut(_json_text(trace.metadata), full), style="dim"))
    unread = unread_parts(trace.metadata)
    if unread:
        parts.append(Text(f"kept verbatim, not interpreted ({len(unread)}):", style="yellow"))
        for part in unread:
            span_id = part.get("span_id")
            where = f"span {span_id}: {part.get('field')}" if span_id else str(part.get("field"))
            parts.append(_field(f"  {where}", _cut(str(part.get("reason")), full), style="dim"))
    return Group(*parts)
