"""A retry loop, the same call (tool and canonically equal arguments) made N times in a row, is
labelled ``tool_call_loop`` with its count and spans; the multi-tool loop keeps its behaviour."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailcheck.importing import import_traces
from trailcheck.loop import EfficiencyRule, RuleFileError, builtin_rules, detect, parse_rules
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Finding, Trace
from trailcheck.trace.content_gap import content_gap

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
TIMEOUT = {"error": "timeout"}


def _loop_findings(trace: Trace, rules: list[EfficiencyRule] | None = None) -> list[Finding]:
    return [f for f in detect([trace], rules) if f.label == "tool_call_loop"]


def _lookups(*order_ids: str) -> Trace:
    builder = TraceBuilder("t-retry", input="Where is order A-1?")
    for order_id in order_ids:
        builder.tool("lookup_order", {"order_id": order_id}, result=TIMEOUT)
    return builder.output("The order service is not answering.").build()


def _rule(text: str) -> EfficiencyRule:
    (rule,) = parse_rules(text)
    assert isinstance(rule, EfficiencyRule)
    return rule


def test_four_identical_timed_out_lookups_are_one_loop_finding() -> None:
    (finding,) = _loop_findings(_lookups("A-1", "A-1", "A-1", "A-1"))
    assert (finding.source, finding.severity) == ("rule:tool_call_loop", "medium")
    assert finding.evidence == ("span-001", "span-002", "span-003", "span-004")
    assert finding.reason == (
        'repeated calls: lookup_order({"order_id":"A-1"}) called 4 times in a row >= 3'
        " at span-001, span-002, span-003, span-004"
    )


def test_attempts_that_error_with_the_model_asked_between_are_the_same_call() -> None:
    builder = TraceBuilder("t-retry", input="Where is order A-1?")
    for _ in range(3):
        builder.llm("Let me look that up.")
        builder.tool("lookup_order", {"order_id": "A-1"}, error="timeout")
    (finding,) = _loop_findings(builder.build())
    assert finding.evidence == ("span-002", "span-004", "span-006")
    assert "called 3 times in a row >= 3" in finding.reason


def test_two_then_another_call_then_two_is_no_loop() -> None:
    assert _loop_findings(_lookups("A-1", "A-1", "A-2", "A-1", "A-1")) == []
    other_tool = (
        TraceBuilder("t", input="Where is order A-1?")
        .tool("lookup_order", {"order_id": "A-1"}, result=TIMEOUT)
        .tool("lookup_order", {"order_id": "A-1"}, result=TIMEOUT)
        .tool("get_customer", {"customer_id": "c1"}, result={"name": "Ana"})
        .tool("lookup_order", {"order_id": "A-1"}, result=TIMEOUT)
        .tool("lookup_order", {"order_id": "A-1"}, result=TIMEOUT)
        .build()
    )
    assert _loop_findings(other_tool) == []


def test_the_rule_file_sets_n() -> None:
    rule = _rule(
        """
rules:
  - name: retry_loop
    label: tool_call_loop
    severity: high
    kind: efficiency
    call_repeats: 2
