"""The ``trailcheck demo conversation`` story: v1 and v2 meet the same simulated customers.

v1 runs first, on its own: it refunds before asking, so it fails every case its customer could
have set right. v2 runs second, compared with v1 (the paired test) and with v1's user turns
replayed (common random numbers, :mod:`trailcheck.simulation.replay`): while v2 says what v1
said, its customer says what v1's did; where v2 asks instead of refunding, the conversations
part, and the scripted users say the rest. The faulty user's trials are ``sim_error`` in both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from trailcheck.demo.conversation.agent import v1_agent, v2_agent
from trailcheck.demo.conversation.dataset import DATASET_FILE, conversation_dataset
from trailcheck.demo.conversation.users import scripted_users
from trailcheck.demo.support.agent import prompt_only_shop
from trailcheck.run.agent import AgentFactory
from trailcheck.run.plan import RunOptions
from trailcheck.run.runner import RunObserver, RunResult, run

__all__ = ["DEMO_K", "DEMO_RUNS", "ConversationRun", "run_conversation_demo"]

DEMO_K: Final = 4
_MODULE: Final = "trailcheck.demo.conversation"


@dataclass(frozen=True, slots=True)
class ConversationRun:
    """One run of the demo: its file name, its agent and the agent factory's name."""

    name: str
    agent: AgentFactory
    reference: str


DEMO_RUNS: Final = (
    ConversationRun("conversation-v1", v1_agent, "v1_agent"),
    ConversationRun("conversation-v2", v2_agent, "v2_agent"),
)


def run_conversation_demo(
    *, k: int = DEMO_K, observer: Callable[[str], RunObserver] | None = None
) -> list[tuple[ConversationRun, RunResult]]:
    """v1, then v2 against v1 with v1's simulated turns replayed (see the module docstring)."""
    dataset = conversation_dataset()
    results: list[tuple[ConversationRun, RunResult]] = []
    baseline = None
    for demo in DEMO_RUNS:
        result = run(
            dataset,
            demo.agent,
            prompt_only_shop,
            options=RunOptions(k=k, concurrency=8),
            baseline=baseline,
            observer=observer(demo.name) if observer else None,
            references={
                "agent": f"{_MODULE}:{demo.reference}",
                "environment": "trailcheck.demo.support:prompt_only_shop",
                "dataset": f"{_MODULE}:{DATASET_FILE}",
            },
            user_simulator=scripted_users(),
            replay_user=baseline,
        )
        baseline = baseline or result.report
        results.append((demo, result))
    return results
