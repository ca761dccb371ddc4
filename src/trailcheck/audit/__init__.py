"""Auditing the eval itself: cases a trivial agent passes, goldens their own expected calls fail,
checks that cannot fail, contradictions, ADK traps, leakage across splits, flaky cases and stale
reports."""

from trailcheck.audit.adk_traps import check_adk_traps
from trailcheck.audit.contradictions import check_contradictions
from trailcheck.audit.finding import SEVERITIES, AuditResult, Finding, Severity
from trailcheck.audit.flaky import check_flaky
from trailcheck.audit.lint import WRITE_PREFIXES, is_write_tool, lint_dataset
from trailcheck.audit.oracle import (
    ORACLE_SCORERS,
    OracleAgent,
    OracleReplay,
    check_oracle,
    oracle_failures,
    plan_calls,
    replay_oracle,
)
from trailcheck.audit.provenance import check_provenance
from trailcheck.audit.suite import audit_dataset
from trailcheck.audit.trivial import (
    AnsweringAgent,
    HandOffAgent,
    RandomToolAgent,
    check_trivial,
    check_trivial_static,
    trivial_agents,
)

__all__ = [
    "ORACLE_SCORERS",
    "SEVERITIES",
    "WRITE_PREFIXES",
    "AnsweringAgent",
    "AuditResult",
    "Finding",
    "HandOffAgent",
    "OracleAgent",
    "OracleReplay",
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
    "oracle_failures",
    "plan_calls",
    "replay_oracle",
    "trivial_agents",
]
