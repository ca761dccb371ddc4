"""The scripted race engineer: what it reads in a question, which tool it calls, and what it
answers from the result: from the tool when the result explains a figure, from memory when not."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from trailcheck.demo.pitwall.brain import MEMORY, Question, pit_wall_brain, read_question
from trailcheck.trace import Message, MessageToolCall

pytestmark = pytest.mark.live


@pytest.mark.parametrize(
    ("text", "question"),
    [
        (
            "Who won the 2024 São Paulo Grand Prix?",
            Question("winner", 2024, "interlagos"),
        ),
        (
            "Compare Verstappen's and Norris's stint pace at Interlagos in 2024",
            Question("pace", 2024, "interlagos", ("max_verstappen", "norris")),
        ),
        ("Top five at Monza 2019?", Question("classification", 2019, "monza")),
        ("The 2023 championship standings, please", Question("standings", 2023)),
        ("Who won at Spa?", Question("winner", None, "spa")),
        ("Will it rain at the 2024 Brazilian GP? What's the forecast?", Question("out_of_scope")),
    ],
)
def test_reads_the_intent_season_circuit_and_drivers(text: str, question: Question) -> None:
    assert read_question(text) == question


def _conversation(question: str, tool: str | None = None, result: Any = None) -> list[Message]:
    messages = [Message(role="user", content=question)]
    if tool is not None:
        call = MessageToolCall(id="call_1", name=tool, arguments={})
        messages += [
            Message(role="assistant", tool_calls=[call]),
            Message(role="tool", tool_call_id="call_1", content=orjson.dumps(result).decode()),
        ]
    return messages


def test_asks_for_the_tool_that_answers_the_question() -> None:
    reply = pit_wall_brain(_conversation("Who won the 2024 São Paulo Grand Prix?"))
    [call] = reply.tool_calls
    assert (call.name, call.arguments) == (
        "get_race_results",
        {"season": 2024, "circuit_id": "interlagos"},
    )


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Who won at Interlagos?", "Which season do you mean?"),
        ("Who won in 2024?", "Which race do you mean?"),
        ("Can I buy a ticket for Monza?", "I can only answer from the race archive"),
    ],
)
def test_asks_back_or_declines_without_a_tool(question: str, answer: str) -> None:
    reply = pit_wall_brain(_conversation(question))
    assert reply.tool_calls == []
    assert (reply.text or "").startswith(answer)


def _race(fastest_lap: dict[str, Any] | None, points: int = 26) -> dict[str, Any]:
    winner: dict[str, Any] = {
        "position": 1,
        "driver": "Max Verstappen",
        "constructor": "Red Bull",
        "grid": 17,
        "laps": 69,
        "time": "2:06:54.430",
        "points": points,
    }
    if fastest_lap is not None:
        winner["fastest_lap"] = fastest_lap
    return {
        "season": 2024,
        "race": "São Paulo Grand Prix",
        "circuit_id": "interlagos",
        "results": [winner],
    }


def _winner_answer(result: dict[str, Any]) -> str:
    question = "Who won the 2024 São Paulo Grand Prix?"
    return pit_wall_brain(_conversation(question, "get_race_results", result)).text or ""


def test_cites_the_tools_fastest_lap_when_the_result_has_one() -> None:
    answer = _winner_answer(_race({"rank": 1, "lap": 52, "time": "1:19.999"}))
    assert answer.endswith("the race's fastest lap, 1:19.999 on lap 52.")


def test_fills_the_unexplained_points_from_memory_like_the_seed_model() -> None:
    remembered = MEMORY[(2024, "interlagos")]
    answer = _winner_answer(_race(None))
    assert answer.startswith("Max Verstappen won the 2024 São Paulo Grand Prix for Red Bull,")
    assert "from 17th on the grid" in answer
    assert answer.endswith(f"{remembered['fastest_lap']} on lap {remembered['lap']}.")


def test_says_nothing_about_points_a_win_explains() -> None:
    answer = _winner_answer(_race(None, points=25))
    assert "points" not in answer
    assert answer.endswith("in 2:06:54.430.")


@pytest.mark.parametrize(
    ("grid", "start"),
    [
        (0, "from the pit lane."),
        (1, "from 1st on the grid."),
        (12, "from 12th on the grid."),
        (22, "from 22nd on the grid."),
    ],
)
def test_says_where_the_winner_started(grid: int, start: str) -> None:
    race = _race(None, points=25)
    race["results"][0]["grid"] = grid
    first_sentence = _winner_answer(race).split(". ")[0] + "."
    assert first_sentence.endswith(f"for Red Bull, {start}")


def test_a_tool_error_is_told_to_the_user() -> None:
    error = {"error": "RaceNotFoundError: no race season 1949 at 'interlagos' in the archive"}
    answer = _winner_answer(error)
    assert answer == f"The archive could not answer: {error['error']}"
