"""``trailcheck detect --executor ray`` finds, prints and stores what the local path does."""

from __future__ import annotations

from pathlib import Path

import pytest

from trailcheck.cli import run_cli
from trailcheck.store import Store
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace

pytestmark = pytest.mark.live


def _trace(n: int) -> Trace:
    builder = TraceBuilder(f"t{n}", input=f"Refund order A-{n} on June 19, 2026")
    builder.tool("lookup_order", {"order_id": f"A-{n}"}, result={"total": 12.5})
    if n % 2:
        builder.tool("issue_refund", {"order_id": f"A-{n}", "date": "2026-06-17"})
    return builder.output(None if n % 5 == 0 else f"Refunded A-{n}: 12.5").build()


@pytest.mark.usefixtures("local_ray")
def test_detect_on_ray_prints_and_stores_the_local_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    printed, stored = [], []
    for name, where in (("local", ["--workers", "2"]), ("ray", ["--executor", "ray"])):
        url = f"sqlite:///{tmp_path / f'{name}.db'}"
        with Store.open(url) as store:
            store.ingest([_trace(n) for n in range(450)])  # three pages of the store
        assert run_cli(["detect", "--db", url, "--json", *where]) == 0
        printed.append(capsys.readouterr())
        with Store.open(url) as store:
            stored.append([finding.model_dump() for finding in store.findings()])
    local, remote = printed
    assert remote.out == local.out
    assert remote.err == local.err
    assert stored[0] == stored[1]
    labels = {finding["label"] for finding in stored[0]}
    assert {"refund_without_identity_check", "date_argument_mismatch"} <= labels
    assert "no_final_answer" in labels


def test_ray_options_need_the_ray_executor(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["detect", "--db", "sqlite://", "--num-cpus", "2"]) == 2
    assert "--num-cpus needs --executor ray" in capsys.readouterr().err
