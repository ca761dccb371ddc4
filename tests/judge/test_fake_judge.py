"""FakeJudge: scripted verdicts for tests, items recorded, a version."""

from __future__ import annotations

import asyncio

import pytest

from tests.judge.support import refund_item
from trailcheck.errors import UsageError
from trailcheck.judge import JudgeItem, Judging, Verdict
from trailcheck.testing import FakeJudge

VERDICT = Verdict(
    evidence=["x"], passed_criteria=[], failed_criteria=["c"], failure_mode="m", passed=False
)


def test_scripted_outcomes_in_order_and_items_recorded() -> None:
    given = Judging(item_id="other", criterion="c", judge_version="v", status="unscorable")
    judge = FakeJudge(["pass", "fail", VERDICT, "unscorable", given])
    item = refund_item()
    judgings = [asyncio.run(judge.judge(item)) for _ in range(5)]
    assert [j.passed for j in judgings] == [True, False, False, None, None]
    assert judgings[2].verdict == VERDICT
    assert judgings[4] is given
    assert all(j.judge_version == judge.version for j in judgings[:4])
    assert judge.items == [item] * 5
    with pytest.raises(UsageError, match="script has 5 verdicts"):
        asyncio.run(judge.judge(item))


def test_a_function_of_the_item_and_callables_in_the_list() -> None:
    def by_answer(item: JudgeItem) -> str:
        return "pass" if "refund" in item.trace.final_text else "fail"

    assert asyncio.run(FakeJudge(by_answer).judge(refund_item("no"))).passed is False
    assert asyncio.run(FakeJudge([by_answer]).judge(refund_item())).passed is True


def test_versions() -> None:
    assert FakeJudge([]).version == FakeJudge([]).version
    assert FakeJudge([], name="a").version != FakeJudge([], name="b").version
    assert FakeJudge([], version="v7").describe() == {
        "kind": "fake",
        "name": "fake",
        "version": "v7",
    }
