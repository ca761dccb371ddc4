"""``trailcheck demo conversation`` and ``trailcheck run`` on the shipped conversation dataset:
keyless, the same files as ``trailcheck demo``, and what the output says."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest

from trailcheck.cli import run_cli
from trailcheck.run.results import load_report

DATASET = str(files("trailcheck.demo.conversation") / "conversation.yaml")
MODULE = "trailcheck.demo.conversation"


def test_the_demo_writes_both_runs_reports_and_says_who_said_what(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["demo", "conversation", "--out", str(tmp_path), "-k", "2"]) == 0
    names = ("conversation-v1", "conversation-v2")
    written = sorted(path.name for path in tmp_path.iterdir())
    assert written == sorted(
        f"{n}.{ext}" for n in names for ext in ("html", "json", "traces.jsonl")
    )
    v2 = load_report(tmp_path / "conversation-v2.json")
    assert v2.summary.pass_hat_k[2] == 1.0
    assert v2.user_replay is not None
    assert v2.user_replay.diverged == 6
    out = capsys.readouterr().out
    assert "pass^2" in out
    assert "2 sim_error" in out
    assert "user (simulated, replayed): It's A-1007." in out
    assert "simulator error: invented_fact at user turn 2" in out
    assert "8 pairs, 2 identical, 6 diverged" in out
    html = (tmp_path / "conversation-v1.html").read_text()
    assert 'data-testid="conversation"' in html
    assert "sim_error" in html


def test_trailcheck_run_plays_the_dataset_with_the_scripted_users_and_replays_a_baseline(
    tmp_path: Path,
) -> None:
    def run(agent: str, out: Path, *extra: str) -> int:
        return run_cli(
            [
                *("run", DATASET, "--agent", f"{MODULE}:{agent}"),
                *("--env", "trailcheck.demo.support:prompt_only_shop", "-k", "1"),
                *("--user-simulator", f"{MODULE}:scripted_users", "--out", str(out), *extra),
            ]
        )

    assert run("v1_agent", tmp_path / "v1") == 0
    baseline = tmp_path / "v1" / "report.json"
    assert run("v1_agent", tmp_path / "again", "--replay-user", str(baseline)) == 0
    again = load_report(tmp_path / "again" / "report.json")
    # The same agent meets the very same users: every turn replayed, none diverged.
    assert again.user_replay is not None
    assert (again.user_replay.pairs, again.user_replay.identical) == (4, 4)
    assert all(turn.replayed for trial in again.trials() for turn in trial.user_turns)
    # The faulty user's sim_error is left out of pass^k, so v2 meets a pass^k gate of 1 and v1
    # does not; a regression gate, which asks every regression trial to pass, fails both.
    assert run("v2_agent", tmp_path / "v2", "--gate-pass-hat-k", "1") == 0
    assert run("v1_agent", tmp_path / "v1-gated", "--gate-pass-hat-k", "1") == 1
    assert run("v2_agent", tmp_path / "v2-regression", "--gate-regression") == 1
