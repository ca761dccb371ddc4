"""Ctrl-C during ``trailcheck run --executor ray``: the finished trials are written as a partial
report and the gate fails (exit 1), as with the local executor; the Ray started for the command
is stopped. A real SIGINT to a real process, which starts its own local Ray."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

pytest.importorskip("ray")

SLOW_AGENT = """
import asyncio
from trailcheck.demo.support import v2_agent

class Slow:
    def __init__(self):
        self.inner = v2_agent()

    async def respond(self, message, context):
        await asyncio.sleep(1.0)
        return await self.inner.respond(message, context)

def make():
    return Slow()
"""


def test_sigint_on_ray_writes_a_partial_report_and_fails_the_gate(tmp_path: Path) -> None:
    (tmp_path / "slow_agent.py").write_text(SLOW_AGENT)
    dataset = Path("src") / "trailcheck" / "demo" / "support" / "support.yaml"
    command = [sys.executable, "-m", "trailcheck", "run", str(dataset), "--executor", "ray"]
    command += ["--agent", "slow_agent:make", "--env", "trailcheck.demo.support:prompt_only_shop"]
    command += ["-k", "4", "--concurrency", "2", "--out", str(tmp_path / "out")]
    # The Ray workers inherit the environment, so they import slow_agent as the driver does.
    environment = {**os.environ, "PYTHONPATH": str(tmp_path)}
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment
    ) as process:
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
    assert process.returncode == 1, err.decode()
    assert b"gate failed: complete run: the run was interrupted" in out
    report = orjson.loads((tmp_path / "out" / "report.json").read_bytes())
    attempted = report["summary"]["trials"]["attempted"]
    assert report["partial"] is True
    assert 0 < attempted < 52
    assert report["manifest"]["interrupted_trials"] == 52 - attempted
    assert report["manifest"]["executor"]["name"] == "ray"
