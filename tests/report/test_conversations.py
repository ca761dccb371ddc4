"""Conversations with simulated users in the reports: who said what (user turns marked simulated
or replayed, the agent's answers), how each ended, a sim_error trial's simulator errors, and the
replayed users beside the comparison; in the terminal and in the HTML report."""

from __future__ import annotations

from rich.console import Console

from trailcheck.report.conversation_view import render_conversations, render_user_replay
from trailcheck.report.conversations import conversation_groups, who_said_what
from trailcheck.report.html import render_html
from trailcheck.report.run_view import render_overview, render_run
from trailcheck.run.results import RunReport, TrialResult
from trailcheck.simulation import SimulatorError, Turn, UserTurn

from .conftest import HOSTILE_OUTPUT
from .test_html import Parsed


def plain(renderable: object, width: int = 200) -> str:
    console = Console(width=width, record=True, color_system=None, force_terminal=False)
    console.print(renderable)
    return console.export_text()


def _trial(report: RunReport, case_id: str, attempt: int = 1) -> TrialResult:
    return next(t for t in report.trials() if t.case_id == case_id and t.attempt == attempt)


def test_who_said_what_interleaves_the_users_turns_with_the_agents_answers(
    conversation_reports: tuple[RunReport, RunReport],
) -> None:
    _, v2 = conversation_reports
    said = who_said_what(_trial(v2, "wrong-amount-first"))
    assert [s.speaker for s in said] == ["user", "agent"] * 4
    assert [(s.who, s.text) for s in said[::2]] == [
        (
            "user (simulated, replayed)",
            "Hello. The Overstory arrived with its cover torn. Could I have the $24 I paid"
            " for it back?",
        ),
        ("user (simulated, replayed)", "It's A-1007."),
        ("user (simulated)", "My card ends in 5150."),
        ("user (simulated)", "Oh, you're right, it was $18. Go ahead."),
    ]
    assert said[5].text.startswith("The Overstory cost $18.00 on order A-1007, not $24.00")
    assert {s.model for s in said[::2]} == {"scripted-user:wrong-amount"}


def test_a_report_without_transcripts_shows_the_user_turns_and_the_last_answer() -> None:
    trial = TrialResult(
        case_id="c",
        attempt=1,
        status="failed",
        reason="failed",
        duration_ms=1.0,
        final_output="Done.",
        user_turns=[
            UserTurn(text="Refund please.", model="m", prompt_digest="d" * 16),
            UserTurn(stop=True, model="m", prompt_digest="d" * 16),
        ],
        conversation_ending="simulator",
    )
    assert [(s.who, s.text) for s in who_said_what(trial)] == [
        ("user (simulated)", "Refund please."),
        ("agent", "Done."),
    ]
    fixed = trial.model_copy(
        update={
            "transcript": [
                Turn(role="user", text="Hello."),
                Turn(role="agent", text="Hi."),
                Turn(role="user", text="Refund please.", simulated=True),
                Turn(role="agent", text="Done."),
            ]
        }
    )
    assert [s.who for s in who_said_what(fixed)] == ["user", "agent", "user (simulated)", "agent"]


def test_trials_that_said_the_same_are_one_conversation(
    conversation_reports: tuple[RunReport, RunReport],
) -> None:
    v1, _ = conversation_reports
    groups = conversation_groups(v1)
    assert [(g.case_id, g.attempts, g.statuses) for g in groups] == [
        ("wrong-amount-first", (1, 2), ("failed",)),
        ("order-id-when-asked", (1, 2), ("failed",)),
        ("changes-mind", (1, 2), ("failed",)),
        ("espresso-out-of-window", (1, 2), ("sim_error",)),
    ]


def test_a_trial_cut_before_the_simulator_spoke_still_shows_its_fixed_turns(
    conversation_reports: tuple[RunReport, RunReport],
) -> None:
    v1, _ = conversation_reports
    case = v1.cases[0]
    # The deadline struck while the agent answered the case's fixed turn: no simulated turn yet.
    cut = case.trials[0].model_copy(
        update={
            "status": "timeout",
            "user_turns": [],
            "conversation_ending": None,
            "transcript": [Turn(role="user", text="Hello, I ordered a book.")],
        }
    )
    report = v1.model_copy(
        update={"cases": [case.model_copy(update={"trials": [cut]}), *v1.cases[1:]]}
    )
    (group,) = [g for g in conversation_groups(report) if g.case_id == case.id]
    assert [(s.who, s.text) for s in group.said] == [("user", "Hello, I ordered a book.")]
    assert group.statuses == ("timeout",)
    assert group.ending.startswith("cut short")


