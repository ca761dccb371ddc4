"""The efficiency scorer: redundancy, loops, call counts and budget ceilings, with reasons."""

from __future__ import annotations

from itertools import groupby
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from trailcheck.cases import Case
from trailcheck.scorers.efficiency import EfficiencyScorer, model_calls
from trailcheck.scorers.repetition import Repeat, find_loops, find_repeats
from trailcheck.scorers.score import Score
from trailcheck.testing import TraceBuilder
from trailcheck.trace import ModelInvocation, Span, Trace, Usage

CASE = Case(id="c1", input="hi")
ONLY_COUNTS = {"max_identical_calls": None, "loop_repeats": None}


def _trace(*calls: tuple[str, dict[str, Any]]) -> Trace:
    builder = TraceBuilder()
    for name, arguments in calls:
        builder.tool(name, arguments)
    return builder.build()


def _score(trace: Trace, scorer: EfficiencyScorer | None = None) -> Score:
    score = (scorer or EfficiencyScorer()).score(trace, CASE)
    assert score is not None
    return score


def test_canonically_equal_arguments_are_redundant() -> None:
    trace = _trace(
        ("lookup_order", {"order_id": "A-1", "n": 25}),
        ("lookup_order", {"n": 25.0, "order_id": "A-1"}),
        ("lookup_order", {"order_id": "A-1", "n": 25}),
    )
    score = _score(trace)
    assert (score.value, score.passed, score.threshold) == (0.5, False, 1.0)
    assert score.reason == (
        "efficiency 1/2=0.500 checks passed;"
        ' failed redundant calls: lookup_order {"n":25,"order_id":"A-1"} 3 times > 2'
        " at span-001, span-002, span-003;"
        " ok loops: no run of 2+ calls repeated 3 times in a row"
    )
    assert score.evidence == ("span-001", "span-002", "span-003")


def test_types_keep_calls_apart() -> None:
    trace = _trace(("t", {"x": True}), ("t", {"x": 1}), ("t", {"x": "1"}))
    assert _score(trace).passed


def test_calls_up_to_the_limit_pass_and_name_the_calls() -> None:
    trace = _trace(("lookup", {"id": 1}), ("lookup", {"id": 1}), ("lookup", {"id": 2}))
    score = _score(trace)
    assert (score.value, score.passed) == (1.0, True)
    assert score.reason == (
        "efficiency 2/2=1.000 checks passed; ok redundant calls: no call made more than 2 times;"
        " ok loops: no run of 2+ calls repeated 3 times in a row"
    )
    assert score.evidence == ("span-001", "span-002", "span-003")
    assert not _score(trace, EfficiencyScorer(max_identical_calls=1)).passed


def test_loop_of_two_calls_repeated_three_times() -> None:
    trace = _trace(
        ("lookup", {"id": 1}),
        *[("search", {"q": "x"}), ("open", {"id": 7})] * 3,
        ("answer", {}),
    )
    score = _score(trace, EfficiencyScorer(max_identical_calls=None))
    assert (score.value, score.passed) == (0.0, False)
    assert score.reason == (
        "efficiency 0/1=0.000 checks passed; failed loops: search -> open repeated 3 times >= 3"
        " at span-002, span-003, span-004, span-005, span-006, span-007"
    )
    assert score.evidence == tuple(f"span-{i:03d}" for i in range(2, 8))
    # Twice in a row is not a loop at the default of 3.
    assert _score(_trace(*[("search", {"q": "x"}), ("open", {"id": 7})] * 2)).passed


def test_loop_match_tool_ignores_arguments() -> None:
    calls = [c for q in range(3) for c in (("search", {"q": q}), ("open", {"id": q}))]
    trace = _trace(*calls)
    assert _score(trace).passed
    score = _score(trace, EfficiencyScorer(loop_match="tool"))
    assert not score.passed
    assert "failed loops: search -> open repeated 3 times >= 3" in score.reason


