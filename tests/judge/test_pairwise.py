"""Pairwise comparisons, in both orders, and the flips between them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

from tests.judge.support import refund_item
from trailcheck.judge import PairwiseJudge, PairwiseVerdict
from trailcheck.judge.order import order_sensitivity
from trailcheck.models import Reply, ScriptedModel, ToolDeclaration
from trailcheck.trace import Message


def prefers(choice: str) -> str:
    return json.dumps({"evidence": [], "preferred": choice, "reason": "because"})


def first_shown(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply:
    """A judge with position bias: always the answer shown first."""
    return Reply(text=prefers("a"))


def better_one(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> Reply:
    """A consistent judge: whichever answer mentions the amount."""
    content = messages[-1].content or ""
    a = content.split("## Answer A")[1].split("## Answer B")[0]
    return Reply(text=prefers("a" if "$129.00" in a else "b"))


def test_compare_asks_for_the_pairwise_schema_with_both_answers_delimited() -> None:
    model = ScriptedModel([prefers("b")])
    judging = asyncio.run(PairwiseJudge(model).compare(refund_item(), "First.", "Second."))
    assert judging.status == "judged"
    assert judging.preferred == "b"
    assert judging.reason == "because"
    assert model.calls[0].output_schema == PairwiseVerdict.model_json_schema()
    content = model.calls[0].messages[1].content or ""
    assert "answer a>>\nFirst.\n<</untrusted:" in content
    assert "answer b>>\nSecond.\n<</untrusted:" in content


def test_a_position_biased_judge_flips_and_a_consistent_one_does_not() -> None:
    item = refund_item()
    biased = asyncio.run(
        PairwiseJudge(ScriptedModel(first_shown)).both_orders(item, "Refunded $129.00.", "Ok.")
    )
    assert (biased.preferred_forward, biased.preferred_swapped, biased.flipped) == (
        "a",
        "b",
        True,
    )
    steady = asyncio.run(
        PairwiseJudge(ScriptedModel(better_one)).both_orders(item, "Refunded $129.00.", "Ok.")
    )
    assert (steady.preferred_forward, steady.preferred_swapped, steady.flipped) == (
        "a",
        "a",
        False,
    )
    assert steady.swapped.preferred == "b"  # as shown: the better answer came second


def test_ties_do_not_flip_and_an_unscorable_order_has_no_flip() -> None:
    item = refund_item()
    tie = asyncio.run(
        PairwiseJudge(ScriptedModel([prefers("tie"), prefers("tie")])).both_orders(item, "x", "y")
    )
    assert tie.flipped is False
    broken = asyncio.run(
        PairwiseJudge(ScriptedModel([prefers("a"), "?", "?"])).both_orders(item, "x", "y")
    )
    assert broken.swapped.status == "unscorable"
    assert broken.flipped is None
    report = order_sensitivity([(c.item_id, c.flipped) for c in (tie, broken)])
    assert (report.n_comparisons, report.n_unscorable, report.unscorable) == (2, 1, ["t-refund"])
