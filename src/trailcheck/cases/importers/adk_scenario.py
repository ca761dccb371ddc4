"""An ADK ``conversation_scenario`` as a simulated user: who a scenario case's agent talks to.

ADK plays a scenario case (``adk eval``, ADK 1.18 and later) with an LLM-backed user simulator:
the ``starting_prompt`` is the fixed first user message, then the simulator follows the
``conversation_plan``, in the manner of the ``user_persona``, until it says it is done or the
``user_simulator_config`` of the criteria file stops it. The imported case does the same:

- ``starting_prompt`` → the case ``input`` (played first; the simulated user carries on);
- ``conversation_plan`` → ``user.instruction``;
- ``user_persona``: an object (``description`` and ``behaviors``, each with its
  ``behavior_instructions``) → ``user.persona``, the description then one line per behavior
  instruction; the id of one of ADK's pre-built personas (``EXPERT``, ``NOVICE``,
  ``EVALUATOR``) → a summary of that persona in trailcheck's words. Each behavior's
  ``violation_rubrics`` are what ADK's ``per_turn_user_simulator_quality_v1`` judges the
  simulator by; trailcheck's simulator audit checks its own list, so they are kept in
  ``metadata.adk.user_persona``, not mapped;
- ``user_simulator_config.max_allowed_invocations`` (ADK's default 20; the starting prompt is
  one of them) → ``user.max_turns``, one fewer; ADK's ``-1`` (no limit) → trailcheck's most, 200.

Not mapped, and said so: the simulator's ``model`` and ``custom_instructions`` (the simulator is
chosen at run time, ``--user-model``), and the criteria that compare with a fixed conversation
(``tool_trajectory_avg_score``, ``response_match_score``, ``final_response_match_v2``), which
ADK cannot apply to a scenario either: a scenario has no expected tool uses or responses.
A scenario has no known facts or stop conditions of its own: what the user may say is in its
plan, and the audit accepts every identifier the plan holds.
"""

from __future__ import annotations

import re
from typing import Any, Final

from trailcheck.cases.importers.adk_criteria import TRAJECTORY
from trailcheck.cases.importers.adk_files import (
    AdkSource,
    expect_list,
    expect_object,
    expect_string,
    get_key,
)
from trailcheck.cases.simulated_user import SimulatedUser

__all__ = [
    "DEFAULT_MAX_INVOCATIONS",
    "PRE_BUILT_PERSONAS",
    "report_simulator_config",
    "scenario_speakers",
]

# ADK's pre-built personas (google.adk.evaluation.simulation.pre_built_personas), summed up in
# our words: the description and the behaviors each is made of.
PRE_BUILT_PERSONAS: Final = {
    "EXPERT": "An expert who knows exactly what they want and treats the agent as a tool. States"
    " each request with all the details it needs; answers only questions relevant to the plan;"
    " corrects the agent's mistakes and helps it past one failure, ending after a second;"
    " professional and to the point, no chit-chat.",
    "NOVICE": "A novice who does not fully understand the problem and relies on the agent. States"
    " each goal at a high level and lets the agent ask for the details; answers every question,"
    " saying so when they do not know; does not correct the agent, and ends the conversation"
    " when it fails; casual and conversational.",
    "EVALUATOR": "An evaluator checking whether the agent can meet the plan. States each request"
    " with all the details it needs; answers only questions relevant to the plan; does not"
    " correct the agent, and ends the conversation when it fails; conversational.",
}
DEFAULT_MAX_INVOCATIONS: Final = 20
_MOST_TURNS: Final = 200  # SimulatedUser's own limit
_STOP_PLACEHOLDER: Final = re.compile(r"\{\{\s*stop_signal\s*\}\}")
_FIXED_CONVERSATION_CRITERIA: Final = (
    TRAJECTORY,
    "response_match_score",
    "final_response_match_v2",
)


