"""Groundedness: sentences split deterministically, one structured call, value = supported/total."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.judge.support import refund_item
from trailcheck.judge import GroundednessJudge, split_sentences
from trailcheck.judge.groundedness import SentenceJudgments
from trailcheck.models import ScriptedModel

ANSWER = "Your refund of $129.00 was issued. It arrives tomorrow. Dr. Lee approved it."


def answer(*supported: bool) -> str:
    return json.dumps(
        {
            "sentences": [
                {"number": n, "supported": s, "evidence": ['"refunded":129.0'] if s else []}
                for n, s in enumerate(supported, start=1)
            ]
        }
    )


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        (
            "Verstappen won in 1:20.472. The refund of $129.00 was issued!",
            ["Verstappen won in 1:20.472.", "The refund of $129.00 was issued!"],
        ),
        (
            "Dr. Smith met J. Doe in St. Louis. See e.g. Paris.",
            ["Dr. Smith met J. Doe in St. Louis.", "See e.g. Paris."],
        ),
        ("- First item. Second.\n1. Numbered\n---\n", ["First item.", "Second.", "Numbered"]),
        (
            "Visit example.com today. ok then. 3 items shipped?",
            ["Visit example.com today. ok then.", "3 items shipped?"],
        ),
        ('He said "done." Then left.', ['He said "done."', "Then left."]),
        ("", []),
    ],
)
def test_split_sentences(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


def test_value_is_supported_over_total_and_unsupported_sentences_are_named() -> None:
    model = ScriptedModel([answer(True, False, True)])
    result = asyncio.run(GroundednessJudge(model).assess(refund_item(ANSWER)))
    assert result.value == pytest.approx(2 / 3)
    assert result.unsupported == ["It arrives tomorrow."]
    assert result.supported == ["Your refund of $129.00 was issued.", "Dr. Lee approved it."]
    judging = result.judging
    assert judging.status == "judged"
    assert judging.passed is False
    assert judging.reason == 'supported 2/3=0.667; unsupported: [2] "It arrives tomorrow."'
    assert judging.verdict is not None
    assert judging.verdict.failed_criteria == ["[2] unsupported: It arrives tomorrow."]
    assert judging.verdict.failure_mode == "unsupported_claim"
    assert model.calls[0].output_schema == SentenceJudgments.model_json_schema()


def test_all_supported_passes_and_the_prompt_numbers_the_sentences_in_a_block() -> None:
    model = ScriptedModel([answer(True, True, True)])
    result = asyncio.run(GroundednessJudge(model).assess(refund_item(ANSWER)))
    assert (result.value, result.judging.passed) == (1.0, True)
    assert result.judging.reason == "supported 3/3=1.000"
    prompt = model.calls[0].messages[1].content or ""
    assert "answer sentences>>\n[1] Your refund of $129.00 was issued.\n[2] It arrives" in prompt
    assert 'result: {"refunded":129.0}' in prompt
    assert "Judge each of the 3 numbered sentences" in prompt


def test_a_judgment_that_misses_a_sentence_is_retried() -> None:
    model = ScriptedModel([answer(True, True), answer(True, True, False)])
    result = asyncio.run(GroundednessJudge(model).assess(refund_item(ANSWER)))
    assert result.judging.attempts == 2
    assert result.value == pytest.approx(2 / 3)
    assert "must each be judged once; the answer judged [1, 2]" in (
        model.calls[1].messages[-1].content or ""
    )


def test_twice_wrong_is_unscorable_with_no_value() -> None:
    model = ScriptedModel(["no", "still no"])
    result = asyncio.run(GroundednessJudge(model).assess(refund_item(ANSWER)))
    assert result.judging.status == "unscorable"
    assert result.value is None
    assert result.judging.raw == "still no"


def test_an_answer_without_sentences_is_unscorable_not_a_vacuous_pass() -> None:
    model = ScriptedModel([])
    judging = asyncio.run(GroundednessJudge(model).judge(refund_item("")))
    assert judging.status == "unscorable"
    assert judging.reason == "the final answer has no sentence to check"
    assert model.calls == []


def test_version_depends_on_the_model() -> None:
    a = GroundednessJudge(ScriptedModel([], name="a"))
    assert a.version == GroundednessJudge(ScriptedModel([], name="a")).version
    assert a.version != GroundednessJudge(ScriptedModel([], name="b")).version
    assert a.describe()["kind"] == "groundedness"
