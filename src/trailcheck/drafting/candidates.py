"""A drafted scenario as a candidate case: the scene set, the expectations proposed.

What the scenario sets up is the case's own: its ``input`` and its ``faults``. What a good run
does is the model's claim, so it is a proposal in ``metadata.proposed`` (as a promoted
candidate's is, :mod:`trailcheck.loop.promote`), which no scorer reads until a reviewer
approves it: ``expected_tools`` (the calls' tools in order; ``[]`` when it calls none),
``expected_arguments`` (each call with arguments, compared exactly), ``expected_state`` and
``policies`` when given. The metadata says where the case came from
(:mod:`trailcheck.loop.synthetic`).

A case's id is ``<clause id>-<scenario kind>``, made of letters, digits and dashes
(``refunds-1-missing-identity-check``), with ``-2``, ``-3`` after it when taken.
"""

from __future__ import annotations

import re
from collections.abc import Set
from typing import Any, Final

from trailcheck.cases import Case
from trailcheck.drafting.ask import Drafted
from trailcheck.drafting.prompt import PROMPT_VERSION, prompt_digest
from trailcheck.loop.promote import PROPOSED_KEY
from trailcheck.loop.synthetic import (
    CLAUSE_KEY,
    DRAFTED_BY_KEY,
    SCENARIO_KEY,
    SOURCE_KEY,
    SYNTHETIC,
)

__all__ = ["candidate_case", "draft_case_id"]

_ID_UNSAFE: Final = re.compile(r"[^A-Za-z0-9]+")


def draft_case_id(drafted: Drafted, taken: Set[str]) -> str:
    """The draft's id, not one of ``taken`` (see the module)."""
    base = _ID_UNSAFE.sub("-", f"{drafted.clause.id}-{drafted.scenario.scenario}").strip("-")
    candidate, number = base, 1
    while candidate in taken:
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def _proposals(drafted: Drafted) -> dict[str, Any]:
    scenario = drafted.scenario
    proposed: dict[str, Any] = {"expected_tools": [call.tool for call in scenario.expected_calls]}
    invocations = [
        {"tool": call.tool, "arguments": dict(call.arguments)}
        for call in scenario.expected_calls
        if call.arguments
    ]
    if invocations:
        proposed["expected_arguments"] = invocations
    if scenario.expected_state:
        proposed["expected_state"] = dict(scenario.expected_state)
    if scenario.policies:
        proposed["policies"] = [policy.model_dump(mode="json") for policy in scenario.policies]
    return proposed


def candidate_case(drafted: Drafted, case_id: str, *, model: str) -> Case:
    """The candidate case of ``drafted``, drafted by the model named ``model``."""
    clause, scenario = drafted.clause, drafted.scenario
    notes = (
        f"drafted by {model} for policy clause {clause.id} ({scenario.scenario})."
        f"{' ' + scenario.rationale.strip() if scenario.rationale.strip() else ''} The"
        f" expectations in metadata.{PROPOSED_KEY} are the model's: confirm or correct them"
        " before approving."
    )
    metadata: dict[str, Any] = {
        SOURCE_KEY: SYNTHETIC,
        SCENARIO_KEY: scenario.scenario,
        CLAUSE_KEY: {"id": clause.id, "text": clause.text},
        DRAFTED_BY_KEY: {
            "model": model,
            "prompt_version": PROMPT_VERSION,
            "prompt_digest": prompt_digest(),
        },
        PROPOSED_KEY: _proposals(drafted),
    }
    return Case.model_validate(
        {
            "id": case_id,
            "input": scenario.input,
            "faults": list(scenario.faults),
            "review_status": "candidate",
            "notes": notes,
            "metadata": metadata,
        }
    )
