"""The Recorder turns a live run into a Trace: its tools, model calls, state, input and output."""

from __future__ import annotations

import asyncio
import datetime as dt
import inspect
import re
from typing import Any

import pytest

from tests.waiting import forever, wait_for_event
from trailcheck.capture import Recorder, SeededIds, record_tool
from trailcheck.errors import UsageError
from trailcheck.trace import Message, Span, Trace, Usage


class Shop:
    """An environment: orders in memory, tools as bound methods, state as a snapshot."""

    def __init__(self) -> None:
        self.orders: dict[str, dict[str, Any]] = {"A-1": {"status": "delivered", "refunded": False}}

    def lookup_order(self, order_id: str, *, verbose: bool = False) -> dict[str, Any]:
        """Look an order up by id."""
        return dict(self.orders[order_id])

    def issue_refund(self, order_id: str) -> str:
        if self.orders[order_id]["status"] != "delivered":
            raise PermissionError(f"order {order_id} is not delivered")
        self.orders[order_id]["refunded"] = True
        return "refunded"

    def snapshot(self) -> dict[str, Any]:
        return {"orders": self.orders}


def tool_spans(trace: Trace) -> list[Span]:
    return [span for span in trace.spans if span.kind == "tool"]


def root_of(trace: Trace) -> Span:
    root = trace.tree.root
    assert root is not None
    return root


def test_sync_tools_record_arguments_results_order_and_parents() -> None:
    shop = Shop()
    recorder = Recorder(agent_name="support", input="Refund A-1", environment=shop)
    lookup, refund = recorder.wrap_tools([shop.lookup_order, shop.issue_refund])
    with recorder:
        assert lookup("A-1") == {"status": "delivered", "refunded": False}
        assert refund(order_id="A-1") == "refunded"
        recorder.set_output("Refunded.")

    trace = recorder.trace
    root = root_of(trace)
    assert root.kind == "agent"
    assert root.name == "invoke_agent support"
    assert root.status.code == "ok"
    assert [(c.name, c.arguments, c.result) for c in trace.tool_calls] == [
        ("lookup_order", {"order_id": "A-1"}, {"status": "delivered", "refunded": False}),
        ("issue_refund", {"order_id": "A-1"}, "refunded"),
    ]
    spans = tool_spans(trace)
    assert [span.parent_id for span in spans] == [root.span_id, root.span_id]
    assert [span.tool.sequence for span in spans if span.tool] == [0, 1]
    assert all(span.status.code == "ok" for span in spans)
    # A Python call answers no model request: it has no call id.
    assert all(c.call_id is None for c in trace.tool_calls)
    assert spans[0].start_ns < spans[1].start_ns
    assert all(s.end_ns is not None and s.end_ns >= s.start_ns for s in trace.spans)
    assert trace.input == "Refund A-1"
    assert trace.final_output == "Refunded."
    assert trace.metadata == {"agent_name": "support"}
    assert trace.state_before == {"orders": {"A-1": {"status": "delivered", "refunded": False}}}
    assert trace.state_after == {"orders": {"A-1": {"status": "delivered", "refunded": True}}}
    assert re.fullmatch(r"[0-9a-f]{32}", trace.trace_id)
    assert all(re.fullmatch(r"[0-9a-f]{16}", span.span_id) for span in trace.spans)


def test_async_tools_are_awaited_and_recorded() -> None:
    async def search(query: str, limit: int = 3) -> list[str]:
        await asyncio.sleep(0)
        return [f"{query}-{i}" for i in range(limit)]

    recorder = Recorder()
    wrapped = recorder.tool(search)
    assert inspect.iscoroutinefunction(wrapped)

    async def run() -> None:
        async with recorder:
            assert await wrapped("shoes", limit=2) == ["shoes-0", "shoes-1"]

    asyncio.run(run())
    [call] = recorder.trace.tool_calls
    assert (call.name, call.arguments, call.result) == (
        "search",
        {"query": "shoes", "limit": 2},
        ["shoes-0", "shoes-1"],
    )


