"""The public surface of trailcheck.audit is exactly this list."""

from __future__ import annotations

import trailcheck.audit


def test_exported_names_are_pinned() -> None:
    assert trailcheck.audit.__all__ == [
        "ORACLE_SCORERS",
        "SEVERITIES",
        "WRITE_PREFIXES",
        "AnsweringAgent",
        "AuditResult",
        "Finding",
        "HandOffAgent",
        "OracleAgent",
        "RandomToolAgent",
        "Severity",
        "audit_dataset",
        "check_adk_traps",
        "check_contradictions",
        "check_flaky",
        "check_oracle",
        "check_provenance",
        "check_trivial",
        "check_trivial_static",
        "is_write_tool",
        "lint_dataset",
        "plan_calls",
        "trivial_agents",
    ]
