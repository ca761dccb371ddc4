"""``trailcheck components`` end to end: over a store (both backends) with windows and a
period, after a backfill, and over trace files scored on the fly against a dataset's relevant
chunks; a name from traffic is shown, not obeyed, by a terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import update

from tests.components.builders import multi_agent_trace
from tests.store.test_span_scores import WEEK, _week
from trailcheck.cli import run_cli
from trailcheck.online.fields import iso
from trailcheck.store import Store, schema
from trailcheck.testing import TraceBuilder
from trailcheck.trace.jsonl import dump_trace

pytestmark = pytest.mark.live

NOW_WEEK = 2900
DATASET = """\
name: support
cases:
  - id: refund
    input: Refund A-12
    relevant_chunks:
      - query: refund policy
        chunks: [doc-1, doc-2]
"""


def _components(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert run_cli(["components", *argv, "--json"]) == 0
    found: dict[str, Any] = orjson.loads(capsys.readouterr().out)
    return found


def _by_name(found: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["component"]: row for row in found["components"]}


def _two_weeks() -> list[Any]:
    traces = [_week(f"a-{i}", NOW_WEEK - 1, refund_fails=i == 0) for i in range(10)]
    return traces + [_week(f"b-{i}", NOW_WEEK, refund_fails=i < 6) for i in range(10)]


def test_the_stores_components_with_their_rates_windows_and_period(
    store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(store_url) as store:
        store.ingest(_two_weeks())
    found = _components(["--db", store_url, "--window", "7d"], capsys)
    refund = _by_name(found)["issue_refund"]
    assert (refund["kind"], refund["calls"], refund["succeeded"]) == ("tool", 20, 13)
    assert refund["error_kinds"] == {"TimeoutError": 7}
    assert [(w["calls"], w["succeeded"]) for w in refund["windows"]] == [(10, 9), (10, 4)]
    assert refund["windows"][1]["start"] == iso(refund["windows"][1]["start_ns"])
    low, high = refund["interval"]
    assert low < 13 / 20 < high
    since = iso(NOW_WEEK * WEEK)
    this_week = _by_name(_components(["--db", store_url, "--since", since], capsys))
    assert (this_week["issue_refund"]["calls"], this_week["issue_refund"]["succeeded"]) == (10, 4)
    assert this_week["lookup_order"]["success_rate"] == 1.0


def test_backfill_scores_what_was_stored_without_scores(
    store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(store_url) as store:
        store.ingest(_two_weeks())
        with store.engine.begin() as connection:
            connection.execute(update(schema.spans).values(outcome=None, scores=None))
    assert _components(["--db", store_url], capsys)["components"] == []
    assert run_cli(["components", "--db", store_url, "--backfill", "--json"]) == 0
    captured = capsys.readouterr()
    assert "backfill: 40 span(s) of 20 trace(s) scored" in captured.err
    assert _by_name(orjson.loads(captured.out))["issue_refund"]["calls"] == 20


def test_trace_files_are_scored_against_the_cases_they_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "support.yaml"
    dataset.write_text(DATASET)
    first = multi_agent_trace("t1")
    trace = first.model_copy(update={"metadata": {**first.metadata, "case_id": "refund"}})
    other = multi_agent_trace("t2")  # names no case: scored without one
    traces = tmp_path / "traces.jsonl"
    traces.write_bytes(dump_trace(trace) + b"\n" + dump_trace(other) + b"\n")
    found = _by_name(_components([str(traces), "--dataset", str(dataset)], capsys))
    policies = found["policies"]
    assert (policies["kind"], policies["calls"]) == ("retriever", 2)
    # Only t1's retrieval has relevant chunks: doc-1 of doc-1 and doc-2.
    assert policies["means"] == {"recall_at_k": 0.5, "precision_at_k": 0.5, "retrieved": 2.0}
    assert found["lookup_order"]["error_kinds"] == {"invalid_arguments": 2, "invalid_result": 2}
    assert found["billing"]["kind"] == "agent"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["t.jsonl", "--db", "sqlite://"], "trace files or the store"),
        (["--dataset", "d.yaml"], "--dataset goes with trace files"),
        (["t.jsonl", "--backfill"], "--backfill scores the store's traces"),
        (["--window", "0s"], "window: must be longer than 0s"),
        (["--since", "yesterday"], "since: a duration ago"),
    ],
)
def test_usage_errors_exit_2_with_the_reason(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["components", *argv]) == 2
    assert message in capsys.readouterr().err


def test_the_table_shows_a_hostile_name_without_obeying_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = "lookup\x1b]0;owned\x07"
    trace = TraceBuilder("t1").tool(hostile, {}, error="boom").tool("search", {}).build()
    traces = tmp_path / "traces.jsonl"
    traces.write_bytes(dump_trace(trace) + b"\n")
    assert run_cli(["components", str(traces), "--window", "1h"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "\\x1b" in out
    assert "search" in out
    assert "0.00 [0.00, 0.79]" in out  # the hostile tool failed its one call
