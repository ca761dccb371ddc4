"""The support shop as an OpenAI Agents SDK agent: the same brains, prompt and tools, another
framework.

::

    trailcheck run src/trailcheck/demo/support/support.yaml --agent-kind otel \\
        --agent trailcheck.demo.support.openai_agents_agent:v1_agent \\
        --env trailcheck.demo.support:prompt_only_shop

v1 and v2 are the scripted brains of :mod:`.brains`, asked through the SDK's ``Model``
interface by an SDK ``Agent`` (:mod:`trailcheck.demo.frameworks.openai_agents_agent`); the
trace is what OpenInference's OpenAI Agents instrumentation records, with the SDK's export to
OpenAI replaced, and no key needed. So the ``support`` dataset grades a framework's agent as it
grades the native one: v1 fails the cases that guard its planted bugs, and v2 passes. Needs
the ``openai-agents`` extra.
"""

from __future__ import annotations

from trailcheck.demo.frameworks.openai_agents_agent import OpenAIAgentsFactory
from trailcheck.demo.support.agent import SYSTEM_PROMPT
from trailcheck.demo.support.brains import v1_brain, v2_brain
from trailcheck.models import ScriptedModel

__all__ = ["v1_agent", "v2_agent"]

v1_agent = OpenAIAgentsFactory(
    lambda: ScriptedModel(v1_brain, name="support-v1"),
    instructions=SYSTEM_PROMPT,
    name="support-openai-agents-v1",
)
"""The OpenAI Agents support agent with v1's planted bugs: an otel agent factory."""

v2_agent = OpenAIAgentsFactory(
    lambda: ScriptedModel(v2_brain, name="support-v2"),
    instructions=SYSTEM_PROMPT,
    name="support-openai-agents-v2",
)
"""The OpenAI Agents support agent with v1's bugs fixed."""