def test_the_terminal_shows_who_said_what_the_ending_and_the_simulator_errors(
    conversation_reports: tuple[RunReport, RunReport],
) -> None:
    v1, v2 = conversation_reports
    text = plain(render_conversations(v1))
    assert "wrong-amount-first · trials 1, 2 · failed" in text
    assert "user (simulated): It's A-1007." in text
    assert "agent: I've issued your refund of $24.00 for order A-1007" in text
    assert "ended: stop_when: a stop condition of the case held" in text
    assert "espresso-out-of-window · trials 1, 2 · sim_error" in text
    assert "simulator error: invented_fact at user turn 2: 'A-1030' is in no fact" in text
    assert "simulator error: ended_early" in text
    # The run's own summary shows the conversations of the trials that did not pass only.
    summary = plain(render_run(v2))
    assert "conversations of the trials that did not pass" in summary
    assert "espresso-out-of-window · trials 1, 2 · sim_error" in summary
    assert "changes-mind · trials" not in summary
    assert "simulated users replayed from the baseline: 8 pairs, 2 identical, 6 diverged" in summary


def test_the_terminal_says_where_each_pair_diverged(
    conversation_reports: tuple[RunReport, RunReport],
) -> None:
    _, v2 = conversation_reports
    assert v2.user_replay is not None
    text = plain(render_user_replay(v2.user_replay))
    assert "changes-mind (trials 1, 2): fresh turns from user turn 3" in text
    assert "espresso-out-of-window" not in text  # identical: it never diverged


def test_the_overview_counts_sim_errors_beside_the_scored_trials(
    conversation_reports: tuple[RunReport, RunReport],
) -> None:
    v1, v2 = conversation_reports
    text = plain(render_overview([("v1", v1), ("v2", v2)], title="t", k=2))
    v1_row = next(line for line in text.splitlines() if line.startswith("│ v1"))
    v2_row = next(line for line in text.splitlines() if line.startswith("│ v2"))
    assert "6/6" in v1_row
    assert "2 sim_error" in v1_row
    assert "0/6" in v2_row
    assert "none" in v2_row
    assert "2 sim_error" in v2_row
    assert "espresso" not in v2_row  # not scored: not a case the agent fails


def test_the_html_report_shows_each_conversation_and_the_replayed_users(
    conversation_reports: tuple[RunReport, RunReport],
) -> None:
    v1, v2 = conversation_reports
    parsed = Parsed(render_html(v2))
    groups = [a for _, a in parsed.tags if a.get("data-testid") == "conversation-group"]
    assert [(g["data-case"], g["data-status"]) for g in groups] == [
        ("wrong-amount-first", "passed"),
        ("order-id-when-asked", "passed"),
        ("changes-mind", "passed"),
        ("espresso-out-of-window", "sim_error"),
    ]
    html = render_html(v2)
    first = Parsed(html[html.index('id="conversations"') :])  # wrong-amount-first comes first
    turns = [a for _, a in first.tags if a.get("data-speaker") == "user"]
    assert "data-simulated" in turns[0]
    assert "data-replayed" in turns[0]
    assert "data-replayed" not in turns[2]  # the first fresh turn
    assert parsed.texts["replay-pairs"] == ["8"]
    assert parsed.texts["replay-identical"] == ["2"]
    assert parsed.texts["replay-diverged"] == ["6"]
    rows = [a for _, a in parsed.tags if a.get("data-testid") == "replay-row"]
    assert {(r["data-case"], r.get("data-diverged-at")) for r in rows} == {
        ("wrong-amount-first", "3"),
        ("order-id-when-asked", "3"),
        ("changes-mind", "3"),
        ("espresso-out-of-window", None),
    }
    # A failed trial's details carry its conversation, a sim_error trial's its errors too.
    failed = Parsed(render_html(v1))
    assert any("I've issued your refund of $24.00" in t for t in failed.texts["conversation"])
    errors = [a for _, a in failed.tags if a.get("data-testid") == "simulator-error"]
    assert {e["data-check"] for e in errors} == {"invented_fact", "ended_early"}
    assert (
        "ended: simulator: the simulated user said it was done"
        in failed.texts["conversation-ending"]
    )
    assert 'id="user-replay"' not in render_html(v1)  # v1 replayed nobody


def test_what_was_said_is_text_never_markup_in_the_html_and_the_terminal(
    conversation_reports: tuple[RunReport, RunReport],
) -> None:
    hostile = UserTurn(text=HOSTILE_OUTPUT, model="m", prompt_digest="d" * 16)
    trial = TrialResult(
        case_id="c",
        attempt=1,
        status="sim_error",
        reason="sim_error",
        duration_ms=1.0,
        user_turns=[hostile],
        transcript=[
            Turn(role="user", text=HOSTILE_OUTPUT, simulated=True),
            Turn(role="agent", text="\x1b[31mred\x1b[0m"),
        ],
        simulator_errors=[SimulatorError(check="invented_fact", turn=1, detail=HOSTILE_OUTPUT)],
    )
    v1, _ = conversation_reports
    case = v1.cases[0].model_copy(update={"id": "c", "trials": [trial]})
    report = v1.model_copy(update={"cases": [case]})
    html = render_html(report)
    assert "<script>" not in html
    assert "<img src=x" not in html
    [shown] = {text for text in Parsed(html).texts["conversation"]}
    assert shown.count(HOSTILE_OUTPUT) == 2  # the turn and the simulator error
    text = plain(render_conversations(report))
    assert "\x1b" not in text
    assert HOSTILE_OUTPUT in text