def scenario_speakers(
    source: AdkSource, case_id: str, raw: Any, where: str
) -> tuple[str, SimulatedUser, dict[str, Any]]:
    """The case's fixed ``input``, its simulated ``user``, and what goes in ``metadata.adk``,
    from the ``conversation_scenario`` at ``where`` (see the module docstring)."""
    scenario = expect_object(raw, source, where)
    starting = expect_string(
        get_key(scenario, "starting_prompt"), source, f"{where}.starting_prompt"
    )
    plan = expect_string(
        get_key(scenario, "conversation_plan"), source, f"{where}.conversation_plan"
    )
    metadata: dict[str, Any] = {}
    persona = None
    raw_persona = get_key(scenario, "user_persona")
    if raw_persona is not None:
        persona = _persona(source, case_id, raw_persona, f"{where}.user_persona")
        metadata["user_persona"] = raw_persona
    user = SimulatedUser(instruction=plan, persona=persona, max_turns=_max_turns(source))
    for name in _FIXED_CONVERSATION_CRITERIA:
        if name in source.criteria:
            source.note(
                case_id,
                f"{name}: compares with a fixed conversation, and a conversation_scenario has "
                "none (ADK cannot apply it either); not imported",
            )
    return starting, user, metadata


def report_simulator_config(source: AdkSource) -> None:
    """Notes, once for the file, what of the criteria file's ``user_simulator_config`` is not
    imported as it is."""
    for key in ("model", "model_configuration", "custom_instructions"):
        if get_key(source.simulator, key) is not None:
            source.note(
                "*",
                f"user_simulator_config.{key}: the simulator is chosen at run time "
                "(--user-model or --user-simulator); not imported",
            )
    limit = get_key(source.simulator, "max_allowed_invocations")
    turns = _max_turns(source)
    if limit is not None and turns != limit - 1:
        source.note(
            "*",
            f"user_simulator_config.max_allowed_invocations {limit}: imported as max_turns "
            f"{turns} (from 1 to {_MOST_TURNS} simulated turns after the starting prompt)",
        )


def _persona(source: AdkSource, case_id: str, raw: Any, where: str) -> str:
    if isinstance(raw, str):
        known = PRE_BUILT_PERSONAS.get(raw)
        if known is not None:
            return known
        source.note(
            case_id,
            f"user_persona {raw!r}: not one of ADK's pre-built personas "
            f"({', '.join(PRE_BUILT_PERSONAS)}), so one registered in code; only its id imported",
        )
        return raw
    persona = expect_object(raw, source, where)
    lines = [expect_string(get_key(persona, "description"), source, f"{where}.description")]
    behaviors = expect_list(get_key(persona, "behaviors") or [], source, f"{where}.behaviors")
    rubrics = 0
    for index, behavior in enumerate(behaviors):
        here = f"{where}.behaviors[{index}]"
        behavior = expect_object(behavior, source, here)
        instructions = get_key(behavior, "behavior_instructions") or []
        for at, text in enumerate(
            expect_list(instructions, source, f"{here}.behavior_instructions")
        ):
            text = expect_string(text, source, f"{here}.behavior_instructions[{at}]")
            lines.append(f"- {_STOP_PLACEHOLDER.sub('the end-of-conversation signal', text)}")
        rubrics += len(get_key(behavior, "violation_rubrics") or [])
    if rubrics:
        source.note(
            case_id,
            f"user_persona violation_rubrics ({rubrics}): ADK's judge of the simulator; "
            "trailcheck's simulator audit has its own checks; kept in metadata.adk.user_persona",
        )
    return "\n".join(lines)


def _max_turns(source: AdkSource) -> int:
    limit = get_key(source.simulator, "max_allowed_invocations")
    if limit is None:
        limit = DEFAULT_MAX_INVOCATIONS
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise source.fail(
            "user_simulator_config.max_allowed_invocations", f"expected a whole number: {limit!r}"
        )
    if limit < 0:  # ADK: no limit
        return _MOST_TURNS
    return min(max(limit - 1, 1), _MOST_TURNS)  # the starting prompt is one invocation
