"""Policy rules over tool calls, and their evaluation: one definition for the policy scorer,
failure detection and the inline guard. Depends on the trace model only."""

from trailcheck.policy.conversation import preceding_messages, user_confirmed
from trailcheck.policy.evaluate import Violation, check_call, violations
from trailcheck.policy.rules import (
    DEFAULT_CONFIRMATION,
    POLICY_NAMES,
    POLICY_TOOL_FIELDS,
    AtMostPolicy,
    ForbiddenPolicy,
    MustPrecedePolicy,
    PolicySpec,
    RequiresConfirmationPolicy,
)

__all__ = [
    "DEFAULT_CONFIRMATION",
    "POLICY_NAMES",
    "POLICY_TOOL_FIELDS",
    "AtMostPolicy",
    "ForbiddenPolicy",
    "MustPrecedePolicy",
    "PolicySpec",
    "RequiresConfirmationPolicy",
    "Violation",
    "check_call",
    "preceding_messages",
    "user_confirmed",
    "violations",
]