def test_a_raising_tool_records_the_error_and_the_caller_gets_the_same_exception() -> None:
    shop = Shop()
    shop.orders["B-2"] = {"status": "shipped", "refunded": False}
    recorder = Recorder()
    refund = recorder.tool(shop.issue_refund)
    with recorder:
        with pytest.raises(PermissionError) as raised:
            refund("B-2")
        assert str(raised.value) == "order B-2 is not delivered"

    [span] = tool_spans(recorder.trace)
    assert span.status.code == "error"
    assert span.status.message == "PermissionError: order B-2 is not delivered"
    [event] = span.events
    assert event.name == "exception"
    assert event.attributes["exception.type"] == "PermissionError"
    assert event.attributes["exception.message"] == "order B-2 is not delivered"
    assert "issue_refund" in event.attributes["exception.stacktrace"]
    [call] = recorder.trace.tool_calls
    assert call.error == "PermissionError: order B-2 is not delivered"
    assert call.result is None
    assert root_of(recorder.trace).status.code == "ok"  # the agent caught it


def test_a_run_that_raises_keeps_its_trace_and_the_error_propagates() -> None:
    shop = Shop()
    recorder = Recorder(environment=shop)
    lookup = recorder.tool(shop.lookup_order)

    def run() -> None:
        with recorder:
            lookup("A-1")
            lookup("missing")

    with pytest.raises(KeyError):
        run()

    trace = recorder.trace
    root = root_of(trace)
    assert root.status.code == "error"
    assert root.status.message == "KeyError: 'missing'"
    assert [event.name for event in root.events] == ["exception"]
    assert [(c.arguments["order_id"], c.error) for c in trace.tool_calls] == [
        ("A-1", None),
        ("missing", "KeyError: 'missing'"),
    ]
    assert trace.state_after == trace.state_before


def test_a_timeout_keeps_the_partial_trace_with_the_cancelled_call() -> None:
    deadlines: list[asyncio.Timeout] = []

    async def slow_lookup(order_id: str) -> str:
        # Time runs out once this call is under way, however slow the machine: the timeout
        # cancels this call, never the fast one before it.
        deadlines[0].reschedule(asyncio.get_running_loop().time())
        await forever()
        return "never"

    async def fast_lookup(order_id: str) -> str:
        return "found"

    recorder = Recorder()
    slow, fast = recorder.wrap_tools([slow_lookup, fast_lookup])

    async def run() -> None:
        async with asyncio.timeout(None) as deadline, recorder:
            deadlines.append(deadline)
            await fast("A-1")
            await slow("A-1")

    with pytest.raises(TimeoutError):
        asyncio.run(run())
    trace = recorder.trace
    assert [(c.name, c.result, c.error) for c in trace.tool_calls] == [
        ("fast_lookup", "found", None),
        ("slow_lookup", None, "CancelledError"),
    ]
    assert root_of(trace).status.code == "error"
    assert root_of(trace).status.message == "CancelledError"
    assert trace.usage is not None
    assert trace.usage.latency_ms is not None


def test_decorated_sync_agent_takes_input_from_its_first_argument_and_output_from_return() -> None:
    shop = Shop()
    recorder = Recorder(environment=shop, metadata={"prompt_version": "v3"})
    lookup = recorder.tool(shop.lookup_order)

    @recorder
    def support_agent(question: str, order_id: str) -> dict[str, Any]:
        """Answers questions about orders."""
        return {"answer": lookup(order_id)["status"]}

    assert support_agent.__name__ == "support_agent"
    assert support_agent.__doc__ == "Answers questions about orders."
    assert support_agent("Where is A-1?", "A-1") == {"answer": "delivered"}
    trace = recorder.trace
    assert trace.input == "Where is A-1?"
    assert trace.final_output == {"answer": "delivered"}
    assert trace.metadata == {"prompt_version": "v3", "agent_name": "support_agent"}
    assert root_of(trace).name == "invoke_agent support_agent"
    assert [c.name for c in trace.tool_calls] == ["lookup_order"]

    first_id = trace.trace_id
    support_agent("Again?", "A-1")
    assert recorder.trace.trace_id != first_id  # each call is a run of its own


