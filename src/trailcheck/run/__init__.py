"""Running agents on datasets: trials, statistics, manifests and the gate."""

from trailcheck.environment import Environment, EnvironmentFactory, ToolError
from trailcheck.run.agent import Agent, AgentFactory, TrialContext
from trailcheck.run.compare import Comparison, compare_outcomes
from trailcheck.run.gate import GateResult, check_gate
from trailcheck.run.otel_agent import FrameworkAgent, OtelAgent, OtelAgentFactory, TelemetryContext
from trailcheck.run.plan import RunOptions
from trailcheck.run.results import (
    CaseResult,
    RunReport,
    TrialResult,
    dump_report,
    load_report,
    report_json_schema,
)
from trailcheck.run.runner import RunObserver, RunResult, run, run_async
from trailcheck.run.stats import OutcomeSummary, pass_at_k, pass_hat_k, summarize_outcomes
from trailcheck.run.status import TrialStatus
from trailcheck.run.tool_agent import ToolAgent

__all__ = [
    "Agent",
    "AgentFactory",
    "CaseResult",
    "Comparison",
    "Environment",
    "EnvironmentFactory",
    "FrameworkAgent",
    "GateResult",
    "OtelAgent",
    "OtelAgentFactory",
    "OutcomeSummary",
    "RunObserver",
    "RunOptions",
    "RunReport",
    "RunResult",
    "TelemetryContext",
    "ToolAgent",
    "ToolError",
    "TrialContext",
    "TrialResult",
    "TrialStatus",
    "check_gate",
    "compare_outcomes",
    "dump_report",
    "load_report",
    "pass_at_k",
    "pass_hat_k",
    "report_json_schema",
    "run",
    "run_async",
    "summarize_outcomes",
]
