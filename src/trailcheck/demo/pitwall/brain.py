"""The scripted race engineer: a deterministic stand-in for the model behind the Pit Wall agent.

One brain serves both versions of the agent; they differ only in ``get_race_results`` (see
:mod:`.tools`), because the seed's fix was in the tool's contract, not in the prompt. Given the
conversation, the brain reads the question (season, circuit, drivers, what is asked), calls the
one tool that answers it, and writes the answer from the tool's result. Like a real model it
**fills gaps from memory**: when a winner's points are more than the win is worth and the
result does not say why, it explains them with the fastest lap it remembers (:data:`MEMORY`).
With v2's result, which carries ``fastest_lap``, it cites the tool instead. The two answers
read the same; only the evidence behind the last sentence differs, which is what the
groundedness scorers are for.

It asks for the season rather than guess one, and declines questions the archive cannot
answer (weather, tickets, predictions), calling no tool.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from trailcheck.models import Reply, ToolDeclaration
from trailcheck.models.scripted import tool_call_reply
from trailcheck.trace import Message

__all__ = ["CIRCUITS", "DRIVERS", "MEMORY", "Question", "pit_wall_brain", "read_question"]

Intent = Literal["winner", "classification", "pace", "standings", "out_of_scope"]

CIRCUITS = {
    "são paulo": "interlagos",
    "sao paulo": "interlagos",
    "brazilian": "interlagos",
    "interlagos": "interlagos",
    "monza": "monza",
    "italian": "monza",
    "silverstone": "silverstone",
    "british": "silverstone",
    "spa": "spa",
    "belgian": "spa",
}
DRIVERS = {
    "verstappen": "max_verstappen",
    "norris": "norris",
    "leclerc": "leclerc",
    "piastri": "piastri",
    "russell": "russell",
    "ocon": "ocon",
    "hamilton": "hamilton",
}
_SURNAMES = {driver_id: name.title() for name, driver_id in DRIVERS.items()}
MEMORY = {(2024, "interlagos"): {"fastest_lap": "1:20.472", "lap": 67}}
"""What the model "knows" without a tool: the seed's fastest lap of the 2024 São Paulo GP."""

_POINTS_FOR_POSITION = (25, 18, 15, 12, 10, 8, 6, 4, 2, 1)
_SEASON = re.compile(r"\b(19[5-9]\d|20\d\d)\b")
_OUT_OF_SCOPE = re.compile(r"\b(weather|forecast|ticket|tickets|bet|odds|predict|will win)\b")
_PACE = re.compile(r"\b(pace|stint|lap times?)\b")
_CLASSIFICATION = re.compile(r"\b(top (?:five|5|ten|10)|classification|finishing order)\b")
_STANDINGS = re.compile(r"\b(standings|championship)\b")
_DECLINE = (
    "I can only answer from the race archive: results, drivers' standings, and lap times and"
    " pit stops of past races. I cannot help with that question."
)
_ASK_RACE = "Which race do you mean? Tell me the Grand Prix or the circuit, and the season."
_ASK_SEASON = (
    "Which season do you mean? The archive holds a race there in many seasons; tell me the"
    " year and I will look it up."
)


@dataclass(frozen=True, slots=True)
class Question:
    """What the user asked, as the brain reads it."""

    intent: Intent
    season: int | None = None
    circuit_id: str | None = None
    driver_ids: tuple[str, ...] = ()


def read_question(text: str) -> Question:
    """The intent, season, circuit and drivers of ``text``."""
    lowered = text.lower()
    if _OUT_OF_SCOPE.search(lowered):
        return Question("out_of_scope")
    season = _SEASON.search(text)
    circuit = next((cid for name, cid in CIRCUITS.items() if name in lowered), None)
    drivers = tuple(did for name, did in DRIVERS.items() if name in lowered)
    intent: Intent = "winner"
    if _PACE.search(lowered) and drivers:
        intent = "pace"
    elif _CLASSIFICATION.search(lowered):
        intent = "classification"
    elif _STANDINGS.search(lowered):
        intent = "standings"
    return Question(intent, int(season[1]) if season else None, circuit, drivers)


@dataclass(slots=True)
class _Reading:
    """The first user message, and the results of the tools called so far, by tool name."""

    question: Question | None = None
    results: dict[str, Any] = field(default_factory=dict)


def _read(messages: Sequence[Message]) -> _Reading:
    reading = _Reading()
    names: dict[str, str] = {}
    for message in messages:
        if message.role == "user" and reading.question is None:
            reading.question = read_question(message.text)
        for call in message.tool_calls:
            names[call.id or ""] = call.name
        called = names.get(message.tool_call_id or "") if message.role == "tool" else None
        if called is not None:
            reading.results[called] = orjson.loads(message.text or "null")
    return reading


