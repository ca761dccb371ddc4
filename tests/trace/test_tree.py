"""Span-tree queries: roots, children, ancestors, descendants, find."""

from __future__ import annotations

import pytest

from trailcheck.trace import Span, ToolInvocation, Trace


def span(
    span_id: str, parent: str | None, start: int, kind: str = "other", **attrs: object
) -> Span:
    tool = ToolInvocation(name=span_id) if kind == "tool" else None
    return Span(
        trace_id="t",
        span_id=span_id,
        parent_id=parent,
        name=f"{kind} {span_id}",
        kind=kind,  # type: ignore[arg-type]
        start_ns=start,
        attributes=dict(attrs),
        tool=tool,
    )


@pytest.fixture
def trace() -> Trace:
    # root ─┬─ chat1 ── tool_a
    #       ├─ tool_b
    #       └─ chat2 ── tool_c ── guard
    spans = [
        span("guard", "tool_c", 7, "guard"),
        span("chat2", "root", 5, "llm", model="m"),
        span("tool_b", "root", 4, "tool"),
        span("root", None, 0, "agent"),
        span("tool_a", "chat1", 2, "tool"),
        span("chat1", "root", 1, "llm", model="m"),
        span("tool_c", "chat2", 6, "tool"),
    ]
    return Trace(trace_id="t", spans=spans)


def test_root_and_iteration_order(trace: Trace) -> None:
    assert trace.tree.root is not None
    assert trace.tree.root.span_id == "root"
    assert [s.span_id for s in trace.tree] == [
        "root", "chat1", "tool_a", "tool_b", "chat2", "tool_c", "guard",
    ]  # fmt: skip
    assert len(trace.tree) == 7


def test_children_in_start_order(trace: Trace) -> None:
    assert [s.span_id for s in trace.tree.children("root")] == ["chat1", "tool_b", "chat2"]
    assert trace.tree.children("guard") == []


def test_ancestors_descendants_depth(trace: Trace) -> None:
    assert [s.span_id for s in trace.tree.ancestors("guard")] == ["tool_c", "chat2", "root"]
    assert trace.tree.ancestors("root") == []
    assert [s.span_id for s in trace.tree.descendants("chat2")] == ["tool_c", "guard"]
    assert trace.tree.depth("guard") == 3
    parent = trace.tree.parent("tool_a")
    assert parent is not None
    assert parent.span_id == "chat1"


def test_find_by_name_kind_attribute_and_predicate(trace: Trace) -> None:
    assert [s.span_id for s in trace.tree.find(kind="tool")] == ["tool_a", "tool_b", "tool_c"]
    assert [s.span_id for s in trace.tree.find(name="llm chat2")] == ["chat2"]
    assert [s.span_id for s in trace.tree.find(attribute=("model", "m"))] == ["chat1", "chat2"]
    under_chat2 = trace.tree.find(kind="tool", where=lambda s: s.parent_id == "chat2")
    assert [s.span_id for s in under_chat2] == ["tool_c"]
    assert trace.tree.find(attribute=("model", "other")) == []


def test_unknown_span_id_is_a_clear_key_error(trace: Trace) -> None:
    with pytest.raises(KeyError, match="no span 'nope'"):
        trace.tree.children("nope")


def test_empty_trace_has_no_root() -> None:
    assert Trace(trace_id="t").tree.root is None
