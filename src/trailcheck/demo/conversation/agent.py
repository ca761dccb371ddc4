"""The factories the runner and the CLI name: the conversation agents, on the support loop.

Both run the support demo's tool loop with its system prompt
(:data:`~trailcheck.demo.support.SYSTEM_PROMPT`), on the brains of :mod:`.brains`; the shop is
the support shop's, with prompt-only tools (:func:`~trailcheck.demo.support.prompt_only_shop`),
so that v1's unverified refund goes through as it would where only the prompt asks for a proof.
"""

from __future__ import annotations

from trailcheck.demo.conversation.brains import v1_brain, v2_brain
from trailcheck.demo.support import SYSTEM_PROMPT
from trailcheck.models import ScriptedModel
from trailcheck.run.tool_agent import ToolAgent

__all__ = ["v1_agent", "v2_agent"]


def v1_agent() -> ToolAgent:
    """The agent that refunds before asking."""
    return ToolAgent(ScriptedModel(v1_brain, name="conversation-v1"), system_prompt=SYSTEM_PROMPT)


def v2_agent() -> ToolAgent:
    """The agent that asks for a proof and the customer's agreement, then refunds."""
    return ToolAgent(ScriptedModel(v2_brain, name="conversation-v2"), system_prompt=SYSTEM_PROMPT)