def test_decorated_async_agent_with_messages_and_an_explicit_output() -> None:
    recorder = Recorder(agent_name="chat")

    @recorder
    async def agent(messages: list[dict[str, str]]) -> str:
        recorder.set_output({"text": "hi"})
        await asyncio.sleep(0)
        return "ignored: set_output was called"

    result = asyncio.run(agent([{"role": "user", "content": "hello"}]))
    assert result == "ignored: set_output was called"
    assert recorder.trace.input == [Message(role="user", content="hello")]
    assert recorder.trace.final_output == {"text": "hi"}
    assert recorder.trace.input_text == "hello"


def test_decorated_agent_that_raises_keeps_the_trace() -> None:
    recorder = Recorder()

    @recorder
    def agent(question: str) -> str:
        raise RuntimeError("model unavailable")

    with pytest.raises(RuntimeError, match="model unavailable"):
        agent("hi")
    assert recorder.trace.input == "hi"
    assert root_of(recorder.trace).status.message == "RuntimeError: model unavailable"


def test_snapshots_are_copies_taken_before_and_after() -> None:
    shop = Shop()
    recorder = Recorder(environment=shop)
    with recorder:
        shop.orders["A-1"]["status"] = "returned"
    shop.orders["A-1"]["status"] = "changed after the run"
    assert recorder.trace.state_before == {
        "orders": {"A-1": {"status": "delivered", "refunded": False}}
    }
    assert recorder.trace.state_after == {
        "orders": {"A-1": {"status": "returned", "refunded": False}}
    }


def test_a_failing_final_snapshot_is_raised_and_recorded_on_the_root() -> None:
    class Flaky:
        calls = 0

        def snapshot(self) -> dict[str, Any]:
            self.calls += 1
            if self.calls == 2:
                raise ConnectionError("database gone")
            return {"ok": True}

    recorder = Recorder(environment=Flaky())
    with pytest.raises(ConnectionError), recorder:
        pass
    root = root_of(recorder.trace)
    assert recorder.trace.state_before == {"ok": True}
    assert recorder.trace.state_after is None
    assert root.status.message == "ConnectionError: database gone"
    [event] = root.events
    assert event.attributes["trailcheck.capture.phase"] == "state_after"


def test_model_calls_become_llm_spans_and_usage_is_summed() -> None:
    recorder = Recorder()
    with recorder:
        recorder.model_call(
            model="gpt-4o",
            provider="openai",
            input_messages=[{"role": "user", "content": "Refund A-1"}],
            output_messages=[Message(role="assistant", content="Looking it up")],
            usage={"input_tokens": 10, "output_tokens": 4, "cost_usd": 0.01},
        )
        with recorder.model(
            model="gpt-4o", input_messages=[{"role": "user", "content": "2"}]
        ) as call:
            call.record_reply(
                [{"role": "assistant", "content": "Done"}],
                usage=Usage(input_tokens=20, output_tokens=1),
                response_model="gpt-4o-2024-08-06",
            )

    llm_spans = [span for span in recorder.trace.spans if span.kind == "llm"]
    assert [span.name for span in llm_spans] == ["chat gpt-4o", "chat gpt-4o"]
    first, second = (span.llm for span in llm_spans)
    assert first is not None
    assert second is not None
    assert (first.model, first.provider) == ("gpt-4o", "openai")
    assert first.input_messages == [Message(role="user", content="Refund A-1")]
    assert first.output_messages == [Message(role="assistant", content="Looking it up")]
    assert second.model == "gpt-4o-2024-08-06"
    assert second.output_messages == [Message(role="assistant", content="Done")]
    assert llm_spans[1].attributes["gen_ai.request.model"] == "gpt-4o"
    usage = recorder.trace.usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.cost_usd) == (30, 5, 0.01)


def test_a_failing_model_call_is_an_error_span() -> None:
    recorder = Recorder()
    with recorder, pytest.raises(TimeoutError), recorder.model(model="m"):
        raise TimeoutError("read timed out")
    [span] = [span for span in recorder.trace.spans if span.kind == "llm"]
    assert span.status.message == "TimeoutError: read timed out"
    assert recorder.trace.usage is not None
    assert recorder.trace.usage.input_tokens is None


