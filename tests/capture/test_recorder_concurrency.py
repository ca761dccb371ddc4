"""A Recorder used from threads and concurrent tasks: tools in worker threads, concurrent runs of
one decorated agent, and a run exited in another context than it was entered in."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.waiting import GUARD_S, wait_for_event
from trailcheck.capture import Recorder, record_tool
from trailcheck.errors import UsageError
from trailcheck.trace import Span, Trace

pytestmark = pytest.mark.live


def root_of(trace: Trace) -> Span:
    root = trace.tree.root
    assert root is not None
    return root


def square(n: int) -> int:
    return n * n


def test_a_recorder_tool_called_in_a_thread_pool_is_recorded_under_the_root() -> None:
    recorder = Recorder()
    tool = recorder.tool(square)
    with recorder, ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(tool, range(6))) == [0, 1, 4, 9, 16, 25]

    trace = recorder.trace
    assert sorted((c.arguments["n"], c.result) for c in trace.tool_calls) == [
        (n, n * n) for n in range(6)
    ]
    root = root_of(trace)
    assert [s.parent_id for s in trace.spans if s.kind == "tool"] == [root.span_id] * 6
    assert sorted(s.tool.sequence or 0 for s in trace.spans if s.tool) == list(range(6))


def test_a_recorder_tool_called_in_a_bare_thread_or_run_in_executor_is_recorded() -> None:
    recorder = Recorder()
    tool = recorder.tool(square)

    async def run() -> int:
        async with recorder:
            thread = threading.Thread(target=tool, args=(3,))
            thread.start()
            thread.join()
            return await asyncio.get_running_loop().run_in_executor(None, tool, 4)

    assert asyncio.run(run()) == 16
    assert sorted(c.result for c in recorder.trace.tool_calls) == [9, 16]


def test_an_unbound_record_tool_in_a_bare_thread_is_not_recorded() -> None:
    tool = record_tool(square)  # no recorder to fall back to: the calling context decides
    with Recorder() as recorder:
        thread = threading.Thread(target=tool, args=(3,))
        thread.start()
        thread.join()
    assert recorder.trace.tool_calls == []


def test_a_tool_in_a_bare_thread_while_several_runs_record_warns_and_runs() -> None:
    recorder = Recorder()
    tool = recorder.tool(square)
    entered, release = threading.Barrier(3, timeout=GUARD_S), threading.Event()
    results: list[int] = []

    def agent() -> None:
        with recorder:
            entered.wait()
            assert release.wait(timeout=GUARD_S)

    agents = [threading.Thread(target=agent) for _ in range(2)]
    for thread in agents:
        thread.start()
    entered.wait()
    try:
        with pytest.warns(RuntimeWarning, match=r"square.*2 runs.*not recorded"):
            results.append(tool(5))
    finally:
        release.set()
        for thread in agents:
            thread.join()
    assert results == [25]
    assert [trace.tool_calls for trace in recorder.traces] == [[], []]


def test_a_decorated_async_agent_called_concurrently_records_each_run() -> None:
    recorder = Recorder()
    b_returning = asyncio.Event()

    @recorder.tool
    async def lookup(order_id: str) -> str:
        await asyncio.sleep(0)
        return f"status of {order_id}"

    @recorder
    async def agent(question: str, order_id: str) -> str:
        first = await lookup(order_id)
        if order_id == "A":
            # A, mid-run, waits for B's whole run: the runs overlap, and B ends first.
            await wait_for_event(b_returning.wait(), "run B to return")
        await lookup(order_id + "!")
        recorder.set_metadata("order", order_id)
        if order_id == "B":
            b_returning.set()  # B's run ends as it returns, before A can resume
        return first

    async def both() -> list[str]:
        return list(await asyncio.gather(agent("a?", "A"), agent("b?", "B")))

    assert asyncio.run(both()) == ["status of A", "status of B"]
    # Completion order: A waited for B, which ended first.
    assert [trace.input for trace in recorder.traces] == ["b?", "a?"]
    assert recorder.trace is recorder.traces[-1]
    for trace, order in zip(recorder.traces, ("B", "A"), strict=True):
        assert [c.arguments["order_id"] for c in trace.tool_calls] == [order, order + "!"]
        assert trace.final_output == f"status of {order}"
        assert trace.metadata["order"] == order
        root = root_of(trace)
        assert all(s.parent_id == root.span_id for s in trace.spans if s is not root)
    assert recorder.traces[0].trace_id != recorder.traces[1].trace_id


def test_a_decorated_sync_agent_called_from_many_threads_records_each_run() -> None:
    recorder = Recorder()
    tool = recorder.tool(square)
    start = threading.Barrier(8, timeout=GUARD_S)

    @recorder
    def agent(question: str, n: int) -> int:
        start.wait()
        return tool(n) + tool(n + 1)

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(agent, [f"q{n}" for n in range(8)], range(8)))

    assert results == [n * n + (n + 1) ** 2 for n in range(8)]
    by_input = {str(trace.input): trace for trace in recorder.traces}
    assert sorted(by_input) == sorted(f"q{n}" for n in range(8))
    for n in range(8):
        trace = by_input[f"q{n}"]
        assert [c.arguments["n"] for c in trace.tool_calls] == [n, n + 1]
        assert trace.final_output == n * n + (n + 1) ** 2


def test_drain_takes_the_kept_traces_out() -> None:
    recorder = Recorder()
    for _ in range(3):
        with recorder:
            pass
    last = recorder.trace
    assert [t.trace_id for t in recorder.drain()][-1] == last.trace_id
    assert recorder.traces == []
    assert recorder.trace is last


def test_a_run_exited_in_another_task_is_a_usage_error_and_the_recorder_stays_usable() -> None:
    recorder = Recorder()
    tool = recorder.tool(square)

    async def enter() -> None:
        recorder.__enter__()
        tool(2)

    async def leave() -> None:
        recorder.__exit__(None, None, None)

    async def main() -> None:
        await asyncio.create_task(enter())
        with pytest.raises(UsageError, match="exited in another context"):
            await asyncio.create_task(leave())

    asyncio.run(main())
    [trace] = recorder.traces
    assert [c.result for c in trace.tool_calls] == [4]
    assert root_of(trace).end_ns is not None

    with recorder:  # usable again, in this context
        tool(3)
    assert [c.result for c in recorder.trace.tool_calls] == [9]


def test_a_run_that_raised_and_exited_elsewhere_keeps_its_own_error_with_a_note() -> None:
    recorder = Recorder()
    entered = threading.Event()

    def enter() -> None:
        recorder.__enter__()
        entered.set()

    thread = threading.Thread(target=enter)
    thread.start()
    thread.join()
    failure = RuntimeError("agent failed")
    recorder.__exit__(RuntimeError, failure, None)

    assert any("exited in another context" in note for note in failure.__notes__)
    assert root_of(recorder.trace).status.message == "RuntimeError: agent failed"
    with recorder:
        pass
    assert len(recorder.traces) == 2
