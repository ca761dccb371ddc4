"""The simulator audit: deterministic checks that tell a simulator's error from an agent's.

After a trial, the simulated turns are checked against the user's brief:

- ``leaked_goal``: a turn recites the hidden instruction, case and punctuation aside:
  :data:`LEAK_WORDS` consecutive words of it that hold a word of the brief's second person
  ("you want a refund", read out as written), or twice as many in any voice (all of it when
  shorter). A user who reads out the brief hands the agent what it was meant to find out; a
  user who asks for what it wants in its own voice ("I want to fly from New York to Seattle on
  May 20") does what a tau-bench user does, and is no leak.
- ``invented_fact``: a turn states an identifier (a token of at least four characters holding a
  digit, or an e-mail address) that is in neither the instruction, the persona, the known facts
  nor anything said before it. A number in another written form is the same fact: a phone
  number with other separators (``(555) 123-4567`` for ``+1 555 123 4567``), a day with its
  ordinal (``20th`` for ``May 20``), an hour with am or pm. The agent cannot be blamed for
  acting on a fact the user made up.
- ``contradiction``: the user gave two different values of the same shape as one of its known
  facts (``A-1042``, then ``A-1043``) that its instruction does not both hold. A turn that
  names the first value again contrasts the two, it does not change its mind: "not A-1043,
  it's A-1042" (an id the agent offered) or "A-1042, not my earlier A-0999" contradicts nothing.
- ``ended_early``: the simulator stopped while none of the case's ``stop_when`` goal conditions
  held (only checked when the case has some: they say what "done" means; a hand-off condition,
  ``goal: false``, ends a conversation without saying what done is).

A conversation that reaches ``max_turns`` is graded as the agent's: a user who keeps asking is
what a real user does when not helped. A trial with any of these errors is ``sim_error``: not an
agent failure, reported beside pass^k, never folded into it (:mod:`trailcheck.run.status`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from trailcheck.cases import SimulatedUser
from trailcheck.simulation.turns import ConversationEnding, Turn

__all__ = [
    "LEAK_WORDS",
    "SIMULATOR_CHECKS",
    "SimulatorCheck",
    "SimulatorError",
    "SimulatorReviewer",
    "audit_conversation",
]

SimulatorCheck = Literal["leaked_goal", "invented_fact", "contradiction", "ended_early"]
SIMULATOR_CHECKS: Final[tuple[SimulatorCheck, ...]] = (
    "leaked_goal",
    "invented_fact",
    "contradiction",
    "ended_early",
)

LEAK_WORDS: Final = 8
_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*[A-Za-z0-9]")
# The brief speaks to the user in the second person; a user speaking for itself does not.
_BRIEF_VOICE: Final = frozenset(
    ["you", "your", "yours", "yourself", "you're", "you'll", "you've", "you'd"]
)
# A number written with separators (a phone number), or with an ordinal or a time of day.
_NUMBER_FORMS = re.compile(r"\+?\(?\d[\d\s().-]*\d")
_SUFFIXED = re.compile(r"(\d+)(?:st|nd|rd|th|am|pm)", re.IGNORECASE)


class SimulatorError(BaseModel):
    """One error of the simulator: which check, at which user turn (1-based over the
    conversation's user turns), and what it found."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    check: SimulatorCheck
    turn: int | None
    detail: str
    by: str = "rules"
    """Who found it: ``rules`` (these checks), or the name of a reviewing judge."""

    def __str__(self) -> str:
        where = f" at user turn {self.turn}" if self.turn is not None else ""
        return f"{self.check}{where}: {self.detail}"


class SimulatorReviewer(Protocol):
    """The optional second opinion: a judge that reads the brief and the conversation and names
    the simulator's errors the rules cannot see (a fact stated in other words, a contradiction
    of meaning). It raises when it cannot answer; the runner keeps that as a failure of the
    review, not of the trial. ``name`` goes in each error's ``by``."""

    @property
    def name(self) -> str: ...

    async def review(
        self, user: SimulatedUser, transcript: Sequence[Turn]
    ) -> list[SimulatorError]: ...


def audit_conversation(
    user: SimulatedUser,
    transcript: Sequence[Turn],
    ending: ConversationEnding | None,
    stop_condition_held: bool,
) -> list[SimulatorError]:
    """The simulator's errors in ``transcript`` (see the module docstring); ``ending`` is why the
    conversation ended (``None``: cut short by the deadline or a crash), and
    ``stop_condition_held`` whether a ``stop_when`` condition held when it did."""
    errors: list[SimulatorError] = []
    brief = " ".join([user.instruction, user.persona or "", *user.facts_text()])
    instruction_words = _words(user.instruction)
    said_before = brief
    shapes = _fact_shapes(user)
    stated: dict[str, tuple[str, int]] = {}
    contradictions: set[tuple[str, str]] = set()  # each reported once, however often repeated
    user_turn = 0
    for turn in transcript:
        if turn.role == "user":
            user_turn += 1
        if turn.role == "user" and turn.simulated:
            if _recites(instruction_words, _words(turn.text)):
                errors.append(
                    SimulatorError(
                        check="leaked_goal",
                        turn=user_turn,
                        detail="it recited its hidden instruction",
                    )
                )
            tokens = _identifiers(turn.text)
            errors += [
                SimulatorError(
                    check="invented_fact",
                    turn=user_turn,
                    detail=f"{token!r} is in no fact it was given",
                )
                for token in tokens
                if not _said(token, said_before)
            ]
            for token in tokens:
                shape = _shape(token)
                if shape not in shapes:
                    continue
                first = stated.setdefault(shape, (token, user_turn))
                # A turn that names its first value again corrects or contrasts ("not A-1043,
                # it's A-1042"), it does not change its mind.
                changed = first[0] != token and first[0] not in tokens
                known = (first[0], token) in contradictions
                if changed and not known and not _both_in(user.instruction, first[0], token):
                    contradictions.add((first[0], token))
                    errors.append(
                        SimulatorError(
                            check="contradiction",
                            turn=user_turn,
                            detail=f"it said {token!r} after {first[0]!r} (turn {first[1]})",
                        )
                    )
        said_before += " " + turn.text
    goals = [condition for condition in user.stop_when if condition.goal]
    if ending == "simulator" and goals and not stop_condition_held:
        conditions = "; ".join(str(condition) for condition in goals)
        errors.append(
            SimulatorError(
                check="ended_early", turn=None, detail=f"it stopped before any of: {conditions}"
            )
        )
    return errors


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _recites(instruction: list[str], said: list[str]) -> bool:
    """Whether ``said`` holds a run of the instruction's words long enough to be its recital:
    :data:`LEAK_WORDS` with a word of the brief's voice, twice that in any voice."""
    return _holds_run(instruction, said, LEAK_WORDS, voiced=True) or _holds_run(
        instruction, said, 2 * LEAK_WORDS, voiced=False
    )


def _holds_run(instruction: list[str], said: list[str], size: int, *, voiced: bool) -> bool:
    size = min(size, len(instruction))
    if size == 0 or len(said) < size:
        return False
    runs = {tuple(instruction[i : i + size]) for i in range(len(instruction) - size + 1)}
    if voiced:
        runs = {run for run in runs if _BRIEF_VOICE.intersection(run)}
    return any(tuple(said[i : i + size]) in runs for i in range(len(said) - size + 1))


def _said(token: str, before: str) -> bool:
    """Whether ``token`` was said ``before``, as written or as the same number in another
    form (see the module docstring)."""
    if token.lower() in before.lower():
        return True
    if suffixed := _SUFFIXED.fullmatch(token):
        return re.search(rf"(?<!\d){suffixed[1]}(?!\d)", before) is not None
    if not _NUMBER_FORMS.fullmatch(token):
        return False
    digits = re.sub(r"\D", "", token)
    return any(digits in re.sub(r"\D", "", form) for form in _NUMBER_FORMS.findall(before))


def _identifiers(text: str) -> list[str]:
    emails = _EMAIL.findall(text)
    rest = _EMAIL.sub(" ", text)
    tokens = [t for t in _TOKEN.findall(rest) if len(t) >= 4 and any(c.isdigit() for c in t)]
    return list(dict.fromkeys([*emails, *tokens]))


def _shape(token: str) -> str:
    return re.sub(r"[a-z]", "a", re.sub(r"[A-Z]", "A", re.sub(r"\d", "9", token)))


def _fact_shapes(user: SimulatedUser) -> set[str]:
    return {_shape(t) for fact in user.facts_text() for t in _identifiers(fact)}


def _both_in(instruction: str, first: str, second: str) -> bool:
    return first in instruction and second in instruction
