"""The terminal's view of conversations with simulated users, and of a replayed baseline.

:func:`render_conversations` shows who said what in each conversation
(:mod:`trailcheck.report.conversations`): the user's turns marked simulated or replayed, the
agent's answers, how the conversation ended, and a ``sim_error`` trial's simulator errors.
:func:`render_user_replay` says how a run replayed its baseline's users (``--replay-user``):
how many pairs of trials met the very same user, and at which user turn the others diverged.
Everything said is untrusted text: shown as plain text, control characters escaped.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from trailcheck.report.conversations import ConversationGroup, conversation_groups
from trailcheck.run.results import RunReport, UserReplay
from trailcheck.terminal_text import shown

__all__ = ["render_conversation", "render_conversations", "render_user_replay"]

_SPEAKER_STYLE = {"user": "cyan", "agent": "green"}


def _attempts(attempts: tuple[int, ...]) -> str:
    return ("trial " if len(attempts) == 1 else "trials ") + ", ".join(map(str, attempts))


def render_conversation(group: ConversationGroup) -> RenderableType:
    """One conversation, in a panel titled with its case, trials and status."""
    body = Text()
    for said in group.said:
        body.append(f"{said.who}: ", style=_SPEAKER_STYLE[said.speaker])
        body.append(shown(said.text) + "\n")
    body.append(f"ended: {group.ending}", style="dim")
    for error in group.simulator_errors:
        body.append("\nsimulator error: ", style="bold magenta")
        body.append(shown(str(error)))
    statuses = "/".join(group.statuses)
    title = Text(f"{shown(group.case_id)} · {_attempts(group.attempts)} · {statuses}")
    border = "green" if group.passed else "magenta" if "sim_error" in group.statuses else "red"
    return Panel(body, title=title, title_align="left", border_style=border)


def render_conversations(report: RunReport, *, passed: bool = True) -> RenderableType | None:
    """Every conversation with a simulated user (``passed=False``: only those of trials that
    did not pass); ``None`` when there is none."""
    groups = conversation_groups(report, passed=passed)
    if not groups:
        return None
    heading = "conversations" if passed else "conversations of the trials that did not pass"
    return Group(
        Text(f"{heading} (who said what)", style="bold"), *map(render_conversation, groups)
    )


def render_user_replay(replay: UserReplay) -> Text:
    """The pairs that met the baseline's very user, and where the others diverged."""
    text = Text("simulated users replayed from the baseline: ", style="bold")
    text.append(f"{replay.pairs} pairs, {replay.identical} identical, {replay.diverged} diverged")
    where: dict[tuple[str, int], list[int]] = {}
    for conversation in replay.conversations:
        if conversation.diverged_at is not None:
            key = (conversation.case_id, conversation.diverged_at)
            where.setdefault(key, []).append(conversation.attempt)
    for (case_id, turn), attempts in where.items():
        text.append(
            f"\n  {shown(case_id)} ({_attempts(tuple(sorted(attempts)))}): fresh turns from"
            f" user turn {turn}"
        )
    return text