def test_find_loops_semantics() -> None:
    assert find_loops(list("aaaaaa"), 3) == []  # a single call repeated is redundancy's
    (loop,) = find_loops(list("xabcabcabcy"), 3)
    assert (loop.start, loop.block, loop.repeats) == (1, ("a", "b", "c"), 3)
    (loop,) = find_loops(list("abababab"), 3)  # maximal stretch, reported once
    assert (loop.block, loop.repeats) == (("a", "b"), 4)
    assert find_loops(list("ababa"), 3) == []


def test_a_call_repeated_in_a_row_is_a_retry_loop_with_its_count_and_spans() -> None:
    # The scenario: four identical lookups, each answered {"error": "timeout"}.
    builder = TraceBuilder()
    for _ in range(4):
        builder.tool("lookup_order", {"order_id": "A-1"}, result={"error": "timeout"})
    trace = builder.tool("escalate", {"order_id": "A-1"}).build()
    score = _score(trace, EfficiencyScorer(call_repeats=3))
    assert (score.value, score.passed) == (pytest.approx(1 / 3), False)
    assert score.reason == (
        "efficiency 1/3=0.333 checks passed;"
        ' failed redundant calls: lookup_order {"order_id":"A-1"} 4 times > 2'
        " at span-001, span-002, span-003, span-004;"
        ' failed repeated calls: lookup_order({"order_id":"A-1"}) called 4 times in a row >= 3'
        " at span-001, span-002, span-003, span-004;"
        " ok loops: no run of 2+ calls repeated 3 times in a row"
    )
    assert score.evidence == ("span-001", "span-002", "span-003", "span-004")


def test_repeated_calls_is_off_by_default_and_reports_when_on() -> None:
    trace = _trace(*[("lookup_order", {"order_id": "A-1"})] * 3)
    assert "repeated calls" not in _score(trace).reason
    scorer = EfficiencyScorer(max_identical_calls=None, loop_repeats=None, call_repeats=3)
    score = _score(trace, scorer)
    assert score.reason == (
        "efficiency 0/1=0.000 checks passed;"
        ' failed repeated calls: lookup_order({"order_id":"A-1"}) called 3 times in a row >= 3'
        " at span-001, span-002, span-003"
    )
    passing = _score(trace, EfficiencyScorer(**ONLY_COUNTS, call_repeats=4))
    assert passing.reason == (
        "efficiency 1/1=1.000 checks passed; ok repeated calls: no call made 4 times in a row"
    )


def test_another_call_between_breaks_the_run() -> None:
    same = ("lookup_order", {"order_id": "A-1"})
    scorer = EfficiencyScorer(**ONLY_COUNTS, call_repeats=3)
    # Another tool, or the same tool with other arguments, ends the run.
    assert _score(_trace(same, same, ("get_customer", {"id": "c1"}), same, same), scorer).passed
    assert _score(_trace(same, same, ("lookup_order", {"order_id": "A-2"}), same), scorer).passed
    # Model calls between the attempts do not, nor does a failure, nor key order or 1 vs 1.0.
    trace = (
        TraceBuilder()
        .llm("checking")
        .tool("lookup_order", {"order_id": "A-1", "n": 1}, error="timeout")
        .llm("again")
        .tool("lookup_order", {"n": 1.0, "order_id": "A-1"}, result={"error": "timeout"})
        .llm("once more")
        .tool("lookup_order", {"order_id": "A-1", "n": 1}, result={"status": "shipped"})
        .build()
    )
    score = _score(trace, scorer)
    assert not score.passed
    assert score.evidence == ("span-002", "span-004", "span-006")
    # errored_calls="skip" leaves the failed attempts out of every call check, this one too.
    skipping = EfficiencyScorer(**ONLY_COUNTS, call_repeats=3, errored_calls="skip")
    assert _score(trace, skipping).passed
    # A call of a tool left out by ignore_tools is not a call between.
    thinking = _trace(same, ("think", {}), same, ("think", {}), same)
    assert _score(thinking, scorer).passed
    ignored = EfficiencyScorer(**ONLY_COUNTS, call_repeats=3, ignore_tools=("think",))
    assert not _score(thinking, ignored).passed


