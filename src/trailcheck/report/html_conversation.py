"""The HTML report's conversations with simulated users: who said what, and how it ended.

:func:`conversation_block` is one trial's conversation, shown in the trial's details: each turn
a list item with its speaker (``data-speaker``), the user's marked ``data-simulated`` and
``data-replayed``; then how it ended (``data-testid="conversation-ending"``) and, for a
``sim_error`` trial, the simulator's errors (``data-testid="simulator-error"``, ``data-check``).
:func:`conversations_section` lists every case's conversations, passed ones too, trials that
said the very same things under one entry (:mod:`trailcheck.report.conversations`). All that
was said is escaped: a user's or agent's turn is untrusted text.
"""

from __future__ import annotations

from collections.abc import Sequence

from trailcheck.report.conversations import (
    ConversationGroup,
    Said,
    conversation_groups,
    ending_text,
    who_said_what,
)
from trailcheck.report.html_markup import Html, el, join
from trailcheck.run.results import RunReport, TrialResult
from trailcheck.simulation import SimulatorError

__all__ = ["conversation_block", "conversations_section"]


def _turn(said: Said) -> Html:
    model = f" · {said.model}" if said.model else None
    return el(
        "li",
        el("span", said.who, el("small", model, class_="meta") if model else None, class_="who"),
        el("div", said.text, class_="said"),
        class_=f"turn {said.speaker}",
        data_speaker=said.speaker,
        data_simulated=said.simulated,
        data_replayed=said.replayed,
    )


def _errors(errors: Sequence[SimulatorError]) -> Html | None:
    if not errors:
        return None
    items = [
        el("li", str(error), data_testid="simulator-error", data_check=error.check)
        for error in errors
    ]
    return el(
        "div",
        el("p", "the simulated user erred (sim_error: not scored, not the agent's)", class_="down"),
        el("ul", join(items)),
    )


def _block(said: Sequence[Said], ending: str, errors: Sequence[SimulatorError]) -> Html:
    return el(
        "div",
        el("ol", join(map(_turn, said)), class_="conversation"),
        el("p", f"ended: {ending}", class_="meta", data_testid="conversation-ending"),
        _errors(errors),
        data_testid="conversation",
    )


def conversation_block(trial: TrialResult) -> Html | None:
    """``trial``'s conversation (see the module docstring); ``None`` without a simulated user."""
    if not (trial.user_turns or trial.transcript):  # a transcript is kept only with a user
        return None
    return _block(who_said_what(trial), ending_text(trial), trial.simulator_errors)


def _group(group: ConversationGroup) -> Html:
    trials = ", ".join(map(str, group.attempts))
    statuses = "/".join(group.statuses)
    return el(
        "details",
        el("summary", f"{group.case_id} · trial(s) {trials} · {statuses}"),
        _block(group.said, group.ending, group.simulator_errors),
        class_="trial",
        data_testid="conversation-group",
        data_case=group.case_id,
        data_status=statuses,
    )


def conversations_section(report: RunReport) -> Html | None:
    """Every conversation of the run with a simulated user; ``None`` when there is none."""
    groups = conversation_groups(report)
    if not groups:
        return None
    return el(
        "section",
        el("h2", "Conversations"),
        el(
            "p",
            "Who said what in each case's conversation with its simulated user; trials that"
            " said the very same things are listed once.",
            class_="meta",
        ),
        join(map(_group, groups)),
        id="conversations",
    )
