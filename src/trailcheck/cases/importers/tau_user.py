"""Who plays the user in a tau-bench or tau2 task: the task's brief, as a simulated user.

tau-bench and tau2-bench run every task against a simulated user who follows a hidden
instruction and speaks first; an imported case does the same (``user:``, no ``input``):

- tau-bench (``user_id, instruction``): the ``instruction`` is the user's instruction, word for
  word; the ``user_id``, when the task gives one, is a known fact (``known_facts.user_id``).
- tau2 (``user_scenario: {persona, instructions}``): ``persona`` is the persona. Plain-text
  ``instructions`` are the instruction. Structured ones (``domain, reason_for_call, known_info,
  unknown_info, task_instructions``) become one instruction of labelled parts, as tau2 shows
  them to its own simulator (``Domain:``, ``Reason for call:``, ``Unknown info:``, ``Task
  instructions:``), except ``known_info``: that is what the user can tell when asked, so it is
  the known fact ``known_info``, kept whole. It is free text ("You are Mia Li, user id
  mia_li_3668"), not a list of values, and cutting it into named facts would guess; the
  simulator's brief lists it under what the user knows, and the audit accepts every
  identifier in it.

``max_turns`` is :data:`DEFAULT_MAX_TURNS` unless the import says otherwise: tau-bench's
default budget is 30 agent *steps* (each tool call is one), so its user never speaks more than
30 times; trailcheck counts user turns, and the agent's own step limit stays the agent's.
tau-bench's terminating tool, ``transfer_to_human_agents``, ends the conversation as it ends a
tau-bench episode: ``stop_when: [{tool_called: transfer_to_human_agents, goal: false}]``, where
the domain has that tool. It is a hand-off, not the user's goal (``goal: false``), so a user who
stops content, tau-bench's ``###STOP###``, is not reported as ending early: what "done" means
is the final state and outputs the case grades, which no stop condition can say.

With ``instruction_as_input`` (for a run with no user simulator), the brief is flattened into
the case ``input`` instead, as trailcheck imported these tasks before it had simulated users:
the agent then reads the user's brief rather than the user's words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from pydantic import JsonValue

from trailcheck.cases.simulated_user import SimulatedUser, StopCondition
from trailcheck.errors import RecordError

__all__ = ["DEFAULT_MAX_TURNS", "HAND_OFF_TOOL", "UserBrief", "tau2_brief", "tau_brief"]

DEFAULT_MAX_TURNS: Final = 30
HAND_OFF_TOOL: Final = "transfer_to_human_agents"

# tau2's structured instructions, in the order tau2 shows them, with their labels.
_TAU2_PARTS: Final = {
    "domain": "Domain",
    "reason_for_call": "Reason for call",
    "unknown_info": "Unknown info",
    "task_instructions": "Task instructions",
}
_KNOWN_INFO: Final = "known_info"


@dataclass(frozen=True)
class UserBrief:
    """What a task tells its user, before the run's settings (turns, stop conditions).

    ``flattened`` is the whole brief as one text: the case input under ``instruction_as_input``
    and the case's ``metadata.instruction``.
    """

    instruction: str
    flattened: str
    persona: str | None = None
    known_facts: dict[str, JsonValue] = field(default_factory=dict)

    def speakers(
        self, max_turns: int, hand_off: bool, instruction_as_input: bool
    ) -> tuple[str | None, SimulatedUser | None]:
        """Who speaks in the case: its ``input`` and its ``user``. ``hand_off``: the domain has
        tau-bench's terminating tool; ``instruction_as_input``: the flattened brief is the input,
        and no user is simulated."""
        if instruction_as_input:
            return self.flattened, None
        stop = [StopCondition(tool_called=HAND_OFF_TOOL, goal=False)] if hand_off else []
        user = SimulatedUser(
            instruction=self.instruction,
            persona=self.persona,
            known_facts=self.known_facts,
            max_turns=max_turns,
            stop_when=stop,
        )
        return None, user


def tau_brief(instruction: str, user_id: Any) -> UserBrief:
    """A tau-bench task's brief: its instruction, and its user id as a known fact."""
    facts: dict[str, JsonValue] = {}
    if isinstance(user_id, str) and user_id.strip():
        facts["user_id"] = user_id
    return UserBrief(instruction=instruction, flattened=instruction, known_facts=facts)


def tau2_brief(scenario: dict[str, Any], source: str, where: str) -> UserBrief:
    """A tau2 ``user_scenario``'s brief (see the module docstring); ``where`` names it."""
    instructions = scenario.get("instructions")
    persona = scenario.get("persona")
    persona = persona.strip() if isinstance(persona, str) and persona.strip() else None
    if isinstance(instructions, str) and instructions.strip():
        return UserBrief(instruction=instructions, flattened=instructions, persona=persona)
    if not isinstance(instructions, dict) or not _text(instructions.get("task_instructions")):
        raise RecordError(
            "expected text, or an object with task_instructions",
            source=source,
            field=f"{where}.instructions",
        )
    # The flattened form is the one imports made before simulated users: every part, as given.
    flattened = "\n".join(f"{key}: {value}" for key, value in instructions.items() if value)
    labelled = {**_TAU2_PARTS, **{key: key for key in instructions if key not in _TAU2_PARTS}}
    parts = [
        f"{label}: {_text(instructions.get(key))}"
        for key, label in labelled.items()
        if key != _KNOWN_INFO and _text(instructions.get(key))
    ]
    known = _text(instructions.get(_KNOWN_INFO))
    return UserBrief(
        instruction="\n".join(parts),
        flattened=flattened,
        persona=persona,
        known_facts={_KNOWN_INFO: known} if known else {},
    )


def _text(value: Any) -> str:
    """A part of the instructions as text: strings as they are, anything else as JSON-ish."""
    if value is None:
        return ""
    return value.strip() if isinstance(value, str) else str(value)
