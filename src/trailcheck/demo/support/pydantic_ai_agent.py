"""The support shop as a Pydantic AI agent: the same brains, prompt and tools, another framework.

::

    trailcheck run src/trailcheck/demo/support/support.yaml --agent-kind otel \\
        --agent trailcheck.demo.support.pydantic_ai_agent:v1_agent \\
        --env trailcheck.demo.support:prompt_only_shop

v1 and v2 are the scripted brains of :mod:`.brains`, asked through Pydantic AI's
``FunctionModel`` by a Pydantic AI ``Agent`` (:mod:`trailcheck.demo.frameworks.pydantic_ai_agent`);
the trace is what Pydantic AI's own OpenTelemetry instrumentation records. So the ``support``
dataset grades a framework's agent as it grades the native one: v1 fails the cases that guard
its planted bugs, and v2 passes. Needs the ``pydantic-ai`` extra.
"""

from __future__ import annotations

from trailcheck.demo.frameworks.pydantic_ai_agent import PydanticAIFactory
from trailcheck.demo.support.agent import SYSTEM_PROMPT
from trailcheck.demo.support.brains import v1_brain, v2_brain
from trailcheck.models import ScriptedModel

__all__ = ["v1_agent", "v2_agent"]

v1_agent = PydanticAIFactory(
    lambda: ScriptedModel(v1_brain, name="support-v1"),
    instructions=SYSTEM_PROMPT,
    name="support-pydantic-ai-v1",
)
"""The Pydantic AI support agent with v1's planted bugs: an otel agent factory."""

v2_agent = PydanticAIFactory(
    lambda: ScriptedModel(v2_brain, name="support-v2"),
    instructions=SYSTEM_PROMPT,
    name="support-pydantic-ai-v2",
)
"""The Pydantic AI support agent with v1's bugs fixed."""
