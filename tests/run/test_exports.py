"""The public surface of trailcheck.run is exactly this list."""

from __future__ import annotations

import trailcheck.run


def test_exported_names_are_pinned() -> None:
    assert trailcheck.run.__all__ == [
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
    for name in trailcheck.run.__all__:
        assert hasattr(trailcheck.run, name), name
