"""A real ``trailcheck run`` of the support demo in a subprocess, with an agent slowed down so
that a SIGINT lands while trials are in flight, and the partial report it must leave."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

SUPPORT = Path("src") / "trailcheck" / "demo" / "support" / "support.yaml"
TRIALS = 52  # the support demo's 13 cases, k = 4

SLOW_AGENT = """
import asyncio
from trailcheck.demo.support import v2_agent

class Slow:
    def __init__(self):
        self.inner = v2_agent()

    async def respond(self, message, context):
        await asyncio.sleep({delay_s})
        return await self.inner.respond(message, context)

def make():
    return Slow()
"""


def start_slow_run(tmp_path: Path, *options: str, delay_s: float) -> subprocess.Popen[bytes]:
    """The run, started: its agent waits ``delay_s`` before each answer; ``slow_agent`` is
    importable by the run and by any process it starts (PYTHONPATH is inherited)."""
    (tmp_path / "slow_agent.py").write_text(SLOW_AGENT.format(delay_s=delay_s))
    command = [sys.executable, "-m", "trailcheck", "run", str(SUPPORT), *options]
    command += ["--agent", "slow_agent:make", "--env", "trailcheck.demo.support:prompt_only_shop"]
    command += ["-k", "4", "--concurrency", "2", "--out", str(tmp_path / "out")]
    environment = {**os.environ, "PYTHONPATH": str(tmp_path)}
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment
    )


def partial_report(tmp_path: Path, code: int, out: bytes, err: bytes) -> dict[str, Any]:
    """The report an interrupted run wrote, checked: exit 1, the gate failed for it, some but
    not all trials attempted, the rest counted as interrupted."""
    assert code == 1, err.decode()
    assert b"gate failed: complete run: the run was interrupted" in out
    report: dict[str, Any] = orjson.loads((tmp_path / "out" / "report.json").read_bytes())
    attempted = report["summary"]["trials"]["attempted"]
    assert report["partial"] is True
    assert 0 < attempted < TRIALS
    assert report["manifest"]["interrupted_trials"] == TRIALS - attempted
    return report
