"""Ctrl-C during ``trailcheck run --executor ray``: the finished trials are written as a partial
report and the gate fails (exit 1), as with the local executor; the Ray started for the command
is stopped. A real SIGINT to a real process, which starts its own local Ray."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.interrupted_run import GatedRun, partial_report

pytestmark = pytest.mark.live

pytest.importorskip("ray")


def test_sigint_on_ray_writes_a_partial_report_and_fails_the_gate(tmp_path: Path) -> None:
    # The Ray workers inherit the environment, so they import the gated agent as the driver does
    # and wait at the same gate.
    with GatedRun.start(tmp_path, "--executor", "ray") as run:
        run.interrupt_when_held()
        report = partial_report(tmp_path, *run.finish())
    assert report["manifest"]["executor"]["name"] == "ray"
