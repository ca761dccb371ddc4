"""The Pit Wall on a real model and a real judge: ``--model`` and ``--judge groundedness
--judge-model`` against an OpenAI-compatible server on 127.0.0.1 that plays the seed's model
(the right tool, then an answer with one invented sentence) and then a judge's verdicts."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import orjson
import pytest

from tests.models.openai_server import running_openai_server, text_completion, tool_call_completion
from trailcheck.cases import dump_dataset, load_dataset
from trailcheck.cli import run_cli
from trailcheck.run.results import load_report

pytestmark = pytest.mark.live

MODULE = "trailcheck.demo.pitwall"
ANSWER = (
    "Max Verstappen won the 2024 São Paulo Grand Prix from 17th on the grid. "
    "He completed all 69 laps in 2:06:54.430. "
    "His 26 points are the win and the extra point for the race's fastest lap, 1:20.472 on lap 67."
)
VERDICTS = {
    "sentences": [
        {"number": 1, "supported": True, "evidence": ["17", "Max Verstappen"]},
        {"number": 2, "supported": True, "evidence": ["69", "2:06:54.430"]},
        {"number": 3, "supported": False, "evidence": []},
    ]
}


def test_a_real_model_on_v1_fails_the_winner_on_groundedness_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full = load_dataset(Path(str(files(MODULE) / "pitwall.yaml")))
    winner = full.model_copy(update={"cases": [c for c in full.cases if c.id == "winner"]})
    dump_dataset(winner, tmp_path / "winner.yaml")
    arguments = '{"season": 2024, "circuit_id": "interlagos"}'
    with running_openai_server() as server:
        server.enqueue(
            tool_call_completion(("call_1", "get_race_results", arguments)),
            text_completion(ANSWER),
            text_completion(orjson.dumps(VERDICTS).decode()),
        )
        code = run_cli(
            [
                *("run", str(tmp_path / "winner.yaml"), "--out", str(tmp_path / "out")),
                *("--agent", f"{MODULE}:model_agent", "--env", f"{MODULE}:v1_archive"),
                *("--model", "test-model", "--base-url", server.base_url),
                *("--judge", "groundedness", "--judge-model", "test-judge"),
                *("--judge-base-url", server.base_url),
            ]
        )
        bodies = server.bodies
    assert code == 0, capsys.readouterr()
    (trial,) = load_report(tmp_path / "out" / "report.json").trials()
    passed = {score.scorer: score.passed for score in trial.scores}
    assert trial.status == "failed"
    assert passed == {"trajectory": True, "response": True, "grounding": False, "judge": False}
    judge = next(score for score in trial.scores if score.scorer == "judge")
    assert "[3] unsupported: His 26 points" in judge.reason

    # What the real client sent: the v1 contract to the agent's model, the evidence to the judge.
    agent_request, answered, judge_request = bodies
    sent = {tool["function"]["name"]: tool["function"] for tool in agent_request["tools"]}
    results = sent["get_race_results"]
    assert results["parameters"]["properties"]["season"]["minimum"] == 1950
    assert results["description"].endswith("provide exactly one of round or circuit_id.")
    assert "fastest_lap" not in results["description"]  # v1 never mentions it
    tool_message = answered["messages"][-1]
    assert tool_message["role"] == "tool"
    assert '"points":26' in tool_message["content"].replace(" ", "")
    assert "fastest_lap" not in tool_message["content"]
    assert judge_request["model"] == "test-judge"
    assert judge_request["response_format"]["type"] == "json_schema"
    prompt = "\n".join(m["content"] for m in judge_request["messages"] if m["role"] == "user")
    assert "[3] His 26 points are the win" in prompt
    assert json.loads(tool_message["content"])["results"][0]["grid"] == 17