def test_long_arguments_are_cut_short_in_the_reason() -> None:
    trace = _trace(*[("search", {"q": "x" * 500})] * 3)
    score = _score(trace, EfficiencyScorer(**ONLY_COUNTS, call_repeats=3))
    shown = score.reason.split("failed repeated calls: ")[1].split(" called ")[0]
    assert shown == "search(" + '{"q":"' + "x" * 111 + "...)"
    assert len(shown) == len("search()") + 120


def test_find_repeats_semantics() -> None:
    assert find_repeats([], 2) == []
    assert find_repeats(list("aab"), 3) == []
    assert find_repeats(list("xaaaab"), 3) == [Repeat(1, 4)]
    assert find_repeats(list("aaabbbb"), 3) == [Repeat(0, 3), Repeat(3, 4)]
    assert find_repeats(list("aabaa"), 3) == []
    assert find_repeats(list("aabaa"), 2) == [Repeat(0, 2), Repeat(3, 2)]
    assert find_loops(list("aaaa"), 2) == []  # the loops check still leaves them out


@given(keys=st.lists(st.sampled_from("abc"), max_size=15), min_repeats=st.integers(2, 5))
def test_find_repeats_is_every_maximal_run_long_enough(keys: list[str], min_repeats: int) -> None:
    runs, start = [], 0
    for _, group in groupby(keys):
        size = len(list(group))
        if size >= min_repeats:
            runs.append(Repeat(start, size))
        start += size
    assert find_repeats(keys, min_repeats) == runs


def test_ignored_and_skipped_calls_are_not_counted() -> None:
    trace = (
        TraceBuilder()
        .tool("think", {})
        .tool("think", {})
        .tool("think", {})
        .tool("pay", {"id": 1}, error="timeout")
        .tool("pay", {"id": 1})
        .build()
    )
    scorer = EfficiencyScorer(ignore_tools=("think",), errored_calls="skip", max_tool_calls=1)
    assert _score(trace, scorer).passed
    assert not _score(trace, EfficiencyScorer()).passed


def test_tool_and_model_call_limits_name_the_calls_past_them() -> None:
    trace = TraceBuilder().llm("a").tool("a", {}).llm("b").tool("b", {}).tool("c", {}).llm().build()
    scorer = EfficiencyScorer(**ONLY_COUNTS, max_tool_calls=2, max_model_calls=3)
    score = _score(trace, scorer)
    assert (score.value, score.passed) == (0.5, False)
    assert score.reason == (
        "efficiency 1/2=0.500 checks passed; failed tool calls: 3 > 2; past the limit span-005;"
        " ok model calls: 3 <= 3"
    )
    assert score.evidence == ("span-005",)


def test_a_model_call_instrumented_twice_counts_once() -> None:
    built = TraceBuilder().llm("a").build()
    inner = Span(
        trace_id=built.trace_id,
        span_id="inner",
        parent_id="span-001",
        name="chat inner",
        kind="llm",
        start_ns=built.spans[1].start_ns,
        end_ns=built.spans[1].end_ns,
        llm=ModelInvocation(),
    )
    trace = built.model_copy(update={"spans": [*built.spans, inner]})
    assert [span.span_id for span in model_calls(trace)] == ["span-001"]


def test_token_and_cost_ceilings_from_trace_usage() -> None:
    usage = Usage(input_tokens=1000, output_tokens=500, cost_usd=0.02, latency_ms=1200)
    trace = TraceBuilder().llm("hi", input_tokens=1, output_tokens=1).usage(usage).build()
    scorer = EfficiencyScorer(
        **ONLY_COUNTS, max_tokens=1200, max_cost_usd=0.05, max_latency_ms=1000
    )
    score = _score(trace, scorer)
    assert score.value == pytest.approx(1 / 3)
    assert score.reason == (
        "efficiency 1/3=0.333 checks passed;"
        " failed latency: 1200ms > 1000ms (from trace.usage);"
        " failed tokens: 1500 > 1200 (from trace.usage);"
        " ok cost: 0.02 USD <= 0.05 USD (from trace.usage)"
    )


