"""Evidence rendering: input, each tool call in order, declarations (or their absence), answer."""

from __future__ import annotations

import re

from tests.judge.support import case, refund_item
from trailcheck.judge import JudgeItem, render_evidence
from trailcheck.judge.render import tool_declarations
from trailcheck.testing import TraceBuilder

DECLARATIONS = [{"name": "issue_refund", "description": "Refund an order", "parameters": {}}]


def test_every_piece_is_in_its_own_block_in_order() -> None:
    rendered = render_evidence(refund_item(verified=True))
    boundary = rendered.boundary
    labels = re.findall(rf"<<untrusted:{boundary} ([a-z0-9 ]+)>>", rendered.text)
    assert labels == ["user input", "tool call 1", "tool call 2", "tool call 3", "final answer"]
    assert rendered.text.count(f"<</untrusted:{boundary}>>") == 5
    assert "name: verify_identity" in rendered.text
    assert 'result: {"total":129.0}' in rendered.text
    assert "Refund order A-1 please" in rendered.text
    assert "$129.00" in rendered.text


def test_missing_declarations_are_said_to_be_missing() -> None:
    text = render_evidence(refund_item()).text
    assert "## Tool declarations\n(not available" in text


def test_declarations_come_from_the_trace_then_the_case() -> None:
    from_trace = refund_item(metadata={"tool_declarations": DECLARATIONS})
    assert tool_declarations(from_trace) == DECLARATIONS
    from_case = refund_item(case=case(metadata={"tool_declarations": DECLARATIONS}))
    assert tool_declarations(from_case) == DECLARATIONS
    text = render_evidence(from_case).text
    assert '"description":"Refund an order"' in text
    assert "tool declarations>>" in text


def test_an_error_is_shown_instead_of_a_result_and_no_tools_is_said() -> None:
    trace = TraceBuilder("t", input="hi").tool("pay", {}, error="card declined").build()
    text = render_evidence(JudgeItem(item_id="t", trace=trace, criterion="c")).text
    assert "error: card declined" in text
    assert "(the agent gave no final answer)" in text
    empty = TraceBuilder("e", input="hi").output("Hello").build()
    assert (
        "(the agent called no tools)"
        in render_evidence(JudgeItem(item_id="e", trace=empty, criterion="c")).text
    )


def test_rendering_is_reproducible() -> None:
    assert render_evidence(refund_item()) == render_evidence(refund_item())
    assert (
        render_evidence(refund_item()).boundary
        != render_evidence(refund_item("Other answer")).boundary
    )
