"""Simulated users on the web UI's trace page: each turn said by a simulator is marked as a
"simulated user" turn with its message, and the conversation is laid out with the agent's
answers; on both store backends, and with hostile text shown as text."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.ui.conftest import Seeded
from tests.ui.markup import Texts
from trailcheck.cases import Dataset
from trailcheck.demo.conversation import conversation_dataset, scripted_users, v2_agent
from trailcheck.demo.support import prompt_only_shop
from trailcheck.run.plan import RunOptions
from trailcheck.run.runner import run
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Span, Trace
from trailcheck.ui.conversation_view import conversation_section, turn_note

HOSTILE = '<script>alert("turn")</script>'


def _conversation() -> Trace:
    """v2's trace of the wrong-amount case: four simulated turns, each answered."""
    [case] = [c for c in conversation_dataset().cases if c.id == "wrong-amount-first"]
    result = run(
        Dataset(name="one", cases=[case]),
        v2_agent,
        prompt_only_shop,
        options=RunOptions(k=1),
        user_simulator=scripted_users(),
    )
    return result.traces[0]


def test_the_trace_page_marks_simulated_turns_and_lays_out_the_conversation(
    client: TestClient, seeded: Seeded
) -> None:
    trace = _conversation()
    seeded.store.ingest([trace])
    page = Texts(client.get(f"/traces/{trace.trace_id}").text)
    marked = page.texts["simulated-turn"]
    assert len(marked) == 4
    assert marked[1] == "simulated user It's A-1007."
    turns = page.texts["conversation-turn"]
    speakers = ["simulated user" if t.startswith("simulated user") else t[:5] for t in turns]
    assert speakers == ["simulated user", "agent"] * 4
    assert "My card ends in 5150." in turns[4]
    assert "The Overstory cost $18.00 on order A-1007" in turns[5]
    assert turns[-1].startswith("agent")
    assert "$18.00" in turns[-1]


def test_a_plain_trace_has_no_conversation_and_a_hostile_turn_is_text() -> None:
    plain = TraceBuilder("t1", input="Refund A-1").tool("lookup_order", {"order_id": "A-1"}).build()
    assert conversation_section(plain) is None
    assert all(turn_note(span) is None for span in plain.spans)
    span = Span(
        trace_id="t2",
        span_id="s1",
        name="trailcheck.user_turn",
        start_ns=1,
        end_ns=1,
        attributes={
            "trailcheck.user.simulated": "true",  # as a store that made it text keeps it
            "trailcheck.user.message": HOSTILE,
            "trailcheck.user.replayed": True,
        },
    )
    said = Trace(trace_id="t2", input="hi", spans=[span])
    note = turn_note(span)
    section = conversation_section(said)
    assert note is not None
    assert section is not None
    assert "simulated user (replayed)" in note
    for markup in (note, section):
        assert "<script>" not in markup
        assert "&lt;script&gt;" in markup
