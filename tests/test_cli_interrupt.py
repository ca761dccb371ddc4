"""Ctrl-C during ``trailcheck run``: the finished trials are written as a partial report, and the
gate fails (exit 1). A real SIGINT to a real process, since that is the path users take."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import orjson

SLOW_AGENT = """
import asyncio
from trailcheck.demo.support import v2_agent

class Slow:
    def __init__(self):
        self.inner = v2_agent()

    async def respond(self, message, context):
        await asyncio.sleep(0.3)
        return await self.inner.respond(message, context)

def make():
    return Slow()
"""


def test_sigint_writes_a_partial_report_and_fails_the_gate(tmp_path: Path) -> None:
    (tmp_path / "slow_agent.py").write_text(SLOW_AGENT)
    dataset = Path("src") / "trailcheck" / "demo" / "support" / "support.yaml"
    command = [sys.executable, "-m", "trailcheck", "run", str(dataset)]
    command += ["--agent", "slow_agent:make", "--env", "trailcheck.demo.support:prompt_only_shop"]
    command += ["-k", "4", "--concurrency", "2", "--out", str(tmp_path / "out")]
    environment = {**os.environ, "PYTHONPATH": str(tmp_path)}
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment
    ) as process:
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
    assert process.returncode == 1, err.decode()
    assert b"gate failed: complete run: the run was interrupted" in out
    report = orjson.loads((tmp_path / "out" / "report.json").read_bytes())
    attempted = report["summary"]["trials"]["attempted"]
    assert report["partial"] is True
    assert 0 < attempted < 52
    assert report["manifest"]["interrupted_trials"] == 52 - attempted