def _call(question: Question) -> Reply:
    race: dict[str, Any] = {"season": question.season, "circuit_id": question.circuit_id}
    if question.intent == "pace":
        arguments = {**race, "driver_ids": list(question.driver_ids), "stint": "last"}
        return tool_call_reply("compare_lap_times", arguments)
    if question.intent == "standings":
        return tool_call_reply("get_driver_standings", {"season": question.season})
    return tool_call_reply("get_race_results", race)


def _points_sentence(winner: dict[str, Any], season: int, circuit_id: str) -> str | None:
    """Why the winner scored more than 25, from the tool when it says, else from memory."""
    if winner["points"] <= _POINTS_FOR_POSITION[0]:
        return None
    lap = winner.get("fastest_lap")
    if lap is not None and lap["rank"] == 1:
        time, number = lap["time"], lap["lap"]
    else:
        remembered = MEMORY.get((season, circuit_id))
        if remembered is None:
            return f"He scored {winner['points']} points."
        time, number = remembered["fastest_lap"], remembered["lap"]
    return (
        f"His {winner['points']} points are the win and the extra point for the race's fastest"
        f" lap, {time} on lap {number}."
    )


def _winner_answer(result: dict[str, Any]) -> str:
    winner = result["results"][0]
    sentences = [
        f"{winner['driver']} won the {result['season']} {result['race']} for"
        f" {winner['constructor']}, {_start(winner['grid'])}.",
        f"He completed the {winner['laps']} laps in {winner['time']}.",
    ]
    points = _points_sentence(winner, result["season"], result["circuit_id"])
    return " ".join([*sentences, *([points] if points else [])])


def _classification_answer(result: dict[str, Any]) -> str:
    rows = [
        f"{row['position']}. {row['driver']} ({row['constructor']}, {row['points']} points)"
        for row in result["results"][:5]
    ]
    return f"The top five of the {result['season']} {result['race']}: " + "; ".join(rows) + "."


def _stops(driver: dict[str, Any]) -> str:
    stops = [f"lap {stop['lap']} ({stop['duration']})" for stop in driver["pit_stops"]]
    return f"stops on {', '.join(stops)}" if stops else "no stops"


def _pace_answer(result: dict[str, Any]) -> str:
    lines = []
    for driver in result["drivers"]:
        [stint] = driver["stints"]
        pace = stint.get("median_pace")
        shown = (
            f"a median pace of {pace} over {stint['clean_laps']} clean laps"
            if pace
            else "no clean laps to measure"
        )
        name = _SURNAMES.get(driver["driver_id"], driver["driver_id"])
        lines.append(f"{name}: {_stops(driver)}; final stint laps {stint['laps']}, {shown}.")
    return f"Final-stint pace in the {result['season']} {result['race']}. " + " ".join(lines)


def _standings_answer(result: dict[str, Any]) -> str:
    leader = result["standings"][0]
    return (
        f"After round {result['after_round']} of {result['season']}, {leader['driver']} leads"
        f" the championship with {leader['points']} points and {leader['wins']} wins."
    )


_ANSWERS = {
    "winner": ("get_race_results", _winner_answer),
    "classification": ("get_race_results", _classification_answer),
    "pace": ("compare_lap_times", _pace_answer),
    "standings": ("get_driver_standings", _standings_answer),
}


def _start(grid: int) -> str:
    """Where a driver started: grid 0 is the pit lane (or no start at all)."""
    if grid == 0:
        return "from the pit lane"
    suffix = "th" if 10 <= grid % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(grid % 10, "th")
    return f"from {grid}{suffix} on the grid"


def pit_wall_brain(messages: Sequence[Message], tools: Sequence[ToolDeclaration] = ()) -> Reply:
    """The next reply to the conversation (see the module docstring)."""
    reading = _read(messages)
    question = reading.question or Question("out_of_scope")
    if question.intent == "out_of_scope":
        return Reply(text=_DECLINE)
    if question.season is None:
        return Reply(text=_ASK_SEASON)
    if question.circuit_id is None and question.intent != "standings":
        return Reply(text=_ASK_RACE)
    tool, answer = _ANSWERS[question.intent]
    result = reading.results.get(tool)
    if result is None:
        return _call(question)
    if isinstance(result, dict) and "error" in result:
        return Reply(text=f"The archive could not answer: {result['error']}")
    return Reply(text=answer(result))
