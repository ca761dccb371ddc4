"""Ctrl-C during ``trailcheck run --executor ray``: the finished trials are written as a partial
report and the gate fails (exit 1), as with the local executor; the Ray started for the command
is stopped. A real SIGINT to a real process, which starts its own local Ray."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.interrupted_run import partial_report, start_slow_run

pytest.importorskip("ray")


def test_sigint_on_ray_writes_a_partial_report_and_fails_the_gate(tmp_path: Path) -> None:
    # The Ray workers inherit the environment, so they import slow_agent as the driver does.
    with start_slow_run(tmp_path, "--executor", "ray", delay_s=1.0) as process:
        assert process.stderr is not None
        # The first progress line comes once Ray is up and the run's event loop (and its
        # SIGINT handler) with it; 52 trials of at least a second each, two at a time, take
        # over 26 s, so some but not all have finished 12 s later.
        first = process.stderr.readline()
        while first and b"52 trials" not in first:  # Ray's own start-up lines come first
            first = process.stderr.readline()
        assert b"52 trials" in first
        time.sleep(12)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=90)
    report = partial_report(tmp_path, process.returncode, out, err)
    assert report["manifest"]["executor"]["name"] == "ray"
