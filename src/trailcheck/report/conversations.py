"""Who said what in a run's conversations with simulated users, as the reports show them.

A trial whose case has a simulated user keeps its ``transcript`` (every user turn and the
agent's answer to each) and its simulated ``user_turns`` (who said each, and whether it was
replayed from a baseline). :func:`who_said_what` lays them side by side, one :class:`Said` a
turn; a report written before transcripts were kept has only the user turns, so the agent's
last answer (``final_output``) closes the conversation there. :func:`conversation_groups`
lists a run's conversations by case, trials that said the very same things under one entry:
with scripted agents and users, k trials are usually one conversation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from trailcheck.run.results import RunReport, TrialResult
from trailcheck.run.status import TrialStatus
from trailcheck.simulation import ConversationEnding, SimulatorError

__all__ = [
    "ENDINGS",
    "ConversationGroup",
    "Said",
    "conversation_groups",
    "ending_text",
    "who_said_what",
]

ENDINGS: Final[Mapping[ConversationEnding, str]] = {
    "simulator": "the simulated user said it was done",
    "stop_when": "a stop condition of the case held after the agent's turn",
    "max_turns": "the user had spoken max_turns times",
}


@dataclass(frozen=True, slots=True)
class Said:
    """One turn: the user's (``simulated`` by a simulator, ``replayed`` from the baseline, said
    by ``model``) or the agent's."""

    speaker: Literal["user", "agent"]
    text: str
    simulated: bool = False
    replayed: bool = False
    model: str | None = None

    @property
    def who(self) -> str:
        """``agent``, ``user`` (a fixed turn), ``user (simulated)``, ``user (simulated,
        replayed)``."""
        if self.speaker == "agent":
            return "agent"
        marks = [
            mark for mark, on in (("simulated", self.simulated), ("replayed", self.replayed)) if on
        ]
        return "user" + (f" ({', '.join(marks)})" if marks else "")


def who_said_what(trial: TrialResult) -> list[Said]:
    """The turns of ``trial``'s conversation, in order (see the module docstring); empty when
    its case had no simulated user."""
    spoken = [turn for turn in trial.user_turns if not turn.stop]
    if not trial.transcript:
        said = [Said("user", t.text, True, t.replayed, t.model) for t in spoken]
        if said and trial.final_output is not None:
            said.append(Said("agent", trial.final_output))
        return said
    simulated = iter(spoken)
    turns = []
    for turn in trial.transcript:
        if turn.role == "agent":
            turns.append(Said("agent", turn.text))
        elif not turn.simulated:
            turns.append(Said("user", turn.text))
        else:
            source = next(simulated, None)
            if source is None:  # a transcript and its turns disagree: say only what is known
                turns.append(Said("user", turn.text, True))
            else:
                turns.append(Said("user", turn.text, True, source.replayed, source.model))
    return turns


def _had_user(trial: TrialResult) -> bool:
    """Whether ``trial``'s case had a simulated user: a transcript is kept only then, and it is
    there even when the trial was cut before the simulator first spoke."""
    return bool(trial.user_turns or trial.transcript)


def ending_text(trial: TrialResult) -> str:
    """How the conversation ended, in words."""
    ending = trial.conversation_ending
    if ending is None:
        return "cut short (the trial's deadline, or the agent or simulator raised)"
    return f"{ending}: {ENDINGS[ending]}"


@dataclass(frozen=True, slots=True)
class ConversationGroup:
    """The trials of one case that said the very same things and ended the same way."""

    case_id: str
    attempts: tuple[int, ...]
    statuses: tuple[TrialStatus, ...]
    said: tuple[Said, ...]
    ending: str
    simulator_errors: tuple[SimulatorError, ...]

    @property
    def passed(self) -> bool:
        return self.statuses == ("passed",)


def conversation_groups(report: RunReport, *, passed: bool = True) -> list[ConversationGroup]:
    """Every case's conversations with a simulated user, grouped (see the module docstring);
    with ``passed=False``, only those of trials that did not pass."""
    groups: list[ConversationGroup] = []
    for case in report.cases:
        by_key: dict[tuple[object, ...], list[TrialResult]] = {}
        for trial in sorted(case.trials, key=lambda t: t.attempt):
            if not _had_user(trial) or (not passed and trial.status == "passed"):
                continue
            said = tuple(who_said_what(trial))
            key = (said, ending_text(trial), tuple(trial.simulator_errors))
            by_key.setdefault(key, []).append(trial)
        for trials in by_key.values():
            first = trials[0]
            groups.append(
                ConversationGroup(
                    case_id=case.id,
                    attempts=tuple(t.attempt for t in trials),
                    statuses=tuple(dict.fromkeys(t.status for t in trials)),
                    said=tuple(who_said_what(first)),
                    ending=ending_text(first),
                    simulator_errors=tuple(first.simulator_errors),
                )
            )
    return groups
