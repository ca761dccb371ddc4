"""The Pit Wall as a Google ADK agent: the same brain, prompt, tools and error policy.

::

    trailcheck run src/trailcheck/demo/pitwall/pitwall.yaml --agent-kind otel \\
        --agent trailcheck.demo.pitwall.adk_agent:scripted_agent \\
        --env trailcheck.demo.pitwall:v1_archive --judge trailcheck.demo.pitwall:scripted_judge

The scripted race engineer of :mod:`.brain` answers through ADK's model interface in an
``LlmAgent`` (:mod:`trailcheck.demo.frameworks.adk_agent`), and the trace is what ADK's own
OpenTelemetry records. The ``pitwall`` and ``pitwall-guardrails`` datasets grade it as they
grade the native agent: on v1's archive the winner case fails on groundedness, on v2's it
passes. Needs the ``adk`` extra.
"""

from __future__ import annotations

from trailcheck.demo.frameworks.adk_agent import AdkAgentFactory
from trailcheck.demo.pitwall.agent import ERROR_POLICY, SYSTEM_PROMPT
from trailcheck.demo.pitwall.brain import pit_wall_brain
from trailcheck.models import ScriptedModel

__all__ = ["scripted_agent"]

scripted_agent = AdkAgentFactory(
    lambda: ScriptedModel(pit_wall_brain, name="pitwall-scripted"),
    instruction=SYSTEM_PROMPT,
    error_policy=ERROR_POLICY,
    name="pit_wall",
)
"""The Pit Wall on ADK: an otel agent factory."""
