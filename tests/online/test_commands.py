"""``trailcheck online run`` and ``online status`` end to end on a store: the counts of a pass,
the status JSON of the issue's shape with windows, and a judge behind an OpenAI-compatible
server on 127.0.0.1 whose tokens and model land in the execution rows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.models.openai_server import OpenAIServer, running_openai_server, text_completion
from tests.online.test_worker import scores, traffic
from trailcheck.cases import load_dataset
from trailcheck.cli import run_cli
from trailcheck.demo.online import DEMO_ONLINE_FILE, TrafficShape, support_traffic
from trailcheck.online import is_sampled
from trailcheck.store import Store, schema

ONLINE = """\
evaluators:
  - name: refund-policy
    rule: refund_without_identity_check
    sampling: 0.5
    delay: 0s
"""

JUDGED = """\
evaluators:
  - name: completion
    judge: task_completion
    sampling: 1.0
"""

VERDICT = {
    "evidence": ["Refunded."],
    "passed_criteria": [],
    "failed_criteria": ["the request was met"],
    "failure_mode": "refund_not_confirmed",
    "passed": False,
}


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with running_openai_server() as running:
        yield running


def test_run_once_then_status_reports_the_rate_with_its_interval_and_windows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'store.db'}"
    with Store.open(db) as store:
        store.ingest(traffic(120))
    config = tmp_path / "online.yaml"
    config.write_text(ONLINE)

    assert run_cli(["online", "run", "--config", str(config), "--db", db, "--once", "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    sampled = [t for t in traffic(120) if is_sampled(t.trace_id, 0.5)]
    failing = [t for t in sampled if not any(c.name == "verify_identity" for c in t.tool_calls)]
    assert counts["planned"] == 120
    assert counts["scored"] == len(sampled)
    assert counts["failed"] == len(failing)

    assert run_cli(["online", "status", "--db", db, "--window", "1h", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    [row] = status["evaluators"]
    assert (row["name"], row["scored"], row["passed"]) == (
        "refund-policy",
        len(sampled),
        len(sampled) - len(failing),
    )
    low, high = row["interval"]
    assert row["failure_rate"] == pytest.approx(len(failing) / len(sampled))
    assert low < row["failure_rate"] < high
    assert sum(window["scored"] for window in row["windows"]) == len(sampled)
    assert row["waiting"] == 0

    assert run_cli(["online", "status", "--db", db]) == 0
    assert "refund-policy@" in capsys.readouterr().out


def test_a_judge_behind_a_loopback_server_is_scored_and_its_cost_recorded(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'store.db'}"
    with Store.open(db) as store:
        store.ingest(traffic(2))
    config = tmp_path / "online.yaml"
    config.write_text(JUDGED)
    server.enqueue(
        *[text_completion(json.dumps(VERDICT), prompt_tokens=120, completion_tokens=30)] * 2
    )

    argv = ["online", "run", "--config", str(config), "--db", db, "--once", "--json"]
    judge = ["--judge-model", "judge-model", "--judge-base-url", server.base_url]
    assert run_cli([*argv, *judge]) == 0

    assert json.loads(capsys.readouterr().out)["failed"] == 2
    assert len(server.requests) == 2
    with Store.open(db) as store:
        assert set(scores(store, "completion").values()) == {False}
        table = schema.online_executions
        with store.engine.connect() as connection:
            rows = connection.execute(
                select(table.c.model, table.c.input_tokens, table.c.output_tokens)
            ).all()
        online = [f for f in store.findings() if f.source.startswith("online:completion@")]
    assert rows == [("test-model-2024", 120, 30)] * 2
    assert {f.label for f in online} == {"refund_not_confirmed"}


def test_a_judge_file_without_a_model_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "online.yaml"
    config.write_text(JUDGED)
    db = f"sqlite:///{tmp_path / 'store.db'}"

    assert run_cli(["online", "run", "--config", str(config), "--db", db, "--once"]) == 2
    assert "--judge-model" in capsys.readouterr().err


def test_run_once_prints_the_alerts_that_fired(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'store.db'}"
    with Store.open(db) as store:
        store.ingest(support_traffic(TrafficShape(traces=1600)))
    config = tmp_path / "online.yaml"
    config.write_text(
        DEMO_ONLINE_FILE.split("  - name: task-completion")[0]
        + "alerts:"
        + DEMO_ONLINE_FILE.split("alerts:")[1]
    )

    assert run_cli(["online", "run", "--config", str(config), "--db", db, "--once", "--json"]) == 0

    captured = capsys.readouterr()
    assert json.loads(captured.out)["alerts"] == 5
    assert captured.err.count("alert refund-identity-high") == 4
    assert captured.err.count("alert refund-identity-jump") == 1


def test_online_failures_feed_clusters_and_promote_draws_a_review_gated_candidate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("sklearn", reason="clustering needs the loop extra")
    db = f"sqlite:///{tmp_path / 'store.db'}"
    with Store.open(db) as store:
        store.ingest(traffic(60))
    config = tmp_path / "online.yaml"
    config.write_text(ONLINE)
    assert run_cli(["online", "run", "--config", str(config), "--db", db, "--once"]) == 0

    assert run_cli(["clusters", "--db", db]) == 0
    monkeypatch.chdir(tmp_path)
    with Store.open(db) as store:
        records = store.clusters()
        online_failures = {
            f.trace_id for f in store.findings() if f.source.startswith("online:refund-policy@")
        }
    assert {trace_id for r in records for trace_id in r.member_trace_ids} == online_failures
    assert run_cli(["promote", records[0].cluster_id, "--db", db]) == 0
    [case] = load_dataset(tmp_path / "candidates.yaml").cases
    assert case.review_status == "candidate"  # a person approves it before it is a golden case
    assert set(case.source_trace_ids) <= online_failures
