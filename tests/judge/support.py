"""Items, verdict texts and block parsing shared by the judge tests."""

from __future__ import annotations

import json
import re
from typing import Any

from trailcheck.cases import Case
from trailcheck.judge import JudgeItem
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Message

CRITERION = "Did the agent verify identity before the refund call?"

# Any block, as a naive reader of the prompt would find it: no check that the closing
# boundary is the opening one. The neutralisation must keep such a reader right too.
BLOCK = re.compile(r"<<untrusted:[0-9a-f]+ [^>]*>>.*?<</untrusted:[^>]*>>", re.DOTALL)


def refund_item(
    final: str = "Your refund of $129.00 is on its way.",
    *,
    verified: bool = False,
    criterion: str = CRITERION,
    case: Case | None = None,
    metadata: dict[str, Any] | None = None,
) -> JudgeItem:
    builder = TraceBuilder("t-refund", input="Refund order A-1 please")
    builder.tool("lookup_order", {"order_id": "A-1"}, result={"total": 129.0})
    if verified:
        builder.tool("verify_identity", {"customer_id": "C-7"}, result={"verified": True})
    builder.tool("issue_refund", {"order_id": "A-1"}, result={"refunded": 129.0})
    builder.output(final).metadata(**(metadata or {}))
    return JudgeItem(item_id="t-refund", trace=builder.build(), criterion=criterion, case=case)


def verdict_json(passed: bool, **overrides: Any) -> str:
    verdict: dict[str, Any] = {
        "evidence": ["issue_refund called"],
        "passed_criteria": [CRITERION] if passed else [],
        "failed_criteria": [] if passed else [CRITERION],
        "failure_mode": None if passed else "refund_without_verification",
        "passed": passed,
    }
    verdict.update(overrides)
    return json.dumps(verdict)


def prompt_text(messages: list[Message]) -> str:
    return "\n".join(message.content or "" for message in messages)


def outside_blocks(text: str) -> str:
    """``text`` with every untrusted block removed: what a model may take as instructions."""
    return BLOCK.sub("", text)


def case(reference: str | None = None, **fields: Any) -> Case:
    return Case(
        id="c-refund", input="Refund order A-1 please", reference_response=reference, **fields
    )
