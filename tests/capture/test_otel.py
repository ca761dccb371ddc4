"""The TraceCollector assembles Traces from spans an instrumented agent emits in-process."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Tracer, TracerProvider
from opentelemetry.trace import (
    NonRecordingSpan,
    SpanContext,
    Status,
    StatusCode,
    TraceFlags,
    set_span_in_context,
)

from trailcheck.capture import TraceCollector
from trailcheck.capture.otel_spans import REMOTE_PARENT_ATTRIBUTE
from trailcheck.errors import UsageError
from trailcheck.importing.records import Rejection
from trailcheck.trace import Message, Trace

pytestmark = pytest.mark.live


@pytest.fixture
def collector() -> TraceCollector:
    return TraceCollector(source="otel-test")


@pytest.fixture
def tracer(collector: TraceCollector) -> Iterator[Tracer]:
    provider = TracerProvider(resource=Resource.create({"service.name": "shop-agent"}))
    provider.add_span_processor(collector)
    yield provider.get_tracer("test.instrumentation")
    provider.shutdown()


def run_instrumented_agent(tracer: Tracer, question: str = "Refund A-1") -> None:
    """What an instrumented agent emits: invoke_agent, with a chat call and two tool calls."""
    with tracer.start_as_current_span(
        "invoke_agent support",
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"},
    ):
        with tracer.start_as_current_span(
            "chat gpt-4o",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.usage.input_tokens": 12,
                "gen_ai.usage.output_tokens": 5,
                "gen_ai.input.messages": json.dumps(
                    [{"role": "user", "parts": [{"type": "text", "content": question}]}]
                ),
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool lookup_order",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup_order",
                "gen_ai.tool.call.id": "call_1",
                "gen_ai.tool.call.arguments": json.dumps({"order_id": "A-1"}),
                "gen_ai.tool.call.result": json.dumps({"status": "delivered"}),
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool issue_refund",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "issue_refund",
                "gen_ai.tool.call.id": "call_2",
                "gen_ai.tool.call.arguments": json.dumps({"order_id": "A-1"}),
            },
            record_exception=False,
            set_status_on_exception=False,
        ) as refund:
            refund.record_exception(PermissionError("identity not verified"))
            refund.set_status(Status(StatusCode.ERROR, "identity not verified"))


def test_an_instrumented_run_becomes_a_trace(collector: TraceCollector, tracer: Tracer) -> None:
    run_instrumented_agent(tracer)

    assert collector.rejections == []
    [trace] = collector.traces
    assert [(c.name, c.call_id, c.arguments, c.result, c.error) for c in trace.tool_calls] == [
        ("lookup_order", "call_1", {"order_id": "A-1"}, {"status": "delivered"}, None),
        ("issue_refund", "call_2", {"order_id": "A-1"}, None, "identity not verified"),
    ]
    root = trace.tree.root
    assert root is not None
    assert (root.name, root.kind) == ("invoke_agent support", "agent")
    assert [span.kind for span in trace.tree.children(root.span_id)] == ["llm", "tool", "tool"]
    refund = trace.tree.find(name="execute_tool issue_refund")[0]
    assert [event.name for event in refund.events] == ["exception"]
    assert refund.events[0].attributes["exception.type"] == "PermissionError"
    chat = trace.tree.find(kind="llm")[0]
    assert chat.llm is not None
    assert chat.llm.model == "gpt-4o"
    assert trace.input == [Message(role="user", content="Refund A-1")]
    assert trace.usage is not None
    assert (trace.usage.input_tokens, trace.usage.output_tokens) == (
        12,
        5,
    )
    assert trace.metadata["agent_name"] == "support"
    assert trace.metadata["otel.resource"]["service.name"] == "shop-agent"
    assert len(trace.trace_id) == 32
    assert len(root.span_id) == 16
    assert collector.open_traces == 0
    assert Trace.model_validate_json(trace.model_dump_json()) == trace


def test_attribute_arrays_become_lists(collector: TraceCollector, tracer: Tracer) -> None:
    with tracer.start_as_current_span("invoke_agent a", attributes={"tags": ("x", "y")}):
        pass
    [trace] = collector.traces
    assert trace.spans[0].attributes["tags"] == ["x", "y"]


def test_interleaved_traces_keep_their_own_spans(collector: TraceCollector, tracer: Tracer) -> None:
    first = tracer.start_span(
        "invoke_agent first", attributes={"gen_ai.operation.name": "invoke_agent"}
    )
    second = tracer.start_span(
        "invoke_agent second", attributes={"gen_ai.operation.name": "invoke_agent"}
    )
    children = []
    for index in range(3):
        for parent, name in ((first, "first"), (second, "second")):
            child = tracer.start_span(
                f"execute_tool {name}_{index}",
                context=set_span_in_context(parent),
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": f"{name}_{index}",
                },
            )
            children.append(child)
    for child in reversed(children):
        child.end()
    second.end()
    assert [t.metadata.get("agent_name") for t in collector.traces] == ["second"]
    first.end()

    by_name = {t.tree.root.name: t for t in collector.traces if t.tree.root is not None}
    for name in ("first", "second"):
        trace = by_name[f"invoke_agent {name}"]
        assert sorted(c.name for c in trace.tool_calls) == [f"{name}_{i}" for i in range(3)]
        root = trace.tree.root
        assert root is not None
        assert all(span.parent_id == root.span_id for span in trace.spans if span is not root)
    assert collector.rejections == []


def test_spans_ended_from_many_threads_are_all_assembled(
    collector: TraceCollector, tracer: Tracer
) -> None:
    roots = [tracer.start_span(f"invoke_agent agent{i}") for i in range(8)]

    def work(index: int) -> None:
        for step in range(25):
            tracer.start_span(f"step {step}", context=set_span_in_context(roots[index])).end()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for root in roots:
        root.end()
    assert sorted(len(trace.spans) for trace in collector.traces) == [26] * 8
    assert collector.rejections == []


def test_an_unfinished_trace_is_evicted_over_the_limit_and_its_late_spans_rejected() -> None:
    collector = TraceCollector(max_open_traces=2)
    provider = TracerProvider()
    provider.add_span_processor(collector)
    tracer = provider.get_tracer("t")
    roots = []
    for i in range(3):
        roots.append(tracer.start_span(f"invoke_agent agent{i}"))
        tracer.start_span("step", context=set_span_in_context(roots[-1])).end()

    assert collector.evicted_traces == 1
    assert collector.open_traces == 2
    [evicted] = collector.rejections
    oldest_id = f"{roots[0].get_span_context().trace_id:032x}"
    assert evicted.trace_id == oldest_id
    assert evicted.message == (
        f"trace {oldest_id!r} not assembled: evicted to keep at most 2 open traces;"
        " 1 ended span discarded, 1 still running (each rejected as it ends)"
    )

    for root in roots:
        root.end()
    assert sorted(t.tree.root.name for t in collector.traces if t.tree.root) == [
        "invoke_agent agent1",
        "invoke_agent agent2",
    ]
    late = collector.rejections[1]
    assert (late.trace_id, late.span_id) == (
        oldest_id,
        f"{roots[0].get_span_context().span_id:016x}",
    )
    assert "evicted before it ended" in late.message
    assert len(collector.rejections) == 2


def test_a_trace_over_the_span_limit_is_rejected_whole() -> None:
    collector = TraceCollector(max_spans_per_trace=3)
    provider = TracerProvider()
    provider.add_span_processor(collector)
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span("invoke_agent a"):
        for step in range(4):
            tracer.start_span(f"step {step}").end()
    assert collector.traces == []
    [rejection] = collector.rejections
    assert "2 spans over the limit of 3" in rejection.message


def test_a_bad_record_becomes_a_rejection_not_an_exception(
    collector: TraceCollector, tracer: Tracer
) -> None:
    with (
        tracer.start_as_current_span("invoke_agent a"),
        tracer.start_as_current_span("step", attributes={"score": float("nan")}),
    ):
        pass
    assert collector.traces == []
    unreadable, whole = collector.rejections
    assert unreadable.field == "attributes.score"
    assert "not finite" in unreadable.message
    assert whole.message.endswith("1 of its spans could not be read (rejected above)")


def test_messages_no_reader_understands_are_kept_and_named(
    collector: TraceCollector, tracer: Tracer
) -> None:
    with tracer.start_as_current_span(
        "chat m", attributes={"gen_ai.operation.name": "chat", "gen_ai.input.messages": "{not json"}
    ):
        pass
    assert collector.rejections == []
    [trace] = collector.traces
    [part] = trace.metadata["trailcheck.unread"]
    assert part["field"] == "attributes.gen_ai.input.messages"
    assert trace.spans[0].attributes["gen_ai.input.messages"] == "{not json"


def test_an_assembly_error_is_kept_as_a_rejection(
    collector: TraceCollector, tracer: Tracer
) -> None:
    # A source attribute that contradicts what OTLP itself records (the scope) breaks the span.
    with tracer.start_as_current_span("chat m", attributes={"otel.scope.name": "someone-else"}):
        pass
    assert collector.traces == []
    [rejection] = collector.rejections
    assert isinstance(rejection, Rejection)
    assert rejection.source == "otel-test"
    assert rejection.field is not None
    assert "otel.scope.name" in rejection.field


def test_a_remote_parent_makes_the_local_span_the_root(
    collector: TraceCollector, tracer: Tracer
) -> None:
    remote = SpanContext(
        trace_id=0x1234, span_id=0xABCD, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED)
    )
    with tracer.start_as_current_span(
        "invoke_agent a", context=set_span_in_context(NonRecordingSpan(remote))
    ):
        tracer.start_span("step").end()
    [trace] = collector.traces
    assert trace.trace_id == f"{0x1234:032x}"
    root = trace.tree.root
    assert root is not None
    assert root.parent_id is None
    assert root.attributes[REMOTE_PARENT_ATTRIBUTE] == f"{0xABCD:016x}"
    assert len(trace.spans) == 2


def test_callbacks_get_results_and_their_errors_are_logged_not_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    received: list[Trace] = []

    def failing(trace: Trace) -> None:
        received.append(trace)
        raise RuntimeError("sink down")

    collector = TraceCollector(on_trace=failing, keep=False)
    provider = TracerProvider()
    provider.add_span_processor(collector)
    with caplog.at_level(logging.ERROR, logger="trailcheck.capture.otel"):
        run_instrumented_agent(provider.get_tracer("t"))
    assert [len(trace.tool_calls) for trace in received] == [2]
    assert collector.traces == []
    assert "on_trace callback raised" in caplog.text
    assert "sink down" in caplog.text


def test_shutdown_rejects_open_traces_and_later_spans(collector: TraceCollector) -> None:
    provider = TracerProvider()
    provider.add_span_processor(collector)
    tracer = provider.get_tracer("t")
    root = tracer.start_span("invoke_agent a")
    tracer.start_span("step", context=set_span_in_context(root)).end()
    assert collector.force_flush() is True
    assert collector.open_traces == 1  # a flush does not cut a trace short

    provider.shutdown()
    assert collector.open_traces == 0
    [unfinished] = collector.rejections
    assert "at shutdown" in unfinished.message
    root.end()
    assert "after the collector shut down" in collector.rejections[1].message
    traces, rejections = collector.drain()
    assert (traces, len(rejections)) == ([], 2)
    assert collector.rejections == []


def test_limits_must_be_positive() -> None:
    with pytest.raises(UsageError):
        TraceCollector(max_open_traces=0)
