"""The improvement loop: detect failures in traces (rules as data), cluster the findings,
promote a cluster's representative to a candidate case, and review candidates into goldens.

Pure functions over traces and findings: the store streams traces in and keeps what comes
out; nothing here opens a store.
"""

from trailcheck.loop.answer_rules import (
    AgentOutcomeRule,
    ClaimSpec,
    ErrorIgnoredRule,
    FinalAnswerRule,
    GroundingRule,
    UnsupportedClaimRule,
)
from trailcheck.loop.call_rules import (
    DateArgumentRule,
    EfficiencyRule,
    PolicyRule,
    RateLimitRetryRule,
)
from trailcheck.loop.cluster import (
    DID_NOT_GENERALISE,
    SIMILARITY_THRESHOLD,
    Cluster,
    Member,
    Occurrence,
    cluster_occurrences,
    occurrence,
    regressed_members,
)
from trailcheck.loop.detect import detect
from trailcheck.loop.promote import Promotion, add_candidate, case_id_for, promote
from trailcheck.loop.redact import Redaction, redact_text, redact_value
from trailcheck.loop.review import (
    approve,
    edit_proposals,
    proposals_text,
    proposed,
    reject,
    with_proposals,
)
from trailcheck.loop.rule import DetectionRule, Hit
from trailcheck.loop.rule_file import (
    RULE_KINDS,
    Rule,
    RuleFileError,
    builtin_rules,
    combined_rules,
    load_rules,
    parse_rules,
)
from trailcheck.loop.signature import calls_signature, tool_signature
from trailcheck.loop.splits import HOLDOUT_FRACTION, assign_splits, straddling_groups

__all__ = [
    "DID_NOT_GENERALISE",
    "HOLDOUT_FRACTION",
    "RULE_KINDS",
    "SIMILARITY_THRESHOLD",
    "AgentOutcomeRule",
    "ClaimSpec",
    "Cluster",
    "DateArgumentRule",
    "DetectionRule",
    "EfficiencyRule",
    "ErrorIgnoredRule",
    "FinalAnswerRule",
    "GroundingRule",
    "Hit",
    "Member",
    "Occurrence",
    "PolicyRule",
    "Promotion",
    "RateLimitRetryRule",
    "Redaction",
    "Rule",
    "RuleFileError",
    "UnsupportedClaimRule",
    "add_candidate",
    "approve",
    "assign_splits",
    "builtin_rules",
    "calls_signature",
    "case_id_for",
    "cluster_occurrences",
    "combined_rules",
    "detect",
    "edit_proposals",
    "load_rules",
    "occurrence",
    "parse_rules",
    "promote",
    "proposals_text",
    "proposed",
    "redact_text",
    "redact_value",
    "regressed_members",
    "reject",
    "straddling_groups",
    "tool_signature",
    "with_proposals",
]
