"""``trailcheck demo online``: the alerts fire on the second half only, naming the interval and
the traces; the judge's sample lies inside the rule's; a store that already holds traces is
refused rather than mixed with the demo's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trailcheck.cli import run_cli
from trailcheck.demo.online import TrafficShape
from trailcheck.store import Store
from trailcheck.testing import TraceBuilder

HOUR = 3_600 * 10**9


def test_the_alerts_fire_on_the_second_half_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["demo", "online", "--traces", "1600", "--json"]) == 0

    outcome = json.loads(capsys.readouterr().out)
    shape = TrafficShape(traces=1600)
    assert outcome["alerts_on_second_half_only"] is True
    hours = {
        (alert["alert"], (alert["window"]["start_ns"] - shape.start_ns) // HOUR)
        for alert in outcome["alerts"]
    }
    assert ("refund-identity-jump", 4) in hours
    assert {hour for _, hour in hours} == {4, 5, 6, 7}
    for alert in outcome["alerts"]:
        low, high = alert["interval"]
        assert low <= alert["failure_rate"] <= high
        assert alert["failing_traces"]
    rates = {row["name"]: row for row in outcome["status"]["evaluators"]}
    assert rates["refund-identity"]["scored"] > rates["task-completion"]["scored"] > 0
    assert outcome["pass"]["scored"] == sum(row["scored"] for row in rates.values())


def test_the_demo_prints_its_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["demo", "online", "--traces", "800"]) == 0
    out = capsys.readouterr().out
    assert "alerts fired, on the second half only" in out
    assert "alert refund-identity-high" in out


def test_a_store_holding_traces_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'busy.db'}"
    with Store.open(db) as store:
        store.ingest([TraceBuilder("someone-elses").output("hi").build()])
    assert run_cli(["demo", "online", "--db", db]) == 2
    assert "holds traces" in capsys.readouterr().err
