"""``trailcheck dataset draft`` against a scripted OpenAI-compatible server, then ``review``
and ``dataset coverage``: drafts are written, the unreachable one rejected with why, and a draft
counts as covered only once a named reviewer approves it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from tests.drafting.scenarios import HAPPY, POLICY, RATE_LIMITED, UNREACHABLE
from trailcheck.cases import load_dataset
from trailcheck.cli import app, run_cli
from trailcheck.commands.dataset import DRAFT_SIMILARITY, ScenarioName
from trailcheck.drafting import DEFAULT_SIMILARITY, SCENARIO_KINDS

pytestmark = pytest.mark.live


def _answer(*drafts: dict[str, Any]) -> str:
    return orjson.dumps({"drafts": list(drafts)}).decode()


def test_the_options_spell_out_the_librarys_values() -> None:
    assert tuple(ScenarioName) == SCENARIO_KINDS
    assert DRAFT_SIMILARITY == DEFAULT_SIMILARITY


def test_draft_review_and_coverage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.models.openai_server import running_openai_server, text_completion

    policy = tmp_path / "policy.md"
    policy.write_text(POLICY, encoding="utf-8")
    drafts = tmp_path / "drafts.yaml"
    with running_openai_server() as server:
        server.enqueue(
            text_completion(_answer(HAPPY, UNREACHABLE)),  # refunds.1
            text_completion(_answer()),  # refunds.2
            text_completion(_answer(RATE_LIMITED)),  # lookups.1
        )
        code = run_cli(
            [
                *("dataset", "draft", "--policy", str(policy), "-o", str(drafts)),
                *("--environment", "trailcheck.demo.support:enforced_shop"),
                *("--model", "drafter", "--base-url", server.base_url),
            ]
        )
        bodies = server.bodies
    out = capsys.readouterr()
    assert code == 0, out
    # The model was asked for structured output, one clause at a time, shown the shop's tools.
    assert [json.loads(b["messages"][1]["content"])["clause"]["id"] for b in bodies] == [
        "refunds.1",
        "refunds.2",
        "lookups.1",
    ]
    assert bodies[0]["response_format"]["type"] == "json_schema"
    request = json.loads(bodies[0]["messages"][1]["content"])
    assert "issue_refund" in {tool["name"] for tool in request["tools"]}
    assert "3 draft(s) added to" in out.out
    assert "refunds-1-missing-identity-check: rejected (reference path: failed): issue_refund" in (
        out.out.replace("\n", " ")
    )
    statuses = {case.id: case.review_status for case in load_dataset(drafts).cases}
    assert statuses == {
        "refunds-1-happy-path": "candidate",
        "refunds-1-missing-identity-check": "rejected",
        "lookups-1-rate-limit-retry": "candidate",
    }

    # Review shows the draft and its clause; approving names the reviewer.
    result = CliRunner().invoke(app, ["review", str(drafts), "--reviewer", "ana"], input="a\nq\n")
    assert result.exit_code == 0, result.output
    shown = result.output
    assert "source: synthetic (happy_path)" in shown
    assert "policy clause refunds.1: Verify the customer's identity before any refund." in shown
    assert "reference path: passed" in shown
    approved = {case.id: case for case in load_dataset(drafts).cases}["refunds-1-happy-path"]
    assert (approved.review_status, approved.reviewed_by) == ("approved", "ana")
    # The rejected draft cannot be approved.
    code = run_cli(
        ["review", str(drafts), "--approve", "refunds-1-missing-identity-check", "--reviewer", "a"]
    )
    assert code == 2
    assert "reference path failed" in capsys.readouterr().err

    code = run_cli(["dataset", "coverage", str(drafts), "--policy", str(policy), "--json"])
    assert code == 0
    table = json.loads(capsys.readouterr().out)
    clauses = {
        row["name"]: (row["approved"], row["candidate"], row["rejected"])
        for row in table["clauses"]
    }
    assert clauses == {"refunds.1": (1, 0, 1), "refunds.2": (0, 0, 0), "lookups.1": (0, 1, 0)}
    assert table["gaps"] == ["tool lookup_order", "clause refunds.2", "clause lookups.1"]


def test_draft_without_a_model_or_tools_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "policy.md"
    policy.write_text(POLICY, encoding="utf-8")
    out = str(tmp_path / "drafts.yaml")
    assert run_cli(["dataset", "draft", "--policy", str(policy), "-o", out]) == 2
    assert "needs --model" in capsys.readouterr().err
    code = run_cli(["dataset", "draft", "--policy", str(policy), "-o", out, "--model", "m"])
    assert code == 2
    assert "give --tools FILE, or --env" in capsys.readouterr().err