def test_tools_inside_nested_spans_and_tools_get_the_right_parent() -> None:
    recorder = Recorder()

    @recorder.tool
    def leaf(x: int) -> int:
        return x + 1

    @recorder.tool
    def composite(x: int) -> int:
        return leaf(x) * 2

    with recorder:
        with recorder.span("retrieve", kind="retriever", attributes={"k": 3}) as retrieval:
            assert composite(1) == 4
        leaf(0)

    trace = recorder.trace
    spans = {span.name: span for span in trace.spans if span.name != "execute_tool leaf"}
    leaves = [span for span in trace.spans if span.name == "execute_tool leaf"]
    root = root_of(trace)
    assert spans["retrieve"].span_id == retrieval.span_id
    assert spans["retrieve"].kind == "retriever"
    assert spans["retrieve"].attributes == {"k": 3}
    assert spans["retrieve"].parent_id == root.span_id
    assert spans["execute_tool composite"].parent_id == retrieval.span_id
    assert [span.parent_id for span in leaves] == [
        spans["execute_tool composite"].span_id,
        root.span_id,
    ]
    assert [c.name for c in trace.tool_calls] == ["composite", "leaf", "leaf"]


def test_two_agents_recorded_at_once_never_mix_spans() -> None:
    async def fetch(item: str) -> str:
        await asyncio.sleep(0)
        return item.upper()

    tool = record_tool(fetch)  # one wrapper, shared by both runs

    async def agent(name: str, recorder: Recorder, steps: int) -> None:
        async with recorder:
            for step in range(steps):
                with recorder.span(f"{name} step {step}"):
                    await fetch_twice(f"{name}-{step}")
                await asyncio.sleep(0)

    async def fetch_twice(item: str) -> None:
        await tool(item)
        await asyncio.sleep(0)
        await tool(item + "!")

    first, second = Recorder(agent_name="first"), Recorder(agent_name="second")

    async def both() -> None:
        await asyncio.gather(agent("first", first, 3), agent("second", second, 2))

    asyncio.run(both())
    for recorder, name, steps in ((first, "first", 3), (second, "second", 2)):
        trace = recorder.trace
        assert len(trace.spans) == 1 + steps * 3
        calls = [c.arguments["item"] for c in trace.tool_calls]
        assert calls == [item for s in range(steps) for item in (f"{name}-{s}", f"{name}-{s}!")]
        step_spans = {s.span_id: s for s in trace.spans if s.name.startswith(f"{name} step")}
        for span in tool_spans(trace):
            assert span.tool is not None
            step = span.tool.arguments["item"].removeprefix(f"{name}-").rstrip("!")
            assert step_spans[span.parent_id or ""].name == f"{name} step {step}"
        assert [s.tool.sequence for s in tool_spans(trace) if s.tool] == list(range(2 * steps))
    assert first.trace.trace_id != second.trace.trace_id


def test_sync_tools_in_threads_keep_their_parent() -> None:
    recorder = Recorder()

    @recorder.tool
    def blocking(n: int) -> int:
        return n * n

    async def run() -> list[int]:
        async with recorder:
            with recorder.span("parallel") as parallel:
                results = await asyncio.gather(*(asyncio.to_thread(blocking, n) for n in range(5)))
        assert all(span.parent_id == parallel.span_id for span in tool_spans(recorder.trace))
        return list(results)

    assert asyncio.run(run()) == [0, 1, 4, 9, 16]
    assert sorted(c.result for c in recorder.trace.tool_calls) == [0, 1, 4, 9, 16]
    assert sorted(s.tool.sequence for s in tool_spans(recorder.trace) if s.tool) == list(range(5))


def test_the_recorder_current_where_a_tool_is_called_records_it() -> None:
    shop = Shop()
    wrapping, running = Recorder(), Recorder()
    lookup = wrapping.tool(shop.lookup_order)

    assert lookup("A-1")["status"] == "delivered"  # outside any recording: it just runs
    with running:
        lookup("A-1")
    with wrapping:
        pass
    assert [c.name for c in running.trace.tool_calls] == ["lookup_order"]
    assert wrapping.trace.tool_calls == []


