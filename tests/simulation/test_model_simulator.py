"""The model-played simulated user, against a real OpenAI-compatible server on 127.0.0.1: the
brief goes to the simulator only, the roles are turned around, the stop signal ends the
conversation; and ``trailcheck run --user-model`` plays a dataset's simulated users with it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.models.openai_server import OpenAIServer, running_openai_server, text_completion
from tests.run.test_simulated_users import INSTRUCTION, refund_user
from trailcheck.cli import app
from trailcheck.models.openai_client import OpenAIChatModel
from trailcheck.simulation import STOP_SIGNAL, ModelUserSimulator, Turn, UserTurn
from trailcheck.simulation.brief import prompt_digest, simulator_prompt


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with running_openai_server() as running:
        yield running


def next_turn(server: OpenAIServer, transcript: list[Turn]) -> UserTurn:
    model = OpenAIChatModel("user-sim", base_url=server.base_url, api_key_env="NO_KEY_NEEDED")

    async def ask() -> UserTurn:
        async with model:
            return await ModelUserSimulator(model).next_turn(refund_user(), transcript)

    return asyncio.run(ask())


def test_the_simulator_speaks_as_the_user_from_its_brief(server: OpenAIServer) -> None:
    server.enqueue(text_completion("It's A-1042."))
    transcript = [
        Turn(role="user", text="My blender broke.", simulated=True),
        Turn(role="agent", text="What is your order number?"),
    ]
    turn = next_turn(server, transcript)
    assert (turn.text, turn.stop) == ("It's A-1042.", False)
    assert turn.prompt_digest == prompt_digest(simulator_prompt(refund_user()))
    messages = server.bodies[0]["messages"]
    assert messages[0]["role"] == "system"
    assert INSTRUCTION in messages[0]["content"]
    assert '"A-1042"' in messages[0]["content"]  # a known fact, to tell when asked
    # Turned around: the simulated user's own turns are the assistant's.
    assert [(m["role"], m["content"]) for m in messages[1:]] == [
        ("user", "(The agent is waiting for your first message.)"),
        ("assistant", "My blender broke."),
        ("user", "What is your order number?"),
    ]


def test_the_stop_signal_ends_the_conversation(server: OpenAIServer) -> None:
    server.enqueue(text_completion(f"Thanks! {STOP_SIGNAL}"))
    turn = next_turn(server, [])
    assert turn.stop
    assert turn.text == ""


def test_run_plays_the_simulated_users_with_user_model(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = tmp_path / "refunds.yaml"
    dataset.write_text(
        "name: refunds\n"
        "cases:\n"
        "  - id: refund\n"
        "    user:\n"
        f"      instruction: {json.dumps(INSTRUCTION)}\n"
        "      known_facts: {order_id: A-1042}\n"
        "      stop_when: [{tool_called: issue_refund}]\n"
        "    expected_state: {refunds: [{order_id: A-1042, amount: 25.0}]}\n"
    )
    server.enqueue(
        text_completion("My blender arrived broken, I want 40 EUR back."),
        text_completion("It's A-1042."),
        text_completion("OK, 25 EUR then."),
    )
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-loopback-only")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            *("run", str(dataset), "--agent", "tests.run.test_simulated_users:CarefulAgent"),
            *("--env", "tests.run.test_simulated_users:Orders", "--out", str(out)),
            *("--user-model", "user-sim", "--user-base-url", server.base_url),
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    trial = report["cases"][0]["trials"][0]
    assert trial["status"] == "passed"
    assert [turn["text"] for turn in trial["user_turns"]] == [
        "My blender arrived broken, I want 40 EUR back.",
        "It's A-1042.",
        "OK, 25 EUR then.",
    ]
    assert report["manifest"]["user_simulator"]["name"] == "user-sim"
    assert len(server.requests) == 3
