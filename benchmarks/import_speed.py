"""Import speed of trailcheck JSONL against a bare ``orjson.loads`` of the same lines.

Generates N realistic traces (12 spans: an agent root, 5 model calls, 5 tool calls with JSON
arguments and JSON results, 1 guard check), writes them as trailcheck JSONL, then times, in the
same run and over several rounds: (a) ``orjson.loads`` of every line, (b)
``Trace.model_validate_json`` of every line (the records, validated as msgspec decodes them),
(c) the reader, ``parse_trace_line`` (b, with the JSON text rules held), (d) what
``trailcheck import`` of a trailcheck JSONL file runs, reading and writing each line back, on
one core (``--workers 1``) and (e) on every core, and (f) the importer reading the file.
Prints the medians and their ratios to (a) (target <= 2.0), with the load.

    uv run python benchmarks/import_speed.py [--traces 100000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from trailcheck.bulk import default_workers
from trailcheck.bulk.importing import imported_lines
from trailcheck.importing.importer import ImportSummary
from trailcheck.importing.trailcheck_jsonl import parse_trace_line, read_trailcheck_jsonl
from trailcheck.trace import ModelInvocation, Span, Status, ToolInvocation, Trace, Usage
from trailcheck.trace.jsonl import dump_trace, write_lines

TOOLS = ("lookup_order", "verify_identity", "check_refund_policy", "issue_refund", "search_orders")


def _tool_result(rng: random.Random, index: int) -> str:
    lines = [
        {
            "sku": f"SKU-{rng.randrange(10_000)}",
            "qty": rng.randrange(1, 4),
            "price": rng.random() * 200,
        }
        for _ in range(rng.randrange(1, 5))
    ]
    result = {
        "order_id": f"A-{index}",
        "customer": {"id": f"cus_{index}", "email": f"user{index}@example.com", "tier": "gold"},
        "status": rng.choice(["delivered", "in_transit", "processing"]),
        "amount": round(rng.random() * 500, 2),
        "lines": lines,
        "updated_at": "2026-06-19T10:15:00Z",
    }
    return orjson.dumps(result).decode()


def make_trace(index: int, rng: random.Random) -> Trace:
    trace_id = f"{index:032x}"
    start = 1_790_000_000_000_000_000 + index * 10_000_000_000
    root = Span(
        trace_id=trace_id,
        span_id=f"{0:016x}",
        name="invoke_agent support-agent",
        kind="agent",
        start_ns=start,
        end_ns=start + 9_000_000_000,
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support-agent"},
    )
    spans = [root]
    for step in range(5):
        t = start + (step + 1) * 1_500_000_000
        spans.append(
            Span(
                trace_id=trace_id,
                span_id=f"{2 * step + 1:016x}",
                parent_id=root.span_id,
                name="chat gpt-4o-mini",
                kind="llm",
                start_ns=t,
                end_ns=t + 700_000_000,
                attributes={"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai"},
                llm=ModelInvocation(
                    model="gpt-4o-mini",
                    usage=Usage(input_tokens=rng.randrange(500, 3000), output_tokens=60),
                ),
            )
        )
        name = TOOLS[step]
        failed = rng.random() < 0.1
        spans.append(
            Span(
                trace_id=trace_id,
                span_id=f"{2 * step + 2:016x}",
                parent_id=root.span_id,
                name=f"execute_tool {name}",
                kind="tool",
                start_ns=t + 720_000_000,
                end_ns=t + 900_000_000,
                status=Status(code="error", message="upstream timeout") if failed else Status(),
                attributes={"gen_ai.operation.name": "execute_tool"},
                tool=ToolInvocation(
                    name=name,
                    call_id=f"call_{index}_{step}",
                    arguments={
                        "order_id": f"A-{index}",
                        "reason": "arrived broken",
                        "amount": 129.0,
                    },
                    result=_tool_result(rng, index),
                    sequence=step,
                ),
            )
        )
    spans.append(
        Span(
            trace_id=trace_id,
            span_id=f"{11:016x}",
            parent_id=root.span_id,
            name="guard output",
            kind="guard",
            start_ns=start + 8_900_000_000,
            end_ns=start + 8_950_000_000,
        )
    )
    return Trace(
        trace_id=trace_id,
        input=f"Hi, I'm user{index}@example.com. Order A-{index} arrived broken, please refund it.",
        final_output=f"Your refund for order A-{index} has been issued.",
        spans=spans,
        state_after={"refunds": [{"order_id": f"A-{index}", "amount": 129.0}]},
        metadata={"agent_version": "v2", "case_id": f"case-{index % 40}"},
    )


def _time(fn: object, clock: Callable[[], float] = time.perf_counter) -> float:
    assert callable(fn)
    began = clock()
    fn()
    return clock() - began


def _command(path: Path, expected: int, workers: int) -> Callable[[], None]:
    """What ``trailcheck import`` of ``path`` runs over ``workers`` processes."""

    def run() -> None:
        summary = ImportSummary()
        with open(os.devnull, "wb") as out:
            write_lines(imported_lines([path], summary, workers=workers), out)
        assert summary.imported == expected

    return run


def _runs(path: Path, lines: list[bytes]) -> dict[str, Callable[[], None]]:
    def bare() -> None:
        for line in lines:
            orjson.loads(line)

    def decoded() -> None:
        for line in lines:
            assert isinstance(Trace.model_validate_json(line), Trace)

    def checked() -> None:
        for number, line in enumerate(lines, 1):
            assert isinstance(parse_trace_line(line, source="b", line_number=number), Trace)

    def imported() -> None:
        with path.open("rb") as stream:
            for item in read_trailcheck_jsonl(stream, str(path)):
                assert isinstance(item, Trace)

    return {
        "bare": bare,
        "decoded": decoded,
        "checked": checked,
        "command-1": _command(path, len(lines), 1),
        "command-all": _command(path, len(lines), default_workers()),
        "imported": imported,
    }


def time_paths(
    path: Path,
    lines: list[bytes],
    rounds: int,
    *,
    only: frozenset[str] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """Median seconds of each way to read the file (those named in ``only``, else all), over
    ``rounds`` interleaved rounds (so a slower moment of the machine is shared, not pinned on
    one), by ``clock``."""
    runs = {name: run for name, run in _runs(path, lines).items() if only is None or name in only}
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            gc.collect()
            times[name].append(_time(run, clock))
    return {name: statistics.median(seconds) for name, seconds in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "traces.jsonl"
        with path.open("wb") as out:
            for index in range(args.traces):
                out.write(dump_trace(make_trace(index, rng)) + b"\n")
        lines = path.read_bytes().splitlines()
        size_mb = path.stat().st_size / 1e6
        print(f"{args.traces} traces, {size_mb:.0f} MB, {size_mb * 1e3 / args.traces:.1f} kB/trace")
        medians = time_paths(path, lines, args.rounds)
    rows = {
        "bare": "orjson.loads of each line",
        "decoded": "Trace.model_validate_json of each line",
        "checked": "reader: parse_trace_line of each line",
        "command-1": "trailcheck import, 1 core (read + write)",
        "command-all": f"trailcheck import, {default_workers()} cores",
        "imported": "the importer reading the file",
    }
    with open("/proc/loadavg", encoding="ascii") as stream:
        print(f"load average {' '.join(stream.read().split()[:3])}")
    for name, label in rows.items():
        seconds = medians[name]
        print(
            f"{label:<42} median {seconds:.3f} s  ({args.traces / seconds:,.0f}/s,"
            f" {seconds / args.traces * 1e6:.1f} µs each)  {seconds / medians['bare']:.2f}x orjson"
        )


if __name__ == "__main__":
    main()
