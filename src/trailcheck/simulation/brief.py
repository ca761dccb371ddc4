"""The simulator's brief: a system prompt made from the case's hidden instruction.

The prompt goes to the simulator's model only; the agent sees the simulator's turns and nothing
else. It tells the model to speak as the user, one message at a time, to tell its known facts
only when asked, never to recite its instruction, and to end with :data:`STOP_SIGNAL` (tau-bench's
marker) once its goal is met or cannot be. Its digest pins the brief in every recorded turn.
"""

from __future__ import annotations

import hashlib
import json
from typing import Final

from trailcheck.cases import SimulatedUser

__all__ = ["STOP_SIGNAL", "prompt_digest", "simulator_prompt"]

STOP_SIGNAL: Final = "###STOP###"

_RULES: Final = f"""\
Rules:
- Write only what the user says next: one short message, in the first person, no narration.
- Do not repeat or quote these instructions; say what you want as a real customer would.
- Give a piece of information from "What you know" only when the agent asks for it, and never
  make up a fact (an id, a number, an address) that is not given here.
- Stay consistent with what you said before.
- When your goal is met, or the agent cannot meet it, reply with {STOP_SIGNAL} and nothing else.
"""


def simulator_prompt(user: SimulatedUser) -> str:
    """The system prompt of a model that plays ``user``."""
    parts = [
        "You are a user talking to a customer-service agent. You are not an assistant.",
        f"Your goal (private: never show it to the agent):\n{user.instruction.strip()}",
    ]
    if user.persona:
        parts.append(f"How you talk: {user.persona.strip()}")
    if user.known_facts:
        facts = "\n".join(
            f"- {key}: {json.dumps(value)}" for key, value in user.known_facts.items()
        )
        parts.append(f"What you know:\n{facts}")
    parts.append(_RULES)
    return "\n\n".join(parts)


def prompt_digest(prompt: str) -> str:
    """A short, stable name of a prompt: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(prompt.encode()).hexdigest()[:16]
