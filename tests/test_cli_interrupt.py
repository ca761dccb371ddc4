"""Ctrl-C during ``trailcheck run``: the finished trials are written as a partial report, and the
gate fails (exit 1). A real SIGINT to a real process, since that is the path users take."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.interrupted_run import GatedRun, partial_report

pytestmark = pytest.mark.live


def test_sigint_writes_a_partial_report_and_fails_the_gate(tmp_path: Path) -> None:
    with GatedRun.start(tmp_path) as run:
        run.interrupt_when_held()
        report = partial_report(tmp_path, *run.finish())
    assert "executor" not in report["manifest"]
