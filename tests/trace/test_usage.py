"""Usage summed over model calls: nested double instrumentation counts once."""

from __future__ import annotations

from trailcheck.trace import ModelInvocation, Span, Usage, summed_usage


def llm(span_id: str, parent: str | None, usage: Usage | None) -> Span:
    return Span(
        trace_id="t",
        span_id=span_id,
        parent_id=parent,
        name="chat",
        kind="llm",
        start_ns=0,
        llm=ModelInvocation(usage=usage),
    )


def agent(span_id: str, parent: str | None) -> Span:
    return Span(trace_id="t", span_id=span_id, parent_id=parent, name="a", kind="agent", start_ns=0)


def test_sums_calls_and_skips_a_call_instrumented_twice() -> None:
    spans = [
        agent("root", None),
        llm("outer", "root", Usage(input_tokens=100, output_tokens=10, cost_usd=0.5)),
        llm("inner", "outer", Usage(input_tokens=100, output_tokens=10)),
        llm("second", "root", Usage(input_tokens=7, output_tokens=3, cost_usd=0.25)),
        llm("silent", "root", None),
        llm("under_silent", "silent", Usage(input_tokens=1)),
    ]
    assert summed_usage(spans) == Usage(input_tokens=108, output_tokens=13, cost_usd=0.75)


def test_none_when_nothing_reports_usage() -> None:
    assert summed_usage([agent("root", None), llm("x", "root", None)]) is None
    assert summed_usage([]) is None


def test_a_deep_chain_is_linear_not_quadratic() -> None:
    # 20,000 nested spans: a quadratic walk would take minutes; this must simply finish.
    spans = [agent("s0", None)]
    spans += [agent(f"s{i}", f"s{i - 1}") for i in range(1, 20_000)]
    spans.append(llm("leaf", "s19999", Usage(output_tokens=5)))
    assert summed_usage(spans) == Usage(output_tokens=5)
