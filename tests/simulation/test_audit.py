"""The simulator audit: each check catches its error and leaves an honest user alone."""

from __future__ import annotations

from trailcheck.cases import SimulatedUser, StopCondition
from trailcheck.simulation import ConversationEnding, Turn, audit_conversation

USER = SimulatedUser(
    instruction="You want a refund for order A-1042, which arrived broken. Accept 25 EUR.",
    known_facts={"order_id": "A-1042", "email": "ana@example.com"},
    stop_when=[StopCondition(tool_called="issue_refund")],
)


def said(*turns: tuple[str, str]) -> list[Turn]:
    return [Turn.model_validate({"role": r, "text": t, "simulated": r == "user"}) for r, t in turns]


def checks(
    transcript: list[Turn], ending: ConversationEnding | None = "stop_when", held: bool = True
) -> list[tuple[str, int | None]]:
    errors = audit_conversation(USER, transcript, ending, held)
    return [(error.check, error.turn) for error in errors]


def test_an_honest_user_passes_every_check() -> None:
    transcript = said(
        ("user", "Hi, my blender arrived broken and I'd like a refund."),
        ("agent", "Sorry! What is your order number and e-mail?"),
        ("user", "Order A-1042, ana@example.com. I waited 2 weeks for it."),
        ("agent", "I can refund 25 EUR for A-1042. Shall I?"),
        ("user", "Yes, 25 EUR for A-1042 is fine."),
    )
    assert checks(transcript) == []


def test_reciting_the_instruction_is_a_leak_whatever_the_case_and_punctuation() -> None:
    transcript = said(("user", "so: YOU WANT a refund for order a-1042, which arrived BROKEN!"))
    assert checks(transcript) == [("leaked_goal", 1)]


def test_a_short_overlap_with_the_instruction_is_not_a_leak() -> None:
    assert checks(said(("user", "I want a refund for order A-1042 please."))) == []


def test_an_identifier_nobody_gave_is_invented_but_one_the_agent_said_is_not() -> None:
    invented = said(("user", "My order is A-9999."))
    assert checks(invented) == [("invented_fact", 1)]
    echoed = said(
        ("user", "Refund please."),
        ("agent", "Is it order B-2024?"),
        ("user", "Yes, B-2024... sorry, no: A-1042."),
    )
    assert ("invented_fact", 2) not in checks(echoed)


def test_two_values_for_one_fact_contradict_unless_the_instruction_holds_both() -> None:
    fickle = said(("user", "Order A-1042."), ("agent", "OK."), ("user", "I mean A-1043."))
    assert ("contradiction", 2) in checks(fickle)
    both = SimulatedUser(
        instruction="Refund A-1042 and A-1043.", known_facts={"order_id": "A-1042"}
    )
    errors = audit_conversation(both, fickle, "simulator", False)
    assert [e.check for e in errors] == []


def test_stopping_before_any_stop_condition_is_ending_early_only_when_the_case_has_some() -> None:
    transcript = said(("user", "Refund please."), ("agent", "Order number?"))
    assert checks(transcript, ending="simulator", held=False) == [("ended_early", None)]
    assert checks(transcript, ending="max_turns", held=False) == []
    open_ended = USER.model_copy(update={"stop_when": []})
    assert audit_conversation(open_ended, transcript, "simulator", False) == []


TAU_USER = SimulatedUser(
    instruction=(
        "Your user id is mia_li_3668. You want to fly from New York to Seattle on May 20 (one"
        " way). You do not want to fly before 11am est. You want to pay with your 7447 card."
    ),
    known_facts={"user_id": "mia_li_3668", "phone": "+1 555 123 4567"},
)


def test_the_goal_told_in_the_users_own_voice_is_not_a_leak_but_read_out_it_is() -> None:
    # What a model user says on tau-bench: its request, in the first person.
    honest = said(("user", "Hi, I want to fly from New York to Seattle on May 20, one way."))
    assert audit_conversation(TAU_USER, honest, "simulator", False) == []
    read_out = said(("user", "You want to fly from New York to Seattle, they told me."))
    errors = audit_conversation(TAU_USER, read_out, "simulator", False)
    assert [(e.check, e.turn) for e in errors] == [("leaked_goal", 1)]
    # A long stretch of the brief is a leak in any voice.
    plan = SimulatedUser(
        instruction="Ask for a refund of 40 EUR first; accept 25 EUR when told the order cost that."
    )
    recited = said(
        ("user", "Ask for a refund of 40 EUR first, accept 25 EUR when told the order cost.")
    )
    errors = audit_conversation(plan, recited, "simulator", False)
    assert [(e.check, e.turn) for e in errors] == [("leaked_goal", 1)]


def test_a_fact_in_another_written_form_is_not_invented() -> None:
    honest = said(
        ("user", "I fly on May 20th, not before 11 am."),
        ("agent", "Your phone number?"),
        ("user", "It's (555) 123-4567, or 555-123-4567 if you like."),
    )
    assert audit_conversation(TAU_USER, honest, "simulator", False) == []
    invented = said(("user", "Call me on 555-123-9999 on the 21st."))
    errors = audit_conversation(TAU_USER, invented, "simulator", False)
    assert [(e.check, e.detail.split()[0]) for e in errors] == [
        ("invented_fact", "'555-123-9999'"),
        ("invented_fact", "'21st'"),
    ]


def test_two_facts_of_one_shape_or_an_id_the_agent_said_are_no_contradiction() -> None:
    two_orders = USER.model_copy(
        update={"known_facts": {"order_id": "A-1042", "previous_order": "A-0999"}}
    )
    both_facts = said(
        ("user", "Refund for A-1042, please."),
        ("agent", "Which order?"),
        ("user", "A-1042, not my earlier A-0999."),
    )
    assert audit_conversation(two_orders, both_facts, "stop_when", True) == []
    quoting_the_agent = said(
        ("user", "Refund for A-1042, please."),
        ("agent", "I see orders A-1043 and A-1042; which one?"),
        ("user", "Not A-1043: it's A-1042."),
    )
    assert checks(quoting_the_agent) == []
    # Changing its own value is still a contradiction.
    fickle = said(("user", "Order A-1042."), ("agent", "OK."), ("user", "I mean A-1043."))
    assert ("contradiction", 2) in checks(fickle)
