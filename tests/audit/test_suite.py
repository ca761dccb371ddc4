"""audit_dataset and ``trailcheck audit`` on the support demo (clean) and a planted defect."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import typer
from typer.testing import CliRunner

from tests.audit.shop import dataset, tiny_shop
from trailcheck.audit import audit_dataset
from trailcheck.commands.audit import audit_command
from trailcheck.demo.support import prompt_only_shop, support_dataset, v2_agent

SUPPORT = str(Path("src") / "trailcheck" / "demo" / "support" / "support.yaml")
SHOP = "trailcheck.demo.support:prompt_only_shop"
VACUOUS = "name: t\ncases:\n  - id: vacuous\n    input: hi\n    expected_tools: []\n"


def test_the_support_demo_audits_without_high_findings() -> None:
    static = audit_dataset(support_dataset())
    assert static.findings == []
    result = audit_dataset(
        support_dataset(), agent_factory=v2_agent, environment_factory=prompt_only_shop
    )
    assert not result.has_high, [f for f in result.findings if f.severity == "high"]
    # What remains: expected calls the oracle cannot form from the case alone (a proof of
    # identity, a refund reason), reported as such rather than as a wrong golden.
    assert {f.check for f in result.findings} == {"oracle_incomplete"}


def test_audit_dataset_gathers_the_checks() -> None:
    result = audit_dataset(dataset(VACUOUS.split("cases:\n")[1]), environment_factory=tiny_shop)
    assert result.has_high
    assert {f.check for f in result.findings} == {"passes_trivially"}


def _cli(*arguments: str) -> tuple[int, str]:
    app = typer.Typer()
    app.command()(audit_command)
    outcome = CliRunner().invoke(app, list(arguments))
    return outcome.exit_code, outcome.output


def test_the_command_exits_0_on_the_demo() -> None:
    code, out = _cli(SUPPORT, "--env", SHOP, "--agent", "trailcheck.demo.support:v2_agent")
    assert code == 0, out
    assert "oracle_incomplete\tlow\t" in out


def test_the_command_exits_1_on_a_high_finding(tmp_path: Path) -> None:
    path = tmp_path / "vacuous.yaml"
    path.write_text(VACUOUS)
    code, out = _cli(str(path))
    assert code == 1
    assert out.startswith("vacuous\tpasses_trivially\thigh\tthe refuse agent passes it")
    code, out = _cli(str(path), "--json")
    assert code == 1
    first = orjson.loads(out)["findings"][0]
    assert first["case_id"] == "vacuous"
    assert first["severity"] == "high"


@pytest.mark.parametrize("agent", ["trailcheck.demo.support:v2_agent"])
def test_an_agent_without_an_environment_is_a_usage_error(agent: str) -> None:
    code, _ = _cli(SUPPORT, "--agent", agent)
    assert code != 0