def test_tokens_summed_from_spans_and_latency_from_duration() -> None:
    trace = (
        TraceBuilder()
        .llm("a", input_tokens=100, output_tokens=20)
        .llm("b", input_tokens=50, output_tokens=30)
        .build()
    )
    scorer = EfficiencyScorer(**ONLY_COUNTS, max_tokens=200, max_latency_ms=1)
    score = _score(trace, scorer)
    assert score.passed
    assert score.reason == (
        "efficiency 2/2=1.000 checks passed; ok latency: 0.005ms <= 1ms (span duration);"
        " ok tokens: 200 <= 200 (summed over llm spans)"
    )


def test_a_ceiling_without_its_figure_fails() -> None:
    trace = TraceBuilder().llm("a", input_tokens=10).build()
    scorer = EfficiencyScorer(**ONLY_COUNTS, max_tokens=100, max_cost_usd=1.0)
    score = _score(trace, scorer)
    assert (score.value, score.passed) == (0.0, False)
    assert score.reason == (
        "efficiency 0/2=0.000 checks passed;"
        " failed tokens: not recorded (no output_tokens in trace.usage or llm spans),"
        " so the ceiling 100 fails;"
        " failed cost: not recorded (no cost_usd in trace.usage or llm spans),"
        " so the ceiling 1 fails"
    )


def test_no_score_when_every_check_is_off() -> None:
    assert EfficiencyScorer(**ONLY_COUNTS).score(_trace(("a", {})), CASE) is None


def test_spec_form_and_validation() -> None:
    scorer = EfficiencyScorer(max_tool_calls=8, max_latency_ms=5000, loop_match="tool")
    assert scorer.to_spec().model_dump() == {
        "name": "efficiency",
        "loop_match": "tool",
        "max_tool_calls": 8,
        "max_latency_ms": 5000.0,
    }
    assert EfficiencyScorer().to_spec().model_dump() == {"name": "efficiency"}
    adapter = TypeAdapter(EfficiencyScorer)
    assert (
        adapter.validate_json(
            b'{"max_tool_calls": 8, "max_latency_ms": 5000, "loop_match": "tool"}', strict=True
        )
        == scorer
    )
    with pytest.raises(ValidationError, match="loop_repeats is at least 2"):
        adapter.validate_python({"loop_repeats": 1})
    with pytest.raises(ValidationError, match="call_repeats is at least 2, got 1"):
        adapter.validate_python({"call_repeats": 1})
    repeats = EfficiencyScorer(call_repeats=4)
    assert repeats.to_spec().model_dump() == {"name": "efficiency", "call_repeats": 4}
    assert adapter.validate_json(b'{"call_repeats": 4}', strict=True) == repeats


calls = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c"]), st.sampled_from([{}, {"x": 1}, {"x": 1.0, "y": 2}])
    ),
    max_size=12,
)
scorers = st.builds(
    EfficiencyScorer,
    max_identical_calls=st.none() | st.integers(1, 3),
    loop_repeats=st.none() | st.integers(2, 4),
    loop_match=st.sampled_from(["arguments", "tool"]),
    call_repeats=st.none() | st.integers(2, 4),
    max_tool_calls=st.none() | st.integers(0, 12),
    max_model_calls=st.none() | st.integers(0, 2),
    max_latency_ms=st.none() | st.floats(0, 0.05),
)


@given(calls=calls, scorer=scorers, repeated=st.integers(0, 11))
def test_values_in_range_and_a_redundant_call_never_raises_the_value(
    calls: list[tuple[str, dict[str, Any]]], scorer: EfficiencyScorer, repeated: int
) -> None:
    score = scorer.score(_trace(*calls), CASE)
    if score is None:
        return
    assert 0.0 <= score.value <= 1.0
    assert score.passed == (score.value == 1.0)
    # Appending a call that repeats an earlier one (or any call, to an empty trajectory).
    extra = calls[repeated % len(calls)] if calls else ("a", {})
    more = scorer.score(_trace(*calls, extra), CASE)
    assert more is not None
    assert more.value <= score.value


def test_large_figures_are_written_out() -> None:
    trace = TraceBuilder().usage(Usage(input_tokens=1_500_000, output_tokens=0)).build()
    score = _score(trace, EfficiencyScorer(**ONLY_COUNTS, max_tokens=2_000_000))
    assert score.reason.endswith("ok tokens: 1500000 <= 2000000 (from trace.usage)")
