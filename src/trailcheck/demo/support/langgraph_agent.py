"""The support shop as a LangGraph agent: the same brains, prompt and tools, another framework.

::

    trailcheck run src/trailcheck/demo/support/support.yaml --agent-kind otel \\
        --agent trailcheck.demo.support.langgraph_agent:v1_agent \\
        --env trailcheck.demo.support:prompt_only_shop

v1 and v2 are the scripted brains of :mod:`.brains`, asked through LangChain's chat-model
interface from a ``create_agent`` graph (:mod:`trailcheck.demo.frameworks.langgraph_agent`);
the trace is what OpenInference's LangChain instrumentation records. So the ``support`` dataset
grades a framework's agent exactly as it grades the native one: v1 fails the cases that guard
its planted bugs, and v2 passes. Needs the ``langgraph`` extra.
"""

from __future__ import annotations

from trailcheck.demo.frameworks.langgraph_agent import LangGraphAgentFactory
from trailcheck.demo.support.agent import SYSTEM_PROMPT
from trailcheck.demo.support.brains import v1_brain, v2_brain
from trailcheck.models import ScriptedModel

__all__ = ["v1_agent", "v2_agent"]

v1_agent = LangGraphAgentFactory(
    lambda: ScriptedModel(v1_brain, name="support-v1"),
    system_prompt=SYSTEM_PROMPT,
    name="support-langgraph-v1",
)
"""The LangGraph support agent with v1's planted bugs: an otel agent factory."""

v2_agent = LangGraphAgentFactory(
    lambda: ScriptedModel(v2_brain, name="support-v2"),
    system_prompt=SYSTEM_PROMPT,
    name="support-langgraph-v2",
)
"""The LangGraph support agent with v1's bugs fixed."""
