"""A real ``trailcheck run`` of the support demo in a subprocess, interrupted by SIGINT while
trials are in flight, and the partial report it must leave.

The run's agent stands at a gate the test holds: the first case's trials go straight through,
every other trial says it is waiting (a file) and waits until the test opens the gate. With two
trials at a time, two waiting trials mean the first case's four trials have finished and nothing
else can, so the test interrupts then, however fast or slow the machine is, and knows exactly
which trials the report must hold.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tests.waiting import GUARD_S, wait_until
from trailcheck.cases import load_dataset

SUPPORT = Path("src") / "trailcheck" / "demo" / "support" / "support.yaml"
K = 4
CONCURRENCY = 2
TRIALS = 68  # the support demo's 17 cases, k = 4
FINISHED_BEFORE_THE_INTERRUPT = K  # the first case's trials, which the gate lets through

GATED_AGENT = """
import asyncio
import os
from pathlib import Path

from trailcheck.demo.support import v2_agent

GATE = Path({gate!r})
FREE_INPUT = {free_input!r}


class Gated:
    def __init__(self):
        self.inner = v2_agent()

    async def respond(self, message, context):
        if message != FREE_INPUT:
            (GATE / "waiting" / f"{{os.getpid()}}-{{id(self)}}").touch()
            while not (GATE / "open").exists():
                await asyncio.sleep(0.01)
        return await self.inner.respond(message, context)


def make():
    return Gated()
"""


# ``python -m trailcheck``, with Ctrl-C handled as Python does by default: a shell that started
# the test suite in the background (`cmd &`, nohup) makes its children ignore SIGINT, which they
# inherit, and an interrupt test must not depend on how its suite was started.
WITH_CTRL_C = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler);"
    " sys.argv[0] = 'trailcheck'; runpy.run_module('trailcheck', run_name='__main__')"
)


@dataclass
class GatedRun:
    """``trailcheck run`` of the support demo with its agent at the test's gate."""

    process: subprocess.Popen[bytes]
    gate: Path
    out: Path
    err: Path

    @classmethod
    def start(cls, tmp_path: Path, *options: str) -> GatedRun:
        """The run, started; ``gated_agent`` is importable by the run and by any process it
        starts (PYTHONPATH is inherited, so Ray's workers import it as the driver does)."""
        gate = tmp_path / "gate"
        (gate / "waiting").mkdir(parents=True)
        free_input = load_dataset(SUPPORT).cases[0].input
        agent = GATED_AGENT.format(gate=str(gate), free_input=free_input)
        (tmp_path / "gated_agent.py").write_text(agent)
        command = [sys.executable, "-c", WITH_CTRL_C, "run", str(SUPPORT), *options]
        command += ["--agent", "gated_agent:make"]
        command += ["--env", "trailcheck.demo.support:prompt_only_shop"]
        command += ["-k", str(K), "--concurrency", str(CONCURRENCY)]
        command += ["--out", str(tmp_path / "out")]
        environment = {**os.environ, "PYTHONPATH": str(tmp_path)}
        # Files, not pipes: a pipe nobody reads while the test waits could fill and stall the run.
        out, err = tmp_path / "stdout", tmp_path / "stderr"
        with out.open("wb") as stdout, err.open("wb") as stderr:
            process = subprocess.Popen(command, stdout=stdout, stderr=stderr, env=environment)
        return cls(process, gate, out, err)

    def interrupt_when_held(self) -> None:
        """Wait until every slot holds a trial at the gate, send SIGINT, then open the gate."""

        def held() -> bool:
            code = self.process.poll()
            assert code is None, f"the run ended ({code}) before its trials were held: {self.tail}"
            return len(list((self.gate / "waiting").iterdir())) >= CONCURRENCY

        wait_until(held, f"{CONCURRENCY} trials waiting at the gate")
        self.process.send_signal(signal.SIGINT)
        (self.gate / "open").touch()  # whatever was not cancelled may finish: it is not counted

    def finish(self) -> tuple[int, bytes, bytes]:
        """The exit code, stdout and stderr, once the process has ended."""
        code = self.process.wait(timeout=GUARD_S)
        return code, self.out.read_bytes(), self.err.read_bytes()

    def __enter__(self) -> GatedRun:
        return self

    def __exit__(self, *exc_info: object) -> None:
        """A run the test left running (it failed midway) is killed, not leaked."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=GUARD_S)

    @property
    def tail(self) -> str:
        return self.err.read_bytes()[-4000:].decode(errors="replace")


def partial_report(tmp_path: Path, code: int, out: bytes, err: bytes) -> dict[str, Any]:
    """The report an interrupted run wrote, checked: exit 1, the gate failed for it, the trials
    finished before the interrupt attempted, the rest counted as interrupted."""
    assert code == 1, err.decode()
    assert b"gate failed: complete run: the run was interrupted" in out
    report: dict[str, Any] = orjson.loads((tmp_path / "out" / "report.json").read_bytes())
    attempted = report["summary"]["trials"]["attempted"]
    assert report["partial"] is True
    assert attempted == FINISHED_BEFORE_THE_INTERRUPT
    assert report["manifest"]["interrupted_trials"] == TRIALS - attempted
    first_case = load_dataset(SUPPORT).cases[0].id
    attempted_by_case = {case["id"]: len(case["trials"]) for case in report["cases"]}
    assert {case for case, trials in attempted_by_case.items() if trials} == {first_case}
    return report
