"""The TraceCollector never delivers a trace with spans missing: eviction, late spans, spans it
did not see start, and several local roots in one trace."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import (
    NonRecordingSpan,
    Span,
    SpanContext,
    TraceFlags,
    Tracer,
    set_span_in_context,
)

from tests.waiting import GUARD_S
from trailcheck.capture import TraceCollector

pytestmark = pytest.mark.live


def collecting(collector: TraceCollector) -> Tracer:
    provider = TracerProvider()
    provider.add_span_processor(collector)
    return provider.get_tracer("t")


def tool_span(tracer: Tracer, parent: Span, name: str) -> Span:
    return tracer.start_span(
        f"execute_tool {name}",
        context=set_span_in_context(parent),
        attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name},
    )


def trace_id_of(span: Span) -> str:
    return f"{span.get_span_context().trace_id:032x}"


def rejected_trace_ids(collector: TraceCollector) -> set[str | None]:
    return {rejection.trace_id for rejection in collector.rejections}


def test_a_trace_forgotten_after_eviction_is_not_delivered_without_its_evicted_spans() -> None:
    collector = TraceCollector(max_open_traces=2)
    tracer = collecting(collector)
    first = tracer.start_span("invoke_agent first")
    tool_span(tracer, first, "a1").end()
    # Five more traces: the first is evicted (with a1), and then more traces are evicted than
    # the collector remembers, so it forgets that the first one was.
    others = [tracer.start_span(f"invoke_agent other{i}") for i in range(5)]
    for other in others:
        tool_span(tracer, other, "x").end()
    tool_span(tracer, first, "a2").end()
    tool_span(tracer, first, "a3").end()
    first.end()

    assert all(trace.trace_id != trace_id_of(first) for trace in collector.traces)
    assert trace_id_of(first) in rejected_trace_ids(collector)


FINISHED = object()


def run_agent_steps(
    tracer: Tracer, index: int, started: list[str], runs: int = 4
) -> Iterator[None]:
    """One agent making ``runs`` traces of a root and three tool calls, yielding between its
    steps."""
    for run in range(runs):
        root = tracer.start_span(f"invoke_agent agent{index} run{run}")
        started.append(trace_id_of(root))
        yield
        for step in range(3):
            tool = tool_span(tracer, root, f"tool{step}")
            yield
            tool.end()
            yield
        root.end()
        yield


def assert_only_whole_traces(collector: TraceCollector, started: list[str]) -> None:
    delivered = Counter(trace.trace_id for trace in collector.traces)
    assert all(count == 1 for count in delivered.values()), delivered
    assert [len(t.tool_calls) for t in collector.traces] == [3] * len(collector.traces)
    # Every trace is accounted for, exactly once: delivered whole, or rejected.
    assert set(delivered).isdisjoint(rejected_trace_ids(collector))
    assert set(delivered) | rejected_trace_ids(collector) == set(started)
    assert collector.open_traces == 0


def test_interleaved_traces_over_the_limit_come_out_whole_or_rejected() -> None:
    for seed in range(20):
        collector = TraceCollector(max_open_traces=8)
        tracer = collecting(collector)
        started: list[str] = []
        agents = [run_agent_steps(tracer, index, started) for index in range(16)]
        schedule = random.Random(seed)
        while agents:
            agent = schedule.choice(agents)
            if next(agent, FINISHED) is FINISHED:
                agents.remove(agent)
        assert_only_whole_traces(collector, started)
        assert collector.evicted_traces > 0


def run_agents_in_threads(collector: TraceCollector, seed: int) -> list[str]:
    """16 threads: 8 slow agents making one trace each, pausing 2-4 ms between steps, while 8
    fast ones make 20 traces each, so the slow traces are evicted and many others after them.
    Every agent opens its first trace before any goes on: 16 open traces over a limit of 8, so
    there are evictions however the machine paces the threads."""
    tracer = collecting(collector)
    started: list[str] = []
    first_traces_open = threading.Barrier(16, timeout=GUARD_S)

    def agent(index: int) -> None:
        slow = index % 2 == 0
        pauses = random.Random(seed * 100 + index)
        steps = run_agent_steps(tracer, index, started, runs=1 if slow else 20)
        next(steps)  # the first trace's root started
        first_traces_open.wait()
        for _ in steps:
            threading.Event().wait((0.002 + pauses.random() / 500) if slow else 0.0002)

    threads = [threading.Thread(target=agent, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return started


def test_sixteen_threads_over_the_limit_deliver_only_whole_traces() -> None:
    for seed in range(5):
        collector = TraceCollector(max_open_traces=8)
        started = run_agents_in_threads(collector, seed)
        assert_only_whole_traces(collector, started)
        assert collector.evicted_traces > 0


def test_traces_started_over_the_limit_evict_the_oldest_and_the_rest_come_out_whole() -> None:
    collector = TraceCollector(max_open_traces=8)
    tracer = collecting(collector)
    roots = [tracer.start_span(f"invoke_agent agent{i}") for i in range(16)]
    started = threading.Barrier(16, timeout=GUARD_S)

    def agent(root: Span) -> None:
        started.wait()
        tools = [tool_span(tracer, root, f"tool{step}") for step in range(3)]
        for tool in tools:
            tool.end()
        root.end()

    threads = [threading.Thread(target=agent, args=(root,)) for root in roots]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert collector.evicted_traces == 8
    assert sorted(t.tree.root.name for t in collector.traces if t.tree.root) == sorted(
        f"invoke_agent agent{i}" for i in range(8, 16)
    )
    assert [len(t.tool_calls) for t in collector.traces] == [3] * 8
    assert rejected_trace_ids(collector) == {trace_id_of(root) for root in roots[:8]}


def test_two_local_roots_of_one_trace_come_out_as_one_trace_with_both_subtrees() -> None:
    collector = TraceCollector()
    tracer = collecting(collector)
    remote_parents = [
        NonRecordingSpan(
            SpanContext(
                trace_id=0x77,
                span_id=span_id,
                is_remote=True,
                trace_flags=TraceFlags(TraceFlags.SAMPLED),
            )
        )
        for span_id in (0xA, 0xB)
    ]
    first, second = (
        tracer.start_span(f"invoke_agent {name}", context=set_span_in_context(parent))
        for name, parent in zip(("first", "second"), remote_parents, strict=True)
    )
    first_tool = tool_span(tracer, first, "first_tool")
    second_tool = tool_span(tracer, second, "second_tool")
    second_tool.end()
    first_tool.end()
    first.end()
    assert collector.traces == []  # the second root is still running
    second.end()

    assert collector.rejections == []
    [trace] = collector.traces
    assert trace.trace_id == f"{0x77:032x}"
    assert [root.name for root in trace.tree.roots] == ["invoke_agent first", "invoke_agent second"]
    for root, tool in ((first, "first_tool"), (second, "second_tool")):
        root_id = f"{root.get_span_context().span_id:016x}"
        assert [span.name for span in trace.tree.children(root_id)] == [f"execute_tool {tool}"]
    assert sorted(call.name for call in trace.tool_calls) == ["first_tool", "second_tool"]


def test_a_child_that_ends_after_its_root_is_part_of_the_trace() -> None:
    collector = TraceCollector()
    tracer = collecting(collector)
    root = tracer.start_span("invoke_agent a")
    background = tool_span(tracer, root, "background")
    root.end()
    assert collector.traces == []
    background.end()

    assert collector.rejections == []
    [trace] = collector.traces
    assert [call.name for call in trace.tool_calls] == ["background"]


def test_a_collector_added_mid_trace_rejects_the_trace_it_saw_only_part_of() -> None:
    provider = TracerProvider()
    tracer = provider.get_tracer("t")
    root = tracer.start_span("invoke_agent a")
    tool_span(tracer, root, "before").end()  # ended before the collector was there
    collector = TraceCollector()
    provider.add_span_processor(collector)
    tool_span(tracer, root, "after").end()
    root.end()

    assert collector.traces == []
    [rejection] = collector.rejections
    assert rejection.trace_id == trace_id_of(root)
    assert "1 of its spans started before the collector saw them start" in rejection.message
    # A trace that starts after the collector was added is collected as usual.
    with tracer.start_as_current_span("invoke_agent b"):
        tracer.start_span("step").end()
    assert [len(trace.spans) for trace in collector.traces] == [2]


def test_spans_of_an_evicted_trace_are_rejected_one_by_one_while_it_is_remembered() -> None:
    collector = TraceCollector(max_open_traces=1)
    tracer = collecting(collector)
    first = tracer.start_span("invoke_agent first")
    running = tool_span(tracer, first, "running")
    with tracer.start_as_current_span("invoke_agent second"):
        pass
    started_after_eviction = tool_span(tracer, first, "late")
    started_after_eviction.end()
    running.end()
    first.end()

    [second] = collector.traces
    assert second.tree.root is not None
    assert second.tree.root.name == "invoke_agent second"
    evicted, *late = collector.rejections
    assert "evicted to keep at most 1 open trace" in evicted.message
    assert "0 ended spans discarded, 2 still running" in evicted.message
    assert [(r.span_id, "evicted before it ended" in r.message) for r in late] == [
        (f"{span.get_span_context().span_id:016x}", True)
        for span in (started_after_eviction, running, first)
    ]
    assert collector.open_traces == 0


def test_a_late_child_of_a_delivered_trace_is_rejected_not_delivered_alone() -> None:
    collector = TraceCollector()
    tracer = collecting(collector)
    root = tracer.start_span("invoke_agent a")
    root.end()
    [trace] = collector.traces
    tool_span(tracer, root, "too_late").end()
    assert collector.open_traces == 1  # its parent has ended: it waits for a root that never ends
    collector.shutdown()
    assert len(collector.traces) == 1
    [rejection] = collector.rejections
    assert rejection.trace_id == trace.trace_id
    assert "at shutdown" in rejection.message
