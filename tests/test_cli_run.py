"""``trailcheck run | report | demo``: files written, the gate's exit codes and its reasons."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from tests.model_run import model_run
from trailcheck.cli import run_cli
from trailcheck.commands.run_impl import new_run_folder
from trailcheck.demo.support.showcase import DEMO_RUNS
from trailcheck.run.results import load_report

pytestmark = pytest.mark.live

SUPPORT = str(Path("src") / "trailcheck" / "demo" / "support" / "support.yaml")
SHOP = ["--env", "trailcheck.demo.support:prompt_only_shop"]


def _run(tmp_path: Path, agent: str, *extra: str) -> int:
    return run_cli(
        [
            *("run", SUPPORT, "--agent", f"trailcheck.demo.support:{agent}", *SHOP),
            *("-k", "2", "--out", str(tmp_path), *extra),
        ]
    )


def test_green_run_writes_its_files_and_passes_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _run(tmp_path, "v2_agent", "--html", "--gate-pass-hat-k", "0.9", "--gate-regression")
    out = capsys.readouterr().out
    assert code == 0
    assert "gate passed: pass^2 >= 0.9; every regression trial passes" in out
    report = load_report(tmp_path / "report.json")
    assert report.summary.trials.passed == report.summary.trials.attempted == 34
    traces = (tmp_path / "report.traces.jsonl").read_bytes().splitlines()
    assert [orjson.loads(line)["trace_id"] for line in traces] == [
        trial.trace_id for trial in report.trials()
    ]
    assert (tmp_path / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert report.manifest["agent"]["reference"] == "trailcheck.demo.support:v2_agent"  # type: ignore[index,call-overload]


def test_red_run_fails_the_gate_with_one_line_per_broken_threshold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _run(tmp_path, "v1_agent", "--gate-pass-hat-k", "0.9", "--gate-max-infra-errors", "0")
    out = capsys.readouterr().out
    assert code == 1
    assert "gate failed: pass^2 >= 0.9: got 0.353" in out
    # The infra-error threshold held (0 of 0), so pass^2 is the one broken line.
    assert out.count("gate failed:") == 1


def test_dataset_gate_applies_and_the_command_line_overrides_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "gated.yaml"
    source = Path(SUPPORT).read_text()
    dataset.write_text(source.replace("cases:", "gate:\n  pass_hat_k: 0.95\n  k: 2\ncases:", 1))
    base = ["run", str(dataset), "--agent", "trailcheck.demo.support:v1_agent", *SHOP]
    base += ["-k", "2", "--out", str(tmp_path / "out")]
    assert run_cli(base) == 1
    assert "gate failed: pass^2 >= 0.95: got 0.353" in capsys.readouterr().out
    assert run_cli([*base, "--gate-pass-hat-k", "0.35"]) == 0
    assert "gate passed: pass^2 >= 0.35" in capsys.readouterr().out


def test_report_shows_a_run_again_and_compares_with_a_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path / "v1", "v1_agent") == 0
    assert _run(tmp_path / "v2", "v2_agent") == 0
    capsys.readouterr()
    html = tmp_path / "v2.html"
    code = run_cli(
        [
            *("report", str(tmp_path / "v2" / "report.json")),
            *("--compare", str(tmp_path / "v1" / "report.json"), "--html", str(html)),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "McNemar" in out
    assert html.exists()


def test_bad_references_and_files_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path, "no_such_agent") == 2
    assert "has no attribute 'no_such_agent'" in capsys.readouterr().err
    not_a_report = tmp_path / "x.json"
    not_a_report.write_text('{"cases": 3}')
    assert run_cli(["report", str(not_a_report)]) == 2
    assert f"{not_a_report}: not a trailcheck report" in capsys.readouterr().err


def test_demo_writes_three_reports_and_prints_the_comparison(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["demo", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for demo in DEMO_RUNS:
        assert (tmp_path / f"{demo.name}.json").exists()
        assert (tmp_path / f"{demo.name}.html").exists()
    v1 = load_report(tmp_path / "v1-prompt-only.json")
    assert v1.summary.pass_hat_k[4] is not None
    assert v1.summary.pass_hat_k[4] < 0.9
    assert load_report(tmp_path / "v2-enforced.json").summary.pass_hat_k[4] == 1.0
    assert "v2-prompt-only against v1-prompt-only:" in out
    assert "0 regressed, 11 improved, 6 both passed, 0 both failed" in " ".join(out.split())


def test_schema_report_prints_the_shipped_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["schema", "report"]) == 0
    printed = orjson.loads(capsys.readouterr().out)
    shipped = Path("src") / "trailcheck" / "schemas" / "report.schema.json"
    assert printed == orjson.loads(shipped.read_bytes()), (
        "regenerate it: uv run trailcheck schema report > src/trailcheck/schemas/report.schema.json"
    )
    assert printed["$id"] == "urn:trailcheck:schema:report:1"
    assert set(printed["required"]) >= {"manifest", "summary", "cases", "review_statuses"}


def test_model_option_runs_the_same_loop_on_an_openai_compatible_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, bodies, base_url = model_run(tmp_path)
    assert code == 0, capsys.readouterr()
    report = load_report(tmp_path / "out" / "report.json")
    (trial,) = report.trials()
    assert trial.status == "passed"
    assert [call.name for call in trial.calls] == ["lookup_order"]
    assert trial.model_calls == 2
    # The real client sent the shop's tools and the system prompt to the server.
    first = bodies[0]
    assert first["model"] == "test-model"
    assert first["messages"][0]["role"] == "system"
    assert {tool["function"]["name"] for tool in first["tools"]} >= {"lookup_order", "issue_refund"}
    agent = report.manifest["agent"]
    assert isinstance(agent, dict)
    settings = agent["model_settings"]
    assert isinstance(settings, dict)
    assert settings["base_url"] == base_url


def test_runs_started_in_the_same_second_get_folders_of_their_own(tmp_path: Path) -> None:
    moment = datetime(2026, 12, 7, 10, 58, 59, tzinfo=UTC)
    folders = [new_run_folder("support", root=tmp_path, now=moment) for _ in range(3)]
    assert [folder.name for folder in folders] == [
        "support-20261207T105859Z",
        "support-20261207T105859Z-2",
        "support-20261207T105859Z-3",
    ]
    assert all(folder.is_dir() for folder in folders)
