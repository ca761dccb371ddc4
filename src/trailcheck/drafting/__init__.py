"""Drafted scenarios: cold-start cases from tool schemas and a policy, which earn trust only
through a reference path and a person's review (docs/drafting.md).

A model drafts scenarios for each clause of a Markdown policy (:mod:`.clauses`), shown the
tools' declarations (:mod:`.tool_file`); each becomes a candidate case marked ``source:
synthetic`` with the clause it covers (:mod:`.candidates`); the oracle replays its expected
calls in an environment, and a draft whose calls or state cannot be reached is rejected with why
(:mod:`.reference_path`); near-duplicates of the cases already there are flagged
(:mod:`.duplicates`); and a coverage table says which tools and clauses have approved cases
(:mod:`.coverage`). Review is :mod:`trailcheck.loop.review`'s, as for promoted candidates.
"""

from trailcheck.drafting.answer import (
    SCENARIO_DESCRIPTIONS,
    SCENARIO_KINDS,
    DraftAnswer,
    DraftedCall,
    DraftedScenario,
    ScenarioKind,
)
from trailcheck.drafting.ask import Drafted, Drafting, ask_for_drafts
from trailcheck.drafting.candidates import candidate_case, draft_case_id
from trailcheck.drafting.clauses import PolicyClause, load_policy, parse_policy
from trailcheck.drafting.coverage import Coverage, CoverageRow, coverage
from trailcheck.drafting.draft import DraftOutcome, add_drafts, draft_cases
from trailcheck.drafting.duplicates import (
    DEFAULT_SIMILARITY,
    NearDuplicate,
    case_signature,
    flag_near_duplicates,
    similarity,
)
from trailcheck.drafting.prompt import PROMPT_VERSION, SYSTEM_PROMPT, clause_messages
from trailcheck.drafting.reference_path import (
    ReferencePath,
    check_reference_path,
    schema_problems_of,
)
from trailcheck.drafting.tool_file import load_tool_declarations, parse_tool_declarations

__all__ = [
    "DEFAULT_SIMILARITY",
    "PROMPT_VERSION",
    "SCENARIO_DESCRIPTIONS",
    "SCENARIO_KINDS",
    "SYSTEM_PROMPT",
    "Coverage",
    "CoverageRow",
    "DraftAnswer",
    "DraftOutcome",
    "Drafted",
    "DraftedCall",
    "DraftedScenario",
    "Drafting",
    "NearDuplicate",
    "PolicyClause",
    "ReferencePath",
    "ScenarioKind",
    "add_drafts",
    "ask_for_drafts",
    "candidate_case",
    "case_signature",
    "check_reference_path",
    "clause_messages",
    "coverage",
    "draft_case_id",
    "draft_cases",
    "flag_near_duplicates",
    "load_policy",
    "load_tool_declarations",
    "parse_policy",
    "parse_tool_declarations",
    "schema_problems_of",
    "similarity",
]
