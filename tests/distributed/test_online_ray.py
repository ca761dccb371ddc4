"""``trailcheck online run --once --executor ray``: a backlog drained by online workers as Ray
tasks on one store, each sampled trace scored exactly once, the alerts fired once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.online.test_worker import scores
from trailcheck.cli import run_cli
from trailcheck.demo.online import DEMO_ONLINE_FILE, TrafficShape, support_traffic
from trailcheck.online import is_sampled
from trailcheck.store import Store, schema

RULE_ONLY = DEMO_ONLINE_FILE.replace(
    "  - name: task-completion\n    judge: task_completion\n    sampling: 0.05\n", ""
)


@pytest.mark.usefixtures("local_ray")
def test_ray_workers_drain_a_backlog_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'store.db'}"
    traffic = support_traffic(TrafficShape(traces=1600))
    with Store.open(db) as store:
        store.ingest(traffic)
    config = tmp_path / "online.yaml"
    config.write_text(RULE_ONLY)

    argv = ["online", "run", "--config", str(config), "--db", db, "--once", "--json"]
    assert run_cli([*argv, "--executor", "ray", "--workers", "2"]) == 0

    counts = json.loads(capsys.readouterr().out)
    sampled = {t.trace_id for t in traffic if is_sampled(t.trace_id, 0.25)}
    assert counts["planned"] == 1600
    assert counts["scored"] == len(sampled)
    assert counts["alerts"] == 5
    with Store.open(db) as store:
        assert set(scores(store, "refund-identity")) == sampled
        table = schema.online_executions
        with store.engine.connect() as connection:
            workers = set(connection.execute(select(table.c.worker)).scalars())
            ran = list(connection.execute(select(table.c.trace_id)).scalars())
    assert len(ran) == len(set(ran))  # no trace executed twice
    assert all("/ray-" in worker for worker in workers)


def test_ray_needs_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "online.yaml"
    config.write_text(RULE_ONLY)
    db = f"sqlite:///{tmp_path / 'store.db'}"
    assert run_cli(["online", "run", "--config", str(config), "--db", db, "--executor", "ray"]) == 2
    assert "--once" in capsys.readouterr().err
