"""The drafting prompt: a system message saying what a scenario is, and one user message per
clause holding the clause, the whole policy and the tools, as JSON.

The user message is a JSON object ``{clause: {id, text}, policy: [{id, text}], tools:
[{name, description, parameters}], scenarios: {kind: description}}``: a model reads it as well
as prose, and a scripted model (:func:`trailcheck.testing.scripted_drafter`) finds the clause
it is asked about by its ``clause.id``. The prompt's version and the digest of its text go into
every draft's ``metadata.drafted_by``, so a draft says which prompt made it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Final

import orjson

from trailcheck.drafting.answer import SCENARIO_DESCRIPTIONS, ScenarioKind
from trailcheck.drafting.clauses import PolicyClause
from trailcheck.models import ToolDeclaration
from trailcheck.trace import Message

__all__ = ["PROMPT_VERSION", "SYSTEM_PROMPT", "clause_messages", "prompt_digest"]

PROMPT_VERSION: Final = "1"

SYSTEM_PROMPT: Final = """\
You draft test cases for an AI agent that serves users with tools. You are given one clause of \
the policy the agent must follow, the whole policy for context, the agent's tools with the JSON \
schema of their arguments, and the kinds of scenario wanted.

For the clause, draft one scenario of each wanted kind that the clause bears on (skip a kind \
it has nothing to do with). Each scenario gives:
- input: what the user writes, with every fact a good agent needs (ids, proofs, dates), \
unless the scenario is about a missing fact;
- expected_calls: the calls a good agent makes, in order, each with the exact arguments it \
makes it with; use only the tools given, and arguments their schemas accept;
- expected_state: what the environment holds afterwards, where the clause is about a change \
(for instance that no refund was made: {"refunds": []}); leave it out otherwise;
- policies: rules over the calls that must hold, where the clause states one \
(must_precede, forbidden, at_most, requires_confirmation_before);
- faults: what the environment does wrong on purpose to set the scene (an error for the first \
call of a rate-limited tool; a replaced result for a stale or contradicting output);
- rationale: one sentence on why a good agent does this.

Answer with only a JSON object {"drafts": [...]} that follows the schema given."""


def prompt_digest() -> str:
    """The first 12 hex digits of the sha256 of the system prompt."""
    return hashlib.sha256(SYSTEM_PROMPT.encode()).hexdigest()[:12]


def clause_messages(
    clause: PolicyClause,
    policy: Sequence[PolicyClause],
    tools: Sequence[ToolDeclaration],
    kinds: Sequence[ScenarioKind],
) -> list[Message]:
    """The messages that ask for scenarios of ``kinds`` for ``clause`` (see the module)."""
    request = {
        "clause": {"id": clause.id, "text": clause.text},
        "policy": [{"id": each.id, "text": each.text} for each in policy],
        "tools": [tool.model_dump(mode="json") for tool in tools],
        "scenarios": {kind: SCENARIO_DESCRIPTIONS[kind] for kind in kinds},
    }
    return [
        Message(role="system", content=SYSTEM_PROMPT),
        Message(role="user", content=orjson.dumps(request).decode()),
    ]
