"""A user played by rules: the keyless simulator for tests and demos (:mod:`trailcheck.testing`).

::

    user = ScriptedUser(
        opening="My blender arrived broken: I want a refund of {first_amount} EUR.",
        rules=[
            (r"(?i)order (id|number)", "It's {order_id}."),
            (r"(?i)refund(ed)? .*issued", STOP_SIGNAL),
        ],
    )

The ``opening`` is said when no user has spoken yet; after each agent answer, the first rule
whose pattern the answer matches says its text; when none matches, ``otherwise`` is said (by
default the user stops). A text is a template of the brief: ``{order_id}`` is a known fact's
value, ``{instruction}`` and ``{persona}`` the brief's own (so a test can make a simulator that
leaks its goal). :data:`~trailcheck.simulation.brief.STOP_SIGNAL` as a text ends the
conversation.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

from trailcheck.cases import SimulatedUser
from trailcheck.errors import UsageError
from trailcheck.simulation.brief import STOP_SIGNAL
from trailcheck.simulation.turns import Turn, UserTurn

__all__ = ["ScriptedUser"]


class ScriptedUser:
    """A :class:`~trailcheck.simulation.UserSimulator` whose turns come from rules (see the
    module docstring). Every transcript it was asked about is kept in :attr:`calls`."""

    def __init__(
        self,
        opening: str,
        rules: Sequence[tuple[str, str]] = (),
        *,
        otherwise: str = STOP_SIGNAL,
        name: str = "scripted-user",
    ) -> None:
        self._opening = opening
        try:
            self._rules = [(re.compile(pattern), text) for pattern, text in rules]
        except re.error as error:
            raise UsageError(f"a ScriptedUser rule is not a regular expression: {error}") from None
        self._otherwise = otherwise
        self._name = name
        script = "\0".join([opening, *(f"{p}\0{t}" for p, t in rules), otherwise])
        self._digest = hashlib.sha256(script.encode()).hexdigest()[:16]
        self.calls: list[list[Turn]] = []

    @property
    def name(self) -> str:
        return self._name

    async def next_turn(self, user: SimulatedUser, transcript: Sequence[Turn]) -> UserTurn:
        self.calls.append(list(transcript))
        if not any(turn.role == "user" for turn in transcript):
            template = self._opening
        else:
            answer = transcript[-1].text if transcript and transcript[-1].role == "agent" else ""
            template = next(
                (text for pattern, text in self._rules if pattern.search(answer)), self._otherwise
            )
        text = _filled(template, user)
        stop = STOP_SIGNAL in text
        return UserTurn(
            text="" if stop else text, stop=stop, model=self._name, prompt_digest=self._digest
        )


def _filled(template: str, user: SimulatedUser) -> str:
    values: dict[str, Any] = {
        "instruction": user.instruction,
        "persona": user.persona or "",
        **{key: value for key, value in user.known_facts.items()},
    }
    try:
        return template.format_map(values)
    except (KeyError, IndexError, ValueError) as error:
        raise UsageError(
            f"ScriptedUser text {template!r} names {error}, which the simulated user's brief"
            f" does not hold (its known facts: {', '.join(user.known_facts) or 'none'})"
        ) from None
