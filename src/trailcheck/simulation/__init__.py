"""Simulated users: who a multi-turn agent talks to in a trial, and whether that user behaved.

- :mod:`~trailcheck.simulation.turns`: the transcript, and what a simulator says next;
- :mod:`~trailcheck.simulation.brief`: the simulator's system prompt, built from the case's
  hidden instruction (the agent never sees it);
- :mod:`~trailcheck.simulation.simulator`: the :class:`UserSimulator` protocol and the one
  behind any OpenAI-compatible model (a scripted one is in :mod:`trailcheck.testing`);
- :mod:`~trailcheck.simulation.audit`: the checks that tell a simulator's error from an agent's;
- :mod:`~trailcheck.simulation.replay`: the baseline's turns, replayed to a candidate while the
  conversation is the same (common random numbers for a paired comparison).

The conversation loop itself is the runner's (:mod:`trailcheck.run.conversation`).
"""

from trailcheck.simulation.audit import (
    SIMULATOR_CHECKS,
    SimulatorCheck,
    SimulatorError,
    SimulatorReviewer,
    audit_conversation,
)
from trailcheck.simulation.brief import STOP_SIGNAL, simulator_prompt
from trailcheck.simulation.replay import TurnCache, transcript_key
from trailcheck.simulation.simulator import ModelUserSimulator, UserSimulator
from trailcheck.simulation.turns import ConversationEnding, Turn, UserTurn

__all__ = [
    "SIMULATOR_CHECKS",
    "STOP_SIGNAL",
    "ConversationEnding",
    "ModelUserSimulator",
    "SimulatorCheck",
    "SimulatorError",
    "SimulatorReviewer",
    "Turn",
    "TurnCache",
    "UserSimulator",
    "UserTurn",
    "audit_conversation",
    "simulator_prompt",
    "transcript_key",
]
