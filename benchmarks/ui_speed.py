"""The web UI's trace list over a large store: server time of the list page, first page, a deep
page, and each filter, on SQLite and (given a URL) PostgreSQL.

Generates N traces straight into a fresh store (rows built here, bulk inserted: COPY on
PostgreSQL, executemany on SQLite; the schema is the migrations', m007's index included), runs
ANALYZE, then requests each list URL through the app (in process) and reads the
``Server-Timing`` header the app sets: the time from the request reaching the app to its
response, database and rendering included. Prints the median and p95 per URL::

    uv run python benchmarks/ui_speed.py                        # 20,000 traces, SQLite, quick
    uv run python benchmarks/ui_speed.py --traces 1000000 \\
        --sqlite /tmp/ui-1m.db --postgres postgresql+psycopg://user@host/db

A store that already holds exactly N traces is reused (a ``--sqlite`` file, the PostgreSQL
database), so the figures can be taken again without generating them again; otherwise a SQLite
file must be new, and the PostgreSQL database's ``public`` schema is dropped and made again.

The traces: starts one second apart (plus jitter) over N seconds; 1 to 3 tool spans from 12
tools; a finding on 5% (four labels); 3% with a failed span; sessions of 50 traces; inputs of
words from a small vocabulary, and one rare word on 0.1% of them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, insert, select, text

from trailcheck.store import Store, schema
from trailcheck.ui import UiSettings, create_ui_app

START_NS = 1_750_000_000 * 1_000_000_000
TOOLS = [
    f"tool_{name}" for name in ["lookup", "refund", "verify", "search", "cancel", "quote", "ship"]
] + [f"tool_{name}" for name in ["track", "email", "rate", "hold", "note"]]
LABELS = ["refund_without_identity_check", "wrong_order_id", "no_final_answer", "repeated_call"]
WORDS = [
    *("order", "refund", "shipping", "parcel", "invoice", "address"),
    *("delay", "broken", "card", "account", "password", "return"),
]
RARE = "zanzibar"
CHUNK = 20_000
TRACE_COLUMNS = [
    "trace_id", "content_hash", "content", "input_text", "final_output", "started_ns",
    "ended_ns", "tool_names", "span_count", "ingested_ns", "session_id",
]  # fmt: skip
SPAN_COLUMNS = [
    "trace_id", "span_id", "parent_id", "name", "kind", "tool_name", "start_ns", "end_ns", "status",
]  # fmt: skip


def _trace(
    index: int, rng: random.Random
) -> tuple[dict[str, Any], list[dict[str, Any]], str | None]:
    trace_id = f"bench-{index:08d}"
    start = START_NS + index * 1_000_000_000 + rng.randrange(1_000_000)
    words = rng.choices(WORDS, k=8)
    if index % 1000 == 7:
        words[3] = RARE
    text_in = " ".join(words)
    tools = rng.sample(TOOLS, rng.randint(1, 3))
    failed = rng.random() < 0.03
    spans = [{"trace_id": trace_id, "span_id": "root", "parent_id": None, "name": "invoke_agent",
              "kind": "agent", "tool_name": None, "start_ns": start,
              "end_ns": start + 900_000_000, "status": "unset"}]  # fmt: skip
    for n, tool in enumerate(tools):
        begin = start + (n + 1) * 100_000_000
        spans.append({"trace_id": trace_id, "span_id": f"s{n}", "parent_id": "root",
                      "name": f"execute_tool {tool}", "kind": "tool", "tool_name": tool,
                      "start_ns": begin, "end_ns": begin + 50_000_000,
                      "status": "error" if failed and n == 0 else "unset"})  # fmt: skip
    content = {
        "trace_id": trace_id,
        "input": text_in,
        "final_output": "done",
        "spans": [
            {
                "trace_id": trace_id,
                "span_id": s["span_id"],
                "parent_id": s["parent_id"],
                "name": s["name"],
                "kind": s["kind"],
                "start_ns": s["start_ns"],
                "end_ns": s["end_ns"],
                "status": {"code": s["status"]},
                **(
                    {"tool": {"name": s["tool_name"], "arguments": {"n": index}}}
                    if s["tool_name"]
                    else {}
                ),
            }
            for s in spans
        ],
    }
    row = {
        "trace_id": trace_id,
        "content_hash": f"{index:064x}",
        "content": orjson.dumps(content).decode(),
        "input_text": text_in,
        "final_output": "done",
        "started_ns": start,
        "ended_ns": start + 900_000_000,
        "tool_names": f" {' '.join(tools)} ",
        "span_count": len(spans),
        "ingested_ns": start,
        "session_id": f"session-{index // 50}",
    }
    label = LABELS[index % len(LABELS)] if rng.random() < 0.05 else None
    return row, spans, label


def _chunks(
    total: int, seed: int
) -> Iterator[tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]]:
    rng = random.Random(seed)
    for first in range(0, total, CHUNK):
        traces, spans, findings = [], [], []
        for index in range(first, min(total, first + CHUNK)):
            row, span_rows, label = _trace(index, rng)
            traces.append(row)
            spans += span_rows
            if label is not None:
                findings.append({"trace_id": row["trace_id"], "label": label, "severity": "high",
                                 "reason": "generated", "evidence": "[]", "source": "rule:bench",
                                 "created_ns": row["started_ns"]})  # fmt: skip
        yield traces, spans, findings


def _copy(engine: Engine, table: str, columns: list[str], rows: list[dict[str, Any]]) -> None:
    raw = engine.raw_connection()
    try:
        statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
        with raw.cursor() as cursor, cursor.copy(statement) as copy:  # type: ignore[attr-defined]
            for row in rows:
                copy.write_row([row[c] for c in columns])
        raw.commit()
    finally:
        raw.close()


def fill(engine: Engine, total: int, seed: int) -> float:
    """Generate and insert ``total`` traces; seconds taken."""
    began = time.perf_counter()
    postgres = engine.dialect.name == "postgresql"
    finding_columns = [
        "trace_id",
        "label",
        "severity",
        "reason",
        "evidence",
        "source",
        "created_ns",
    ]
    for traces, spans, findings in _chunks(total, seed):
        if postgres:
            _copy(engine, "traces", TRACE_COLUMNS, traces)
            _copy(engine, "spans", SPAN_COLUMNS, spans)
            _copy(engine, "findings", finding_columns, findings)
        else:
            with engine.begin() as connection:
                connection.execute(insert(schema.traces), traces)
                connection.execute(insert(schema.spans), spans)
                if findings:
                    connection.execute(insert(schema.findings), findings)
    # Statistics for the planner; on PostgreSQL also the visibility map that index-only scans
    # need, which autovacuum would set on a store in service, but only later after a bulk load.
    statement = "VACUUM ANALYZE" if postgres else "ANALYZE"
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text(statement))
    return time.perf_counter() - began


def _stored(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(schema.traces)).scalar_one())


def _reset_postgres(engine: Engine) -> None:
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))


def scenarios(total: int) -> dict[str, str]:
    middle = total // 2
    deep_start = START_NS + middle * 1_000_000_000 + 1_000_000
    day = time.strftime("%Y-%m-%dT%H:%M", time.gmtime((START_NS // 10**9) + middle))
    day_end = time.strftime("%Y-%m-%dT%H:%M", time.gmtime((START_NS // 10**9) + middle + 86_400))
    return {
        "first page": "/traces",
        "deep page (middle)": f"/traces?after={deep_start}:bench-{middle:08d}",
        "label": f"/traces?label={LABELS[0]}",
        "tool": f"/traces?tool={TOOLS[4]}",
        "session": f"/traces?session=session-{middle // 50}",
        "status=error": "/traces?status=error",
        "time range (1 day)": f"/traces?since={day}&until={day_end}",
        "text, common word": f"/traces?q={WORDS[0]}",
        "text, rare word (0.1%)": f"/traces?q={RARE}",
        "text, no match": "/traces?q=nowhere-to-be-found",
        "label + tool": f"/traces?label={LABELS[1]}&tool={TOOLS[2]}",
        "trace page": f"/traces/bench-{middle:08d}",
    }


def measure(store: Store, total: int, rounds: int) -> None:
    with TestClient(create_ui_app(store, UiSettings())) as client:
        print(f"{'page':<28} {'median ms':>10} {'p95 ms':>10} {'rows':>5}")
        for name, url in scenarios(total).items():
            times = []
            rows = 0
            for attempt in range(rounds + 3):
                response = client.get(url)
                response.raise_for_status()
                rows = response.text.count('data-testid="trace-row"')
                spent = float(response.headers["server-timing"].split("dur=")[1])
                if attempt >= 3:  # the first three warm the caches
                    times.append(spent)
            times.sort()
            p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
            print(f"{name:<28} {statistics.median(times):>10.1f} {p95:>10.1f} {rows:>5}")


def run(url: str, total: int, rounds: int, seed: int) -> None:
    with Store.open(url) as store:
        reuse = _stored(store.engine) == total
        if not reuse and store.engine.dialect.name == "postgresql":
            _reset_postgres(store.engine)
    with Store.open(url) as store:  # (again: the migrations make a reset database's tables)
        if reuse:
            print(f"{store.url}: reusing {total} stored traces")
        else:
            seconds = fill(store.engine, total, seed)
            print(f"{store.url}: {total} traces generated and inserted in {seconds:.0f} s")
        measure(store, total, rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=40, help="Requests per page measured.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sqlite", type=Path, help="SQLite file (reused when it holds N).")
    parser.add_argument("--postgres", help="A PostgreSQL URL; its tables are replaced.")
    parser.add_argument("--no-sqlite", action="store_true", help="Measure PostgreSQL only.")
    args = parser.parse_args()
    if not args.no_sqlite:
        path = args.sqlite or Path(f"/tmp/trailcheck-ui-{args.traces}.db")
        run(f"sqlite:///{path}", args.traces, args.rounds, args.seed)
    if args.postgres:
        run(args.postgres, args.traces, args.rounds, args.seed)


if __name__ == "__main__":
    main()
