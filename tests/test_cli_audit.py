"""``trailcheck dataset import`` and ``trailcheck audit`` on suites written for other tools."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from trailcheck.cases import load_dataset
from trailcheck.cli import run_cli


def test_tau_bench_airline_imports_and_a_do_nothing_agent_passes_19_of_50_tasks(
    external: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tau = external / "tau-bench"
    out = tmp_path / "airline.yaml"
    code = run_cli(
        [
            *("dataset", "import", str(tau / "airline_tasks_test.json"), "--format", "tau-bench"),
            *("--tools-info", str(tau / "airline_tools_info.json"), "-o", str(out)),
        ]
    )
    assert code == 0
    err = capsys.readouterr().err
    assert "wrote" in err
    assert "50 case(s) have a simulated user: `trailcheck run` needs --user-model" in err
    assert len(load_dataset(out).cases) == 50
    assert run_cli(["audit", str(out), "--json"]) == 1
    printed = orjson.loads(capsys.readouterr().out)
    findings = printed["findings"] if isinstance(printed, dict) else printed
    trivial = {f["case_id"] for f in findings if f["check"] == "passes_trivially"}
    assert len(trivial) == 19


def test_tau_bench_import_options_set_the_turns_or_flatten_the_instruction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = tmp_path / "tasks.json"
    task = {"user_id": "ana_1", "instruction": "Cancel order 1.", "actions": [], "outputs": []}
    tasks.write_bytes(orjson.dumps([task]))
    out = tmp_path / "tasks.yaml"
    base = ["dataset", "import", str(tasks), "--format", "tau-bench", "-o", str(out)]
    assert run_cli([*base, "--max-turns", "7"]) == 0
    [case] = load_dataset(out).cases
    assert case.user is not None
    assert (case.input, case.user.max_turns) == (None, 7)
    assert "1 case(s) have a simulated user" in capsys.readouterr().err
    assert run_cli([*base, "--instruction-as-input"]) == 0
    [case] = load_dataset(out).cases
    assert (case.input, case.user) == ("Cancel order 1.", None)
    assert "simulated user" not in capsys.readouterr().err
    assert run_cli([*base, "--max-turns", "0"]) == 2


def test_adk_pit_wall_import_reports_adks_own_traps(
    external: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pit.yaml"
    code = run_cli(
        ["dataset", "import", str(external / "adk-pit-wall"), "--format", "adk", "-o", str(out)]
    )
    err = capsys.readouterr().err
    assert code == 0
    assert "4 trap(s)" in err
    assert "IN_ORDER with no expected tool uses passes any trajectory in ADK" in err
    assert len(load_dataset(out).cases) == 5


def test_the_support_demo_audits_without_high_findings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    dataset = str(Path("src") / "trailcheck" / "demo" / "support" / "support.yaml")
    code = run_cli(["audit", dataset, "--env", "trailcheck.demo.support:prompt_only_shop"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "passes_trivially" not in out


def test_unknown_import_format_is_a_usage_error(tmp_path: Path) -> None:
    assert run_cli(["dataset", "import", "x.json", "--format", "langsmith", "-o", "y.yaml"]) == 2