def test_a_recorder_entered_inside_another_records_a_separate_trace() -> None:
    @record_tool
    def step(n: int) -> int:
        return n

    outer, inner = Recorder(agent_name="outer"), Recorder(agent_name="inner")
    with outer:
        step(1)
        with inner:
            step(2)
        step(3)
    assert [c.arguments["n"] for c in outer.trace.tool_calls] == [1, 3]
    assert [c.arguments["n"] for c in inner.trace.tool_calls] == [2]
    assert root_of(inner.trace).parent_id is None


def test_wrapping_keeps_signature_name_docstring_and_wrapped() -> None:
    shop = Shop()
    wrapped = record_tool(shop.lookup_order)
    assert wrapped.__name__ == "lookup_order"
    assert wrapped.__doc__ == "Look an order up by id."
    assert wrapped.__wrapped__ == shop.lookup_order  # type: ignore[attr-defined]
    assert inspect.signature(wrapped) == inspect.signature(shop.lookup_order)
    renamed = record_tool(shop.lookup_order, name="find_order")
    with Recorder() as recorder:
        renamed("A-1")
    assert recorder.trace.tool_calls[0].name == "find_order"


def test_arguments_are_bound_by_name_and_converted_for_json() -> None:
    class Opaque:
        def __repr__(self) -> str:
            return "<Opaque>"

    def book(
        when: dt.date, seats: tuple[int, ...], *notes: str, client: object = None, **extra: Any
    ) -> bytes:
        return b"\x00\xff"

    tool = record_tool(book)
    with Recorder() as recorder:
        tool(dt.date(2025, 1, 2), (1, 2), "aisle", client=Opaque(), vip=True, ratio=float("nan"))

    [span] = tool_spans(recorder.trace)
    [call] = recorder.trace.tool_calls
    assert call.arguments == {
        "when": "2025-01-02",
        "seats": [1, 2],
        "notes": ["aisle"],
        "client": "<Opaque>",
        "vip": True,
        "ratio": "NaN",
    }
    assert call.result == "AP8="  # URL-safe base64 of the bytes
    assert span.attributes["trailcheck.capture.repr_fields"] == ["arguments.client"]


def test_arguments_that_fit_no_signature_are_kept_and_the_tool_raises_its_own_error() -> None:
    tool = record_tool(lambda order_id: order_id, name="lookup")
    with Recorder() as recorder, pytest.raises(TypeError):
        tool("A-1", "extra", flag=1)
    [call] = recorder.trace.tool_calls
    assert call.arguments == {"*args": ["A-1", "extra"], "flag": 1}
    assert call.error is not None
    assert call.error.startswith("TypeError")


def test_a_tool_decorated_in_a_class_body_does_not_record_self() -> None:
    class Calendar:
        @record_tool
        def free_slots(self, day: str) -> list[str]:
            return [f"{day} 10:00"]

    with Recorder() as recorder:
        assert Calendar().free_slots("mon") == ["mon 10:00"]
    assert recorder.trace.tool_calls[0].arguments == {"day": "mon"}


def test_a_tool_mutating_its_arguments_does_not_change_what_was_recorded() -> None:
    @record_tool
    def append(items: list[int]) -> int:
        items.append(99)
        return len(items)

    with Recorder() as recorder:
        append([1])
    assert recorder.trace.tool_calls[0].arguments == {"items": [1]}


def test_a_tool_called_after_its_run_ended_warns_and_is_not_recorded() -> None:
    @record_tool
    def late() -> str:
        return "ran"

    recording_ended = asyncio.Event()

    async def run() -> asyncio.Task[str]:
        async def later() -> str:
            await wait_for_event(recording_ended.wait(), "the end of the recording")
            return late()

        async with Recorder() as recorder:
            task = asyncio.create_task(later())  # copies the recording's context
        recording_ended.set()
        assert recorder.trace.tool_calls == []
        return task

    async def main() -> str:
        task = await run()
        with pytest.warns(RuntimeWarning, match="started after the recording"):
            return await task

    assert asyncio.run(main()) == "ran"


