"""Running agents on datasets: trials, statistics, manifests and the gate."""

from trailcheck.environment import Environment, EnvironmentFactory, ToolError
from trailcheck.run.agent import Agent, AgentFactory, TrialContext

__all__ = [
    "Agent",
    "AgentFactory",
    "Environment",
    "EnvironmentFactory",
    "ToolError",
    "TrialContext",
]
