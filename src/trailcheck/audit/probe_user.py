"""The user the audit's own agents meet in a case whose user is simulated.

The audit runs agents that do not listen (a do-nothing agent, a random tool caller, the oracle
that replays the expected calls): what they are told changes nothing they do, and no model is at
hand to play the user. So a case with a simulated user is played by :data:`PROBE_USER`, one
neutral line, and the case is given one user turn and no stop condition
(:func:`probed`): the conversation ends at ``max_turns``, which the simulator audit never
holds against the user, and the trial is graded as the case grades any agent.
"""

from __future__ import annotations

from typing import Final

from trailcheck.cases import Dataset
from trailcheck.simulation.scripted import ScriptedUser

__all__ = ["PROBE_LINE", "PROBE_USER", "probed"]

PROBE_LINE: Final = "Hello, I need some help, please."
PROBE_USER: Final = ScriptedUser(PROBE_LINE, name="audit-probe-user")


def probed(dataset: Dataset) -> tuple[Dataset, ScriptedUser | None]:
    """``dataset`` with each simulated user cut to one turn and no stop condition, and the
    simulator to run it with (``None`` when no case has a simulated user)."""
    if not any(case.user is not None for case in dataset.cases):
        return dataset, None
    cases = [
        case
        if case.user is None
        else case.model_copy(
            update={"user": case.user.model_copy(update={"max_turns": 1, "stop_when": []})}
        )
        for case in dataset.cases
    ]
    return dataset.model_copy(update={"cases": cases}), PROBE_USER