def test_seeded_ids_make_runs_reproducible() -> None:
    def ids_of_a_run(seed: int) -> list[str]:
        recorder = Recorder(ids=SeededIds(seed))
        tool = record_tool(lambda: None, name="noop")
        with recorder:
            tool()
            tool()
        return [recorder.trace.trace_id, *(span.span_id for span in recorder.trace.spans)]

    assert ids_of_a_run(7) == ids_of_a_run(7)
    assert ids_of_a_run(7) != ids_of_a_run(8)
    assert len(set(ids_of_a_run(7))) == 4


def test_a_recorded_trace_round_trips_through_json() -> None:
    shop = Shop()
    recorder = Recorder(
        agent_name="support", environment=shop, metadata={"when": dt.date(2025, 1, 1)}
    )
    lookup, refund = recorder.wrap_tools([shop.lookup_order, shop.issue_refund])
    with recorder:
        recorder.set_input([{"role": "user", "content": "Refund A-1"}])
        lookup("A-1")
        shop.orders["B"] = {"status": "new", "refunded": False}
        with pytest.raises(PermissionError):
            refund("B")
        recorder.model_call(model="m", usage={"input_tokens": 1})
        recorder.set_output({"done": True})
    trace = recorder.trace
    again = Trace.model_validate_json(trace.model_dump_json())
    assert again == trace
    assert again.tool_calls == trace.tool_calls
    assert trace.metadata["when"] == "2025-01-01"


def test_misuse_is_a_usage_error() -> None:
    recorder = Recorder()
    with pytest.raises(UsageError, match="has not run yet"):
        _ = recorder.trace
    with pytest.raises(UsageError, match="not recording"):
        recorder.set_output("x")
    with recorder:
        with pytest.raises(UsageError, match="already recording"), recorder:
            pass
        with pytest.raises(UsageError, match="still running"):
            _ = recorder.trace
    with pytest.raises(UsageError, match="generator"):
        record_tool(lambda: (yield))
    with pytest.raises(UsageError, match="neither a text nor a list of messages"):
        Recorder(input=[{"role": "robot"}])


def test_a_model_call_nested_in_another_reporting_usage_is_counted_once() -> None:
    recorder = Recorder()
    with recorder:
        # A client library instrumented under the app's own model span: one call, two spans.
        with recorder.model(model="gpt-4o") as outer:
            recorder.model_call(model="gpt-4o", usage={"input_tokens": 10, "output_tokens": 4})
            outer.record_reply(usage={"input_tokens": 10, "output_tokens": 4, "cost_usd": 0.5})
        recorder.model_call(model="gpt-4o", usage={"input_tokens": 1, "cost_usd": 0.25})
    usage = recorder.trace.usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.cost_usd) == (11, 4, 0.75)
    root = root_of(recorder.trace)
    assert root.duration_ns is not None
    assert usage.latency_ms == root.duration_ns / 1e6


@pytest.mark.parametrize(
    ("call", "field"),
    [
        ({"input_messages": [{"role": "robot", "content": "x"}]}, "input_messages[0].role"),
        ({"output_messages": [{"role": "assistant"}, "hi"]}, "output_messages[1]"),
        ({"usage": {"input_tokens": -1}}, "usage.input_tokens"),
        ({"usage": {"tokens": 3}}, "usage.tokens"),
    ],
)
def test_bad_model_call_values_are_a_usage_error_naming_the_field(
    call: dict[str, Any], field: str
) -> None:
    recorder = Recorder()
    with recorder:
        with pytest.raises(UsageError, match=re.escape(field)) as raised:
            recorder.model_call(model="m", **call)
        assert raised.value.__cause__ is None
    # Nothing was recorded for the refused call: it is the caller's mistake, not a model error.
    assert [span.kind for span in recorder.trace.spans] == ["agent"]


def test_a_bad_reply_in_a_model_block_is_a_usage_error_naming_the_field() -> None:
    with Recorder() as recorder, recorder.model(model="m") as call:
        with pytest.raises(UsageError, match=r"usage\.output_tokens"):
            call.record_reply(usage={"output_tokens": "many"})
        call.record_reply(usage={"output_tokens": 2})
    [llm] = [span for span in recorder.trace.spans if span.kind == "llm"]
    assert llm.llm is not None
    assert llm.llm.usage is not None
    assert llm.llm.usage.output_tokens == 2
