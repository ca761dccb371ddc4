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

A dataset whose cases each need their own script plays them with :class:`ScriptedUsers`, which
hands each conversation to the script whose key its brief's instruction contains::

    users = ScriptedUsers({"arrived broken": broken_blender, "change your mind": fickle})
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from trailcheck.cases import SimulatedUser
from trailcheck.errors import UsageError
from trailcheck.simulation.brief import STOP_SIGNAL
from trailcheck.simulation.turns import Turn, UserTurn

__all__ = ["ScriptedUser", "ScriptedUsers"]


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


class ScriptedUsers:
    """A :class:`~trailcheck.simulation.UserSimulator` that plays each case with its own
    :class:`ScriptedUser`: the one whose key is part of the brief's instruction.

    The simulator sees a case's brief, not its id, so the instruction is what tells the cases
    apart. Exactly one key must be in it: a brief that no key or two keys fit is a
    :class:`~trailcheck.errors.UsageError`, so a case added later cannot quietly borrow another
    case's script."""

    def __init__(self, scripts: Mapping[str, ScriptedUser], *, name: str = "scripted-users"):
        if not scripts or not all(scripts):
            raise UsageError("ScriptedUsers needs scripts, each under a non-empty key")
        self._scripts = dict(scripts)
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def script_for(self, user: SimulatedUser) -> ScriptedUser:
        """The script whose key ``user``'s instruction contains (see the class docstring)."""
        fitting = [key for key in self._scripts if key in user.instruction]
        if len(fitting) != 1:
            which = "no key" if not fitting else "the keys " + ", ".join(map(repr, fitting))
            start = user.instruction[:60] + ("..." if len(user.instruction) > 60 else "")
            raise UsageError(
                f"ScriptedUsers: {which} of {sorted(self._scripts)} fit the instruction"
                f" {start!r}; exactly one must be part of it"
            )
        return self._scripts[fitting[0]]

    async def next_turn(self, user: SimulatedUser, transcript: Sequence[Turn]) -> UserTurn:
        return await self.script_for(user).next_turn(user, transcript)


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