"""
    )
    (finding,) = _loop_findings(_lookups("A-1", "A-1", "A-2", "A-1", "A-1"), [rule])
    assert finding.source == "rule:retry_loop"
    assert finding.reason == (
        'repeated calls: lookup_order({"order_id":"A-1"}) called 2 times in a row >= 2'
        ' at span-001, span-002; lookup_order({"order_id":"A-1"}) called 2 times in a row'
        " >= 2 at span-004, span-005"
    )
    assert finding.evidence == ("span-001", "span-002", "span-004", "span-005")
    lenient = _rule(
        "rules:\n  - {name: r, label: tool_call_loop, severity: low, kind: efficiency,"
        " call_repeats: 5}\n"
    )
    assert _loop_findings(_lookups("A-1", "A-1", "A-1", "A-1"), [lenient]) == []
    with pytest.raises(RuleFileError, match=r"call_repeats is at least 2, got 1"):
        parse_rules(
            "rules:\n  - {name: r, label: a, severity: low, kind: efficiency, call_repeats: 1}\n"
        )


def test_the_builtin_rule_repeats_at_three_and_keeps_the_multi_tool_loop() -> None:
    (rule,) = [r for r in builtin_rules() if r.name == "tool_call_loop"]
    assert isinstance(rule, EfficiencyRule)
    assert (rule.call_repeats, rule.loop_repeats, rule.loop_match) == (3, 3, "tool")
    # Three rounds of two tools with varied arguments: the multi-tool loop, as before.
    builder = TraceBuilder("t-both", input="Find my order")
    for index in range(3):
        builder.tool("search_orders", {"q": f"order {index}"}, result=[])
        builder.tool("get_customer", {"id": f"c{index}"}, result={})
    (finding,) = _loop_findings(builder.build())
    assert finding.reason == (
        "loops: search_orders -> get_customer repeated 3 times >= 3"
        " at span-001, span-002, span-003, span-004, span-005, span-006"
    )
    # Both in one trace: one finding (one per rule and trace), with both reasons.
    for _ in range(3):
        builder.tool("lookup_order", {"order_id": "A-1"}, result=TIMEOUT)
    (both,) = _loop_findings(builder.build())
    assert both.reason.startswith("loops: search_orders -> get_customer repeated 3 times")
    assert both.reason.endswith(
        'repeated calls: lookup_order({"order_id":"A-1"}) called 3 times in a row >= 3'
        " at span-007, span-008, span-009"
    )
    assert both.evidence == tuple(f"span-{i:03d}" for i in range(1, 10))


def _real_traces() -> list[tuple[str, Trace]]:
    """Every recorded trace, from each protobuf file and its JSON twin (base64 ids, as the
    recorders wrote them), with the log records recorded beside the spans."""
    found: list[tuple[str, Trace]] = []
    files = sorted(REAL.glob("*.traces.*"))
    for spans in files:
        logs = spans.with_name(spans.name.replace(".traces.", ".logs."))
        traces: list[Trace] = []
        ids = "base64" if spans.suffix == ".json" else "hex"
        summary = import_traces([spans, logs] if logs.exists() else [spans], traces.append, ids=ids)
        assert summary.rejected == 0, spans.name
        assert traces, spans.name
        found += [(spans.name, trace) for trace in traces]
    assert len(files) >= 40
    assert len(found) >= 90
    return found


def test_no_real_trace_is_labelled_a_loop() -> None:
    real = _real_traces()
    rules = [rule for rule in builtin_rules() if rule.label == "tool_call_loop"]
    assert [(name, f.reason) for name, trace in real for f in detect([trace], rules)] == []
    # Nor would the rule fire with its content check bypassed, gaps included.
    assert [name for name, trace in real if rules[0].hits(trace)] == []


def _retried(trace: Trace, attempts: int) -> Trace:
    """``trace`` with its one tool span attempted ``attempts`` times in a row: copies after the
    last span, each with its own span and call id, the root span stretched over them."""
    (tool,) = [span for span in trace.spans if span.tool is not None]
    assert tool.tool is not None
    assert tool.end_ns is not None
    root = next(span for span in trace.spans if span.parent_id is None)
    offset = max(span.end_ns or span.start_ns for span in trace.spans) - tool.start_ns + 1
    copies = []
    for attempt in range(1, attempts):
        shift = attempt * offset
        call = tool.tool.model_copy(update={"call_id": f"{tool.tool.call_id}-{attempt}"})
        copies.append(
            tool.model_copy(
                update={
                    "span_id": f"{tool.span_id[:-2]}{attempt:02d}",
                    "start_ns": tool.start_ns + shift,
                    "end_ns": tool.end_ns + shift,
                    "tool": call,
                }
            )
        )
    stretched = root.model_copy(update={"end_ns": copies[-1].end_ns})
    spans = [stretched if span is root else span for span in trace.spans]
    return trace.model_copy(update={"spans": [*spans, *copies]})


def _real(name: str, opening_call_id: str) -> Trace:
    """The recorded run whose first tool call has the id ``opening_call_id``."""
    traces: list[Trace] = []
    import_traces([REAL / f"{name}.traces.pb"], traces.append)
    [run] = [t for t in traces if t.tool_calls and t.tool_calls[0].call_id == opening_call_id]
    return run


def test_a_real_failed_lookup_retried_is_a_loop() -> None:
    # Pydantic AI's recording of lookup_order("B-2") failing, as if the agent retried it.
    retried = _retried(_real("pydantic-ai-2.68.0", "call_lookup_2"), attempts=4)
    (finding,) = _loop_findings(retried)
    ids = tuple(call.span_id for call in retried.tool_calls)
    assert len(ids) == 4
    assert finding.evidence == ids
    assert finding.reason == (
        'repeated calls: lookup_order({"order_id":"B-2"}) called 4 times in a row >= 3'
        f" at {', '.join(ids)}"
    )


def test_not_run_on_a_trace_whose_content_was_not_captured() -> None:
    # The same recording without content: every call has {} for arguments, so every call of a
    # tool would look like the same call. The rule needs content and is not run.
    retried = _retried(_real("pydantic-ai-2.68.0-no-content", "call_lookup_2"), attempts=4)
    assert content_gap(retried) is not None
    assert EfficiencyRule.needs_content
    assert _loop_findings(retried) == []
    (rule,) = [r for r in builtin_rules() if r.name == "tool_call_loop"]
    assert rule.hits(retried)  # what it would have said: a loop of unknown calls
