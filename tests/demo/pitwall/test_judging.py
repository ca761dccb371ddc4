"""The offline groundedness judge: trailcheck's GroundednessJudge on the scripted reader, which
supports a sentence only when its figures and race terms are in the input or a tool call."""

from __future__ import annotations

import asyncio
from typing import Any

from trailcheck.demo.pitwall.judging import scripted_judge
from trailcheck.judge.verdict import JudgeItem
from trailcheck.testing import TraceBuilder

QUESTION = "Who won the 2024 São Paulo Grand Prix?"
CRITERION = "Every sentence is supported."


def _item(result: dict[str, Any], answer: str) -> JudgeItem:
    trace = TraceBuilder(input=QUESTION).tool("get_race_results", {"season": 2024}, result=result)
    return JudgeItem(item_id="t1", trace=trace.output(answer).build(), criterion=CRITERION)


WINNER = {"driver": "Max Verstappen", "grid": 17, "points": 26}
ANSWER = (
    "Max Verstappen won the 2024 race from 17th on the grid. His 26 points include the race's"
    " fastest lap, 1:20.472 on lap 67."
)


def test_a_sentence_with_a_figure_no_tool_returned_is_unsupported_and_named() -> None:
    judge = scripted_judge()
    judging = asyncio.run(judge.judge(_item({"results": [WINNER]}, ANSWER)))
    assert judging.status == "judged"
    assert judging.verdict is not None
    assert judging.verdict.passed is False
    assert judging.verdict.failed_criteria == [
        "[2] unsupported: His 26 points include the race's fastest lap, 1:20.472 on lap 67."
    ]
    assert "supported 1/2=0.500" in judging.reason


def test_the_same_answer_passes_when_the_result_carries_the_lap() -> None:
    lap = {"rank": 1, "lap": 67, "time": "1:20.472"}
    judging = asyncio.run(
        scripted_judge().judge(_item({"results": [{**WINNER, "fastest_lap": lap}]}, ANSWER))
    )
    assert judging.verdict is not None
    assert judging.verdict.passed is True
    assert "supported 2/2=1.000" in judging.reason


def test_a_race_term_needs_its_field_even_without_a_figure() -> None:
    answer = "Max Verstappen won from 17th. He also set the fastest lap."
    judging = asyncio.run(scripted_judge().judge(_item({"results": [WINNER]}, answer)))
    assert judging.verdict is not None
    assert judging.verdict.failed_criteria == ["[2] unsupported: He also set the fastest lap."]


def test_the_scripted_model_is_sent_the_real_judges_prompt_and_schema() -> None:
    judge = scripted_judge()
    asyncio.run(judge.judge(_item({"results": [WINNER]}, ANSWER)))
    [call] = judge._model.calls  # type: ignore[attr-defined]
    assert call.output_schema is not None
    assert "sentences" in call.output_schema["properties"]
    prompt = call.messages[-1].text
    assert "[1] Max Verstappen won the 2024 race from 17th on the grid." in prompt
    assert judge.version == scripted_judge().version
