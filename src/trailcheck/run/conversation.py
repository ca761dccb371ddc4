"""One trial's conversation: the case's fixed user turns, then the simulated user's.

The fixed turns of the case input are played first, in order. A case with a ``user`` brief
then goes on: the simulator (or, under ``--replay-user``, the baseline's turn for the same
transcript) says the next user turn, the agent answers, and so on until the simulator stops, a
``stop_when`` condition holds after an agent turn, or the user has spoken ``max_turns`` times
(the trial's deadline cuts it too). Each simulated turn is recorded as a span with
``trailcheck.user.simulated = true`` (and the simulator's model and prompt digest), by the
trial's kind of recording (:class:`TurnRecorder`), and the trace's input becomes every user
turn, the simulated ones named ``simulated_user``.

The tools the agent gets are counted here (:meth:`Conversation.counted_tools`), for the
``tool_called`` stop conditions. After the trial, :meth:`Conversation.audit` runs the simulator
audit (:mod:`trailcheck.simulation.audit`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final

from trailcheck.capture.jsonable import to_json_value
from trailcheck.cases import Case, SimulatedUser
from trailcheck.errors import UsageError
from trailcheck.run.faults import tool_name
from trailcheck.run.preflight import user_turns
from trailcheck.scorers import ScorerFailure
from trailcheck.simulation import (
    ConversationEnding,
    SimulatorError,
    SimulatorReviewer,
    Turn,
    TurnCache,
    UserSimulator,
    UserTurn,
    audit_conversation,
    transcript_key,
)
from trailcheck.trace import Message

__all__ = [
    "SIMULATED_USER_NAME",
    "USER_TURN_SPAN",
    "Conversation",
    "TurnRecorder",
    "user_turn_attributes",
]

SIMULATED_USER_NAME: Final = "simulated_user"
"""The ``name`` of a simulated user's message in a trace's input."""

USER_TURN_SPAN: Final = "trailcheck.user_turn"
"""The name of the span that records a simulated user turn."""

Respond = Callable[[str], Awaitable[Any]]


TurnRecorder = Callable[[dict[str, Any]], None]
"""Records one simulated user turn, given its span's attributes, in the trial's trace."""


def user_turn_attributes(turn: UserTurn, number: int) -> dict[str, Any]:
    """The attributes of the span of the ``number``-th user turn (1-based), said by ``turn``."""
    return {
        "trailcheck.user.simulated": True,
        "trailcheck.user.turn": number,
        "trailcheck.user.message": turn.text,
        "trailcheck.user.model": turn.model,
        "trailcheck.user.prompt_digest": turn.prompt_digest,
        "trailcheck.user.replayed": turn.replayed,
    }


class Conversation:
    """Plays one trial's user turns (see the module docstring) and keeps what was said, also
    when the trial is cut short: :attr:`transcript`, :attr:`simulated_turns`, :attr:`ending`."""

    def __init__(
        self,
        case: Case,
        attempt: int,
        simulator: UserSimulator | None,
        replay: TurnCache | None = None,
    ) -> None:
        if case.user is not None and simulator is None:
            raise UsageError(
                f"case {case.id!r} has a simulated user, but the run has no user simulator"
                " (--user-model, or user_simulator= in Python)"
            )
        self._case = case
        self._attempt = attempt
        self._simulator = simulator
        self._replay = replay
        self.transcript: list[Turn] = []
        self.simulated_turns: list[UserTurn] = []
        self.ending: ConversationEnding | None = None
        self.stop_condition_held = False
        self._called: set[str] = set()

    def counted_tools(self, tools: Sequence[Callable[..., Any]]) -> list[Callable[..., Any]]:
        """``tools``, each noting its name when called (signature, name and docstring kept),
        when some stop condition asks which tools were called; else ``tools`` as they are."""
        user = self._case.user
        if user is None or not any(c.tool_called for c in user.stop_when):
            return list(tools)
        return [self._counted(tool) for tool in tools]

    async def play(self, respond: Respond, record: TurnRecorder) -> Any:
        """Every user turn answered by ``respond``; the agent's last answer."""
        answer: Any = None
        for text in user_turns(self._case):
            self.transcript.append(Turn(role="user", text=text))
            answer = await respond(text)
            self.transcript.append(Turn(role="agent", text=_answer_text(answer)))
        user = self._case.user
        if user is None or self._simulator is None:
            return answer
        while True:
            if len(self.simulated_turns) >= user.max_turns:
                self.ending = "max_turns"
                return answer
            turn = await self._next_turn(user, self._simulator)
            self.simulated_turns.append(turn)
            if turn.stop:
                self.ending = "simulator"
                return answer
            self.transcript.append(Turn(role="user", text=turn.text, simulated=True))
            record(user_turn_attributes(turn, self.user_turn_count))
            answer = await respond(turn.text)
            said = _answer_text(answer)
            self.transcript.append(Turn(role="agent", text=said))
            if any(condition.holds(self._called, said) for condition in user.stop_when):
                self.stop_condition_held = True
                self.ending = "stop_when"
                return answer

    @property
    def user_turn_count(self) -> int:
        return sum(turn.role == "user" for turn in self.transcript)

    def input_messages(self) -> list[Message]:
        """Every user turn, in order: the trace's input (simulated ones named as such)."""
        return [
            Message(
                role="user", content=turn.text, name=SIMULATED_USER_NAME if turn.simulated else None
            )
            for turn in self.transcript
            if turn.role == "user"
        ]

    async def audit(
        self, reviewer: SimulatorReviewer | None = None
    ) -> tuple[list[SimulatorError], list[ScorerFailure]]:
        """The simulator's errors in this conversation (none without a simulated user): by the
        audit's rules, then by ``reviewer`` when given. A review that raised is returned as a
        failure of the review (to keep beside the trial), and the rules' finding stands."""
        user = self._case.user
        if user is None or not self.simulated_turns:
            return [], []
        errors = audit_conversation(user, self.transcript, self.ending, self.stop_condition_held)
        if reviewer is None:
            return errors, []
        try:
            errors += await reviewer.review(user, self.transcript)
        # The reviewer's failure is data beside the trial, never a lost trial.
        except Exception as failure:  # noqa: BLE001
            return errors, [ScorerFailure.from_exception(reviewer.name, failure)]
        return errors, []

    def describe(self) -> dict[str, Any] | None:
        """What the trace's metadata keeps of the simulated user: who, how it ended, how many
        turns were replayed. ``None`` without a simulated user."""
        if self._case.user is None or self._simulator is None:
            return None
        return {
            "simulator": self._simulator.name,
            "ending": self.ending,
            "turns": sum(not turn.stop for turn in self.simulated_turns),
            "replayed": sum(turn.replayed for turn in self.simulated_turns),
        }

    async def _next_turn(self, user: SimulatedUser, simulator: UserSimulator) -> UserTurn:
        key = transcript_key(self._case.id, self._attempt, user, self.transcript)
        replayed = self._replay.get(key) if self._replay is not None else None
        if replayed is not None:
            return replayed
        turn = await simulator.next_turn(user, list(self.transcript))
        return turn.model_copy(update={"key": key})

    def _counted(self, tool: Callable[..., Any]) -> Callable[..., Any]:
        name, called = tool_name(tool), self._called
        if inspect.iscoroutinefunction(tool):

            @functools.wraps(tool)
            async def counted_async(*args: Any, **kwargs: Any) -> Any:
                called.add(name)
                return await tool(*args, **kwargs)

            return counted_async

        @functools.wraps(tool)
        def counted(*args: Any, **kwargs: Any) -> Any:
            called.add(name)
            return tool(*args, **kwargs)

        return counted


def _answer_text(answer: Any) -> str:
    """What the agent said, as text: its answer when text, else the answer as JSON. A set in
    it is listed sorted: in its own order, the same answer would read differently from one
    process to the next (string hashes), and the replay keys of two runs would never meet."""
    if answer is None:
        return ""
    if isinstance(answer, str):
        return answer
    value = to_json_value(_sets_sorted(answer)).value
    return value if isinstance(value, str) else str(value)


def _sets_sorted(value: Any) -> Any:
    """``value`` with each set in it, however deep in dicts, lists and tuples, a sorted list."""
    if isinstance(value, set | frozenset):
        return sorted((_sets_sorted(item) for item in value), key=repr)
    if isinstance(value, dict):
        return {key: _sets_sorted(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_sets_sorted(item) for item in value]
    return value
