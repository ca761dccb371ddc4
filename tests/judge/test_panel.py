"""Samples of one judge and panels of several: majority, unanimous, ties, agreement."""

from __future__ import annotations

import asyncio

import pytest

from tests.judge.support import refund_item
from trailcheck.errors import UsageError
from trailcheck.judge import Ballot, PanelJudge, SampledJudge
from trailcheck.testing import FakeJudge

ITEM = refund_item()


def sampled(*script: str, k: int | None = None) -> Ballot:
    judge = SampledJudge(FakeJudge(list(script)), k or len(script))
    return asyncio.run(judge.ballot(ITEM))


def test_sampled_majority_and_agreement_keep_every_sample() -> None:
    ballot = sampled("pass", "fail", "pass")
    assert ballot.judging.passed is True
    assert ballot.agreement == pytest.approx(2 / 3)
    assert [member.passed for member in ballot.members] == [True, False, True]
    assert ballot.judging.reason == "majority passed: 2 pass, 1 fail; agreement 2/3=0.667"


def test_a_tie_fails() -> None:
    ballot = sampled("pass", "fail")
    assert ballot.judging.passed is False
    assert ballot.agreement == 0.5
    assert "(a tie fails)" in ballot.judging.reason


def test_unscorable_samples_cast_no_vote_and_all_unscorable_is_unscorable() -> None:
    ballot = sampled("fail", "unscorable", "fail")
    assert (ballot.judging.passed, ballot.agreement) == (False, 1.0)
    assert ballot.judging.reason == (
        "majority failed: 0 pass, 2 fail, 1 unscorable; agreement 2/2=1.000"
    )
    none = sampled("unscorable", "unscorable")
    assert none.judging.status == "unscorable"
    assert none.agreement is None


def test_unanimous_panel() -> None:
    def panel(*outcomes: str) -> Ballot:
        judges = [FakeJudge([o], name=f"j{i}") for i, o in enumerate(outcomes)]
        return asyncio.run(PanelJudge(judges, rule="unanimous").ballot(ITEM))

    assert panel("pass", "pass", "pass").judging.passed is True
    failed = panel("pass", "fail", "pass")
    assert failed.judging.passed is False
    assert failed.agreement == pytest.approx(1 / 3)
    assert panel("pass", "unscorable").judging.status == "unscorable"
    assert panel("fail", "unscorable").judging.passed is False


def test_majority_panel_takes_the_verdict_of_an_agreeing_member() -> None:
    judges = [
        FakeJudge(["fail"], name="a"),
        FakeJudge(["pass"], name="b"),
        FakeJudge(["pass"], name="c"),
    ]
    panel = PanelJudge(judges)
    judging = asyncio.run(panel.judge(ITEM))
    assert judging.passed is True
    assert judging.judge_version == panel.version
    assert judging.verdict == asyncio.run(FakeJudge(["pass"]).judge(ITEM)).verdict


def test_versions_come_from_the_members() -> None:
    a, b = FakeJudge([], name="a"), FakeJudge([], name="b")
    assert SampledJudge(a, 3).version == SampledJudge(FakeJudge([], name="a"), 3).version
    assert SampledJudge(a, 3).version != SampledJudge(a, 5).version
    assert SampledJudge(a, 3).version != SampledJudge(b, 3).version
    assert PanelJudge([a, b]).version != PanelJudge([a, b], rule="unanimous").version
    assert PanelJudge([a, b]).version != PanelJudge([a]).version
    assert PanelJudge([a, b]).describe()["members"] == [a.describe(), b.describe()]


def test_bad_settings_are_usage_errors() -> None:
    with pytest.raises(UsageError):
        SampledJudge(FakeJudge([]), 0)
    with pytest.raises(UsageError):
        PanelJudge([])
    with pytest.raises(UsageError):
        PanelJudge([FakeJudge([])], rule="most")  # type: ignore[arg-type]
