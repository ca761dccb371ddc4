"""Tool calls from the model's messages, and their pairing with tool spans
(:mod:`trailcheck.trace.message_calls`, :mod:`trailcheck.trace.tool_calls`)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.trace.strategies import json_objects
from trailcheck.testing import TraceBuilder
from trailcheck.trace import (
    Message,
    MessageToolCall,
    ModelInvocation,
    Span,
    Status,
    ToolCall,
    ToolInvocation,
    Trace,
    semconv,
)
from trailcheck.trace.message_calls import requested_calls, speaking_model_spans

ROOT = Span(
    trace_id="t", span_id="root", name="invoke_agent", kind="agent", start_ns=0, end_ns=1000
)


def ask(*calls: tuple[str | None, str, dict[str, Any]]) -> Message:
    """An assistant message asking for ``(id, name, arguments)`` calls, in order."""
    return Message(
        role="assistant",
        tool_calls=[MessageToolCall(id=i, name=n, arguments=a) for i, n, a in calls],
    )


def answer(call_id: str | None, content: Any, *, name: str | None = None) -> Message:
    return Message(role="tool", content=content, tool_call_id=call_id, name=name)


USER = Message(role="user", content="Refund order A-1")


def llm(
    span_id: str,
    start: int,
    end: int,
    *,
    inputs: list[Message] | None = None,
    outputs: list[Message] | None = None,
    parent: str = "root",
) -> Span:
    return Span(
        trace_id="t",
        span_id=span_id,
        parent_id=parent,
        name="chat",
        kind="llm",
        start_ns=start,
        end_ns=end,
        llm=ModelInvocation(input_messages=inputs, output_messages=outputs),
    )


def tool(
    span_id: str,
    name: str,
    start: int,
    *,
    call_id: str | None = None,
    arguments: dict[str, Any] | None = None,
    result: Any = None,
    error: str | None = None,
    status: Status | None = None,
) -> Span:
    return Span(
        trace_id="t",
        span_id=span_id,
        parent_id="root",
        name=f"execute_tool {name}",
        kind="tool",
        start_ns=start,
        end_ns=start + 5,
        status=status or Status(),
        tool=ToolInvocation(
            name=name, call_id=call_id, arguments=arguments or {}, result=result, error=error
        ),
    )


def trace_of(*spans: Span, root: Span = ROOT) -> Trace:
    return Trace(trace_id="t", spans=[root, *spans])


def summary(calls: list[ToolCall]) -> list[tuple[str | None, str, dict[str, Any], Any]]:
    return [(c.call_id, c.name, c.arguments, c.recorded_result) for c in calls]


# --- calls recorded only in the messages -----------------------------------------------------


def test_calls_only_in_messages_are_one_call_each_answered_by_tool_call_id() -> None:
    lookup = ("c1", "lookup_order", {"order_id": "A-1"})
    refund = ("c2", "issue_refund", {"order_id": "A-1"})
    trace = trace_of(
        llm("m1", 10, 20, inputs=[USER], outputs=[ask(lookup)]),
        llm(
            "m2",
            30,
            40,
            inputs=[USER, ask(lookup), answer("c1", '{"status": "delivered"}')],
            outputs=[ask(refund)],
        ),
        llm(
            "m3",
            50,
            60,
            inputs=[
                USER,
                ask(lookup),
                answer("c1", '{"status": "delivered"}'),
                ask(refund),
                answer("c2", "refunded"),
            ],
            outputs=[Message(role="assistant", content="Done.")],
        ),
    )
    first, second = trace.tool_calls
    assert first == ToolCall(
        call_id="c1",
        name="lookup_order",
        arguments={"order_id": "A-1"},
        recorded_result='{"status": "delivered"}',
        error=None,
        span_id="m1",
        start_ns=20,  # the requesting span's end
        end_ns=None,
        source="message",
        from_messages=("arguments", "result"),
    )
    assert first.result == {"status": "delivered"}
    assert first.succeeded
    assert (second.call_id, second.span_id, second.start_ns, second.recorded_result) == (
        "c2",
        "m2",
        40,
        "refunded",
    )
    assert second.source == "message"


def test_calls_are_ordered_by_requesting_span_then_position_whatever_the_span_list_order() -> None:
    later = llm("m2", 30, 40, outputs=[ask(("c3", "c", {}))])
    earlier = llm("m1", 10, 20, outputs=[ask(("c1", "a", {}), ("c2", "b", {}))])
    trace = Trace(trace_id="t", spans=[later, ROOT, earlier])
    assert [c.call_id for c in trace.tool_calls] == ["c1", "c2", "c3"]
    assert [c.span_id for c in trace.tool_calls] == ["m1", "m1", "m2"]


def test_two_calls_in_one_assistant_message_keep_their_order() -> None:
    both = ask(("z-id", "zeta", {"n": 1}), ("a-id", "alpha", {"n": 2}))
    trace = trace_of(llm("m1", 10, 20, outputs=[both]))
    assert summary(trace.tool_calls) == [
        ("z-id", "zeta", {"n": 1}, None),
        ("a-id", "alpha", {"n": 2}, None),
    ]
    assert {c.start_ns for c in trace.tool_calls} == {20}


def test_a_call_seen_again_in_later_histories_is_not_duplicated() -> None:
    lookup = ("c1", "lookup_order", {"order_id": "A-1"})
    history = [USER, ask(lookup), answer("c1", "found")]
    trace = trace_of(
        llm("m1", 10, 20, inputs=[USER], outputs=[ask(lookup)]),
        llm("m2", 30, 40, inputs=history, outputs=[Message(role="assistant", content="a")]),
        llm(
            "m3", 50, 60, inputs=[*history, USER], outputs=[Message(role="assistant", content="b")]
        ),
    )
    assert summary(trace.tool_calls) == [("c1", "lookup_order", {"order_id": "A-1"}, "found")]
    assert trace.tool_calls[0].span_id == "m1"


def test_a_call_met_first_in_history_is_placed_at_that_spans_start_before_its_outputs() -> None:
    # The span that asked for c0 is not in this trace; m1 was sent it as history.
    trace = trace_of(
        llm(
            "m1",
            10,
            20,
            inputs=[USER, ask(("c0", "search", {"q": "x"})), answer("c0", "hit")],
            outputs=[ask(("c1", "fetch", {}))],
        ),
    )
    assert [(c.call_id, c.start_ns, c.recorded_result) for c in trace.tool_calls] == [
        ("c0", 10, "hit"),
        ("c1", 20, None),
    ]
    assert {c.span_id for c in trace.tool_calls} == {"m1"}


def test_idless_history_requests_are_matched_to_known_calls_by_occurrence() -> None:
    search = (None, "search", {"q": "x"})
    trace = trace_of(
        llm("m1", 10, 20, inputs=[USER], outputs=[ask(search)]),
        llm("m2", 30, 40, inputs=[USER, ask(search)], outputs=[ask(search)]),
        # Three identical requests in the history: the first two are m1's and m2's calls, the
        # third is a call this trace has not seen yet.
        llm(
            "m3",
            50,
            60,
            inputs=[USER, ask(search), ask(search), ask(search)],
            outputs=[Message(role="assistant", content="done")],
        ),
    )
    assert [(c.span_id, c.start_ns) for c in trace.tool_calls] == [
        ("m1", 20),
        ("m2", 40),
        ("m3", 50),
    ]
    assert all(c.call_id is None and c.arguments == {"q": "x"} for c in trace.tool_calls)


def test_idless_history_requests_with_other_arguments_are_new_calls() -> None:
    trace = trace_of(
        llm("m1", 10, 20, outputs=[ask((None, "search", {"q": "x"}))]),
        llm(
            "m2",
            30,
            40,
            inputs=[ask((None, "search", {"q": "x"})), ask((None, "search", {"q": "y"}))],
        ),
    )
    assert [(c.arguments, c.span_id) for c in trace.tool_calls] == [
        ({"q": "x"}, "m1"),
        ({"q": "y"}, "m2"),
    ]


def test_an_answer_without_id_settles_the_earliest_unanswered_call_of_its_tool() -> None:
    asked = ask(
        (None, "lookup", {"order_id": "A"}),
        (None, "lookup", {"order_id": "B"}),
        (None, "notify", {}),
    )
    trace = trace_of(
        llm("m1", 10, 20, inputs=[USER], outputs=[asked]),
        llm(
            "m2",
            30,
            40,
            inputs=[
                USER,
                asked,
                answer(None, "sent", name="notify"),
                answer(None, "order A", name="lookup"),
                answer(None, "order B", name="lookup"),
            ],
        ),
    )
    assert summary(trace.tool_calls) == [
        (None, "lookup", {"order_id": "A"}, "order A"),
        (None, "lookup", {"order_id": "B"}, "order B"),
        (None, "notify", {}, "sent"),
    ]


def test_an_idless_answer_repeated_in_a_later_history_does_not_answer_a_later_call() -> None:
    # m2's history holds m1's call and its answer "r1"; m3's history holds both calls with their
    # answers. The answer "r1", sent again to m3, is m1's call's, not m2's call's.
    search = (None, "search", {"q": "x"})
    first_turn = [USER, ask(search), answer(None, "r1", name="search")]
    trace = trace_of(
        llm("m1", 10, 20, inputs=[USER], outputs=[ask(search)]),
        llm("m2", 30, 40, inputs=first_turn, outputs=[ask(search)]),
        llm(
            "m3",
            50,
            60,
            inputs=[*first_turn, ask(search), answer(None, "r2", name="search")],
            outputs=[Message(role="assistant", content="done")],
        ),
    )
    assert [(c.span_id, c.recorded_result) for c in trace.tool_calls] == [
        ("m1", "r1"),
        ("m2", "r2"),
    ]


def test_a_genai_parts_message_answers_each_call_its_response_parts_name() -> None:
    asked = ask(("c1", "lookup", {"order_id": "A"}), ("c2", "weather", {"city": "Oslo"}))
    responses = Message(
        role="tool",
        content=[
            {"type": "tool_call_response", "id": "c2", "response": {"temp": 3}},
            {"type": "text", "content": "not an answer"},
            {"type": "tool_call_response", "id": "c1", "result": "delivered"},
        ],
    )
    trace = trace_of(
        llm("m1", 10, 20, outputs=[asked]),
        llm("m2", 30, 40, inputs=[USER, asked, responses]),
    )
    assert summary(trace.tool_calls) == [
        ("c1", "lookup", {"order_id": "A"}, "delivered"),
        ("c2", "weather", {"city": "Oslo"}, {"temp": 3}),
    ]


def test_a_response_part_marked_is_error_is_the_calls_error_not_its_result() -> None:
    asked = ask(("c1", "lookup", {"order_id": "B"}), ("c2", "lookup", {"order_id": "A"}))
    failed = {"type": "tool_call_response", "id": "c1", "response": "Error: B not found"}
    blocks = [{"type": "text", "text": "A is late"}]
    responses = Message(
        role="tool",
        content=[
            {**failed, "is_error": True},
            {"type": "tool_call_response", "id": "c2", "response": blocks, "is_error": False},
        ],
    )
    trace = trace_of(
        llm("m1", 10, 20, outputs=[asked]),
        llm("m2", 30, 40, inputs=[USER, asked, responses]),
    )
    first, second = trace.tool_calls
    assert (first.error, first.result, first.succeeded) == ("Error: B not found", None, False)
    assert (second.error, second.result) == (None, blocks)


def test_a_request_never_answered_is_a_call_without_result_or_error() -> None:
    trace = trace_of(llm("m1", 10, 20, outputs=[ask(("c1", "lookup", {"order_id": "A"}))]))
    [call] = trace.tool_calls
    assert (call.call_id, call.recorded_result, call.result, call.error) == ("c1", None, None, None)
    assert call.succeeded
    assert call.source == "message"
    assert call.from_messages == ("arguments",)


def test_an_answer_naming_no_known_call_is_ignored() -> None:
    trace = trace_of(
        llm("m1", 10, 20, outputs=[ask(("c1", "lookup", {}))]),
        llm("m2", 30, 40, inputs=[answer("other", "stray"), answer(None, "stray", name="nope")]),
    )
    assert summary(trace.tool_calls) == [("c1", "lookup", {}, None)]


# --- pairing with tool spans -----------------------------------------------------------------


def test_a_tool_span_and_a_request_with_its_call_id_are_one_call_the_span_winning() -> None:
    trace = trace_of(
        llm("m1", 10, 20, outputs=[ask(("c1", "lookup", {"order_id": "A"}))]),
        tool(
            "t1",
            "lookup",
            25,
            call_id="c1",
            status=Status(code="error", message="timeout"),
        ),
        llm(
            "m2", 40, 50, inputs=[USER, ask(("c1", "lookup", {"order_id": "A"})), answer("c1", "x")]
        ),
    )
    assert trace.tool_calls == [
        ToolCall(
            call_id="c1",
            name="lookup",
            arguments={"order_id": "A"},
            recorded_result="x",
            error="timeout",
            span_id="t1",
            start_ns=25,
            end_ns=30,
            source="span",
            from_messages=("arguments", "result"),
        )
    ]


def test_what_the_span_recorded_is_kept_over_the_messages() -> None:
    trace = trace_of(
        llm("m1", 10, 20, outputs=[ask(("c1", "lookup", {"order_id": "from message"}))]),
        tool("t1", "lookup", 25, call_id="c1", arguments={"order_id": "A"}, result="from span"),
        llm("m2", 40, 50, inputs=[answer("c1", "from message")]),
    )
    [call] = trace.tool_calls
    assert summary([call]) == [("c1", "lookup", {"order_id": "A"}, "from span")]
    assert call.from_messages == ()
    assert call.source == "span"


def test_a_span_without_result_whose_request_went_unanswered_fills_only_arguments() -> None:
    trace = trace_of(
        llm("m1", 10, 20, outputs=[ask(("c1", "lookup", {"order_id": "A"}))]),
        tool("t1", "lookup", 25, call_id="c1"),
    )
    [call] = trace.tool_calls
    assert (call.arguments, call.recorded_result, call.from_messages) == (
        {"order_id": "A"},
        None,
        ("arguments",),
    )


def test_an_idless_tool_span_pairs_with_the_request_of_its_tool_and_arguments() -> None:
    trace = trace_of(
        llm("m1", 10, 20, outputs=[ask(("c1", "lookup", {"order_id": "A"}))]),
        tool("t1", "lookup", 25, arguments={"order_id": "A"}),
        llm("m2", 40, 50, inputs=[answer("c1", "delivered")]),
    )
    [call] = trace.tool_calls
    assert (call.call_id, call.span_id, call.recorded_result, call.from_messages) == (
        "c1",
        "t1",
        "delivered",
        ("result",),
    )


def test_an_idless_tool_span_without_arguments_takes_the_requests() -> None:
    trace = trace_of(
        llm("m1", 10, 20, outputs=[ask(("c1", "lookup", {"order_id": "A"}))]),
        tool("t1", "lookup", 25, result="delivered"),
    )
    [call] = trace.tool_calls
    assert summary([call]) == [("c1", "lookup", {"order_id": "A"}, "delivered")]
    assert call.from_messages == ("arguments",)


def test_an_idless_tool_span_does_not_pair_with_a_request_of_other_arguments() -> None:
    trace = trace_of(
        llm("m1", 10, 20, outputs=[ask(("c1", "lookup", {"order_id": "A"}))]),
        tool("t1", "lookup", 25, arguments={"order_id": "B"}),
        llm("m2", 40, 50, inputs=[answer("c1", "delivered")]),
    )
    # The request c1 matches no span: in a trace with tool spans it did not run.
    assert summary(trace.tool_calls) == [(None, "lookup", {"order_id": "B"}, None)]
    assert trace.tool_calls[0].from_messages == ()


def test_an_idless_tool_span_does_not_pair_with_a_request_asked_after_it_started() -> None:
    trace = trace_of(
        tool("t1", "lookup", 5),
        llm("m1", 10, 20, outputs=[ask(("c1", "lookup", {"order_id": "A"}))]),
    )
    assert summary(trace.tool_calls) == [(None, "lookup", {}, None)]


def test_idless_tool_spans_pair_with_the_earliest_unpaired_requests_in_turn() -> None:
    same = {"order_id": "A"}
    trace = trace_of(
        llm("m1", 10, 20, outputs=[ask(("c1", "lookup", same), ("c2", "lookup", same))]),
        tool("t1", "lookup", 25, arguments=same),
        tool("t2", "lookup", 35, arguments=same),
    )
    assert [(c.call_id, c.span_id) for c in trace.tool_calls] == [("c1", "t1"), ("c2", "t2")]


def test_a_request_with_another_tools_name_does_not_pair_by_id() -> None:
    trace = trace_of(
        llm("m1", 10, 20, outputs=[ask(("c1", "refund", {"order_id": "A"}))]),
        tool("t1", "lookup", 25, call_id="c1"),
    )
    [call] = trace.tool_calls
    assert (call.name, call.arguments, call.from_messages) == ("lookup", {}, ())


def test_in_a_trace_with_tool_spans_a_request_no_span_answers_did_not_run() -> None:
    trace = trace_of(
        llm("m1", 10, 20, outputs=[ask(("c1", "lookup", {}), ("c2", "issue_refund", {}))]),
        tool("t1", "lookup", 25, call_id="c1", result="ok"),
        llm("m2", 40, 50, inputs=[answer("c1", "ok"), answer("c2", "blocked by guard")]),
    )
    assert [(c.call_id, c.name, c.source) for c in trace.tool_calls] == [("c1", "lookup", "span")]


def test_a_trace_marked_as_recording_every_call_as_a_span_drops_unanswered_requests() -> None:
    marked_root = ROOT.model_copy(update={"attributes": {semconv.TRAILCHECK_TOOL_SPANS: True}})
    spans = [llm("m1", 10, 20, outputs=[ask(("c1", "issue_refund", {"order_id": "A"}))])]
    assert trace_of(*spans, root=marked_root).tool_calls == []
    assert [c.call_id for c in trace_of(*spans).tool_calls] == ["c1"]


def test_builder_tool_spans_pair_with_the_history_of_a_later_model_call() -> None:
    history = [USER, ask(("call-1", "lookup_order", {"order_id": "A-1"})), answer("call-1", "x")]
    trace = (
        TraceBuilder("t", input="Refund order A-1")
        .tool("lookup_order", {"order_id": "A-1"}, result={"status": "delivered"})
        .llm("Delivered.", input_messages=history)
        .build()
    )
    [call] = trace.tool_calls
    assert (call.call_id, call.source, call.result, call.from_messages) == (
        "call-1",
        "span",
        {"status": "delivered"},
        (),
    )


# --- the same model call instrumented twice --------------------------------------------------


def test_an_llm_span_under_an_llm_span_that_records_messages_is_skipped() -> None:
    search = (None, "search", {"q": "x"})
    outer = llm("outer", 10, 60, inputs=[USER], outputs=[ask(search)])
    inner = llm("inner", 15, 55, inputs=[USER], outputs=[ask(search)], parent="outer")
    trace = trace_of(outer, inner)
    assert [s.span_id for s in speaking_model_spans(trace.spans)] == ["outer"]
    assert [(c.span_id, c.arguments) for c in trace.tool_calls] == [("outer", {"q": "x"})]


def test_an_llm_span_under_an_llm_span_without_messages_speaks() -> None:
    outer = llm("outer", 10, 60)
    inner = llm("inner", 15, 55, outputs=[ask((None, "search", {}))], parent="outer")
    trace = trace_of(outer, inner)
    assert [s.span_id for s in speaking_model_spans(trace.spans)] == ["outer", "inner"]
    assert [c.span_id for c in trace.tool_calls] == ["inner"]
    assert len(requested_calls(trace.spans)) == 1


# --- property: one call per call, however many places record it -----------------------------


@st.composite
def recorded_calls(draw: st.DrawFn) -> tuple[Trace, list[str], bool]:
    """N calls with ids, each asked for by one of M llm spans and answered, the asks and answers
    sent again as history to random other llm spans; with tool spans (with ids) or without. The
    spans come in a random order with random times."""
    count = draw(st.integers(min_value=1, max_value=6))
    with_tool_spans = draw(st.booleans())
    ids = [f"call-{i}" for i in range(count)]
    names = [draw(st.sampled_from(["lookup", "refund", "notify"])) for _ in ids]
    arguments = [draw(json_objects) for _ in ids]
    model_count = draw(st.integers(min_value=1, max_value=count))
    asked_by = [draw(st.integers(min_value=0, max_value=model_count - 1)) for _ in ids]
    times = st.integers(min_value=1, max_value=10_000)
    history_pool: list[Message] = []
    for i, call_id in enumerate(ids):
        history_pool.append(ask((call_id, names[i], arguments[i])))
        history_pool.append(answer(call_id, f"result {i}"))
    spans: list[Span] = []
    for m in range(model_count):
        start = draw(times)
        mine = [(ids[i], names[i], arguments[i]) for i in range(count) if asked_by[i] == m]
        history = draw(st.lists(st.sampled_from(history_pool), max_size=8))
        outputs = [ask(*mine)] if mine else [Message(role="assistant", content="ok")]
        spans.append(
            llm(f"m{m}", start, start + draw(times), inputs=[USER, *history], outputs=outputs)
        )
    if with_tool_spans:
        for i, call_id in enumerate(ids):
            recorded_args = arguments[i] if draw(st.booleans()) else {}
            spans.append(
                tool(f"t{i}", names[i], draw(times), call_id=call_id, arguments=recorded_args)
            )
    ordered = draw(st.permutations([ROOT, *spans]))
    return Trace(trace_id="t", spans=ordered), ids, with_tool_spans


@settings(max_examples=200, deadline=None)
@given(recorded_calls())
def test_every_call_recorded_in_spans_and_messages_is_exactly_one_tool_call(
    case: tuple[Trace, list[str], bool],
) -> None:
    trace, ids, with_tool_spans = case
    calls = trace.tool_calls
    assert len(calls) == len(ids)
    assert sorted(c.call_id for c in calls if c.call_id is not None) == sorted(ids)
    expected_source = "span" if with_tool_spans else "message"
    assert {c.source for c in calls} == {expected_source}
