"""The reference judge: against the case's reference answer, no credit for length."""

from __future__ import annotations

import asyncio

from tests.judge.support import case, refund_item, verdict_json
from trailcheck.judge import ReferenceJudge
from trailcheck.models import ScriptedModel


def test_the_prompt_holds_the_reference_and_says_length_earns_no_credit() -> None:
    model = ScriptedModel([verdict_json(True)])
    item = refund_item(case=case("A refund of $129.00 was issued for order A-1."))
    judging = asyncio.run(ReferenceJudge(model).judge(item))
    assert judging.passed is True
    system, user = model.calls[0].messages
    assert "Give no credit for length" in (system.content or "")
    assert "accepted only when it is correct and relevant" in (system.content or "")
    content = user.content or ""
    assert "reference answer>>\nA refund of $129.00 was issued for order A-1.\n<</untrusted:" in (
        content
    )
    assert "## Agent's answer\n<<untrusted:" in content


def test_a_missing_reference_is_unscorable_with_a_clear_reason() -> None:
    model = ScriptedModel([])
    judging = asyncio.run(ReferenceJudge(model).judge(refund_item(case=case(None))))
    assert judging.status == "unscorable"
    assert judging.reason == (
        "no reference answer to compare with: case 'c-refund' has no reference_response"
    )
    no_case = asyncio.run(ReferenceJudge(model).judge(refund_item()))
    assert no_case.reason == "no reference answer to compare with: the item has no case"
    assert model.calls == []
