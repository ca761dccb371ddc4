"""Inline runtime protections: tool contracts, the error policy, call budgets, policy
enforcement in the request path, untrusted-content delimiting, log sanitisation and
deterministic backstops. Depends on the trace model and the policy rules only."""

from trailcheck.guard.arguments import ArgumentsSchema, arguments_schema
from trailcheck.guard.backstop import Backstop, BackstopRule, apply_backstop, evaluate_backstop
from trailcheck.guard.backstop_file import load_backstop, parse_backstop
from trailcheck.guard.budget import Budget, BudgetCapError, BudgetLimit, BudgetMeter, BudgetStop
from trailcheck.guard.enforce import (
    GUARD_ARGUMENTS,
    GUARD_CALL_ID,
    GUARD_DECISION,
    GUARD_REASON,
    GUARD_RULE,
    GUARD_TOOL,
    GuardSpans,
    PolicyBlockedError,
    PolicyGuard,
)
from trailcheck.guard.error_policy import (
    DEFAULT_RECOVERABLE,
    ErrorPolicy,
    RefusedCallError,
    describe_error,
    error_content,
    leaf_errors,
    validation_summary,
)
from trailcheck.guard.sanitize import LogSanitizer, sanitize_for_log
from trailcheck.guard.toolbox import (
    CallSettings,
    Toolbox,
    answer_call,
    answer_calls,
    render_result,
)
from trailcheck.guard.tools import (
    RAW_ARGUMENTS_KEY,
    ArgumentRule,
    InvalidArgumentsError,
    RequiresAtMostOne,
    RequiresExactlyOne,
    Tool,
    UnknownToolError,
    as_tool,
    as_tools,
    rate_limited,
    requires_at_most_one,
    requires_exactly_one,
)
from trailcheck.guard.untrusted import delimit, find_forgeries, neutralise

__all__ = [
    "DEFAULT_RECOVERABLE",
    "GUARD_ARGUMENTS",
    "GUARD_CALL_ID",
    "GUARD_DECISION",
    "GUARD_REASON",
    "GUARD_RULE",
    "GUARD_TOOL",
    "RAW_ARGUMENTS_KEY",
    "ArgumentRule",
    "ArgumentsSchema",
    "Backstop",
    "BackstopRule",
    "Budget",
    "BudgetCapError",
    "BudgetLimit",
    "BudgetMeter",
    "BudgetStop",
    "CallSettings",
    "ErrorPolicy",
    "GuardSpans",
    "InvalidArgumentsError",
    "LogSanitizer",
    "PolicyBlockedError",
    "PolicyGuard",
    "RefusedCallError",
    "RequiresAtMostOne",
    "RequiresExactlyOne",
    "Tool",
    "Toolbox",
    "UnknownToolError",
    "answer_call",
    "answer_calls",
    "apply_backstop",
    "arguments_schema",
    "as_tool",
    "as_tools",
    "delimit",
    "describe_error",
    "error_content",
    "evaluate_backstop",
    "find_forgeries",
    "leaf_errors",
    "load_backstop",
    "neutralise",
    "parse_backstop",
    "rate_limited",
    "render_result",
    "requires_at_most_one",
    "requires_exactly_one",
    "sanitize_for_log",
    "validation_summary",
]
