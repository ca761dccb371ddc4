"""The public surface of trailcheck.loop is exactly what its __all__ lists."""

from __future__ import annotations

import trailcheck.loop as loop


def test_exported_names_are_pinned() -> None:
    assert loop.__all__ == [
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
    ]
    assert all(hasattr(loop, name) for name in loop.__all__)
