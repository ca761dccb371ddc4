"""Ctrl-C during ``trailcheck run``: the finished trials are written as a partial report, and the
gate fails (exit 1). A real SIGINT to a real process, since that is the path users take."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

from tests.interrupted_run import partial_report, start_slow_run


def test_sigint_writes_a_partial_report_and_fails_the_gate(tmp_path: Path) -> None:
    with start_slow_run(tmp_path, delay_s=0.3) as process:
        assert process.stderr is not None
        # The first progress line is printed once the run's event loop (and its SIGINT
        # handler) is up; then a few trials finish before the interrupt.
        first = process.stderr.readline()
        assert b"52 trials" in first, first
        try:
            process.wait(timeout=1.5)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    report = partial_report(tmp_path, process.returncode, out, err)
    assert "executor" not in report["manifest"]
