"""Findings, hand labels and notes: beside each other, marked by their source."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from tests.store.builders import lookup_trace, refund_trace
from trailcheck.errors import UsageError
from trailcheck.store import Store, UnknownTraceError, schema
from trailcheck.trace import Finding


def _finding(trace_id: str, label: str, reason: str = "looped 3 times") -> Finding:
    return Finding(
        trace_id=trace_id,
        label=label,
        severity="high",
        reason=reason,
        evidence=("span-001", "span-002"),
        source="rule:tool_call_loop",
    )


def test_add_findings_is_idempotent_and_refreshes_the_reason(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1"), lookup_trace("t2")])
        assert store.add_findings([_finding("t1", "tool_call_loop")]) == 1
        assert store.add_findings([_finding("t1", "tool_call_loop", "looped 4 times")]) == 0
        assert store.add_findings([_finding("t2", "tool_call_loop")]) == 1
        assert store.findings(trace_id="t1") == [_finding("t1", "tool_call_loop", "looped 4 times")]
        assert [f.trace_id for f in store.findings(label="tool_call_loop")] == ["t1", "t2"]
        with store.engine.connect() as connection:
            count = connection.scalar(select(func.count()).select_from(schema.findings))
        assert count == 2


def test_findings_on_unknown_traces_are_refused_whole(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1")])
        with pytest.raises(UnknownTraceError, match="no trace 'ghost' in the store"):
            store.add_findings([_finding("t1", "tool_call_loop"), _finding("ghost", "x")])
        assert store.findings() == []


def test_hand_label_sits_beside_the_rule_finding(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1")])
        store.add_findings([_finding("t1", "refund_without_identity_check")])
        label = store.label("t1", "refund_without_identity_check", "ana")
        assert label.source == "human:ana"
        assert "by hand by ana" in label.reason
        sources = [f.source for f in store.findings(label="refund_without_identity_check")]
        assert sources == ["rule:tool_call_loop", "human:ana"]
        # Labelling again is the same finding, not a second one.
        store.label("t1", "refund_without_identity_check", "ana")
        assert len(store.findings()) == 2


@pytest.mark.parametrize(
    ("trace_id", "label", "who", "error", "message"),
    [
        ("ghost", "tool_call_loop", "ana", UnknownTraceError, "no trace 'ghost'"),
        ("t1", "Tool Problem", "ana", UsageError, "label 'Tool Problem': field 'label'"),
        ("t1", "tool_call_loop", " ", UsageError, "needs the name of who"),
    ],
)
def test_bad_hand_labels_are_clear_errors(
    store_url: str,
    trace_id: str,
    label: str,
    who: str,
    error: type[Exception],
    message: str,
) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1")])
        with pytest.raises(error, match=message):
            store.label(trace_id, label, who)
        assert store.findings() == []


def test_notes_are_kept_in_order_per_trace(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1"), lookup_trace("t2")])
        first = store.add_note("t1", "refunded without checking identity", "ana")
        store.add_note("t2", "fine", "bo")
        store.add_note("t1", "same as #12", "bo")
        assert first.note_id > 0
        assert [n.text for n in store.notes("t1")] == [
            "refunded without checking identity",
            "same as #12",
        ]
        assert [(n.trace_id, n.author) for n in store.notes()] == [
            ("t1", "ana"),
            ("t2", "bo"),
            ("t1", "bo"),
        ]


def test_notes_need_a_known_trace_and_some_text(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([refund_trace("t1")])
        with pytest.raises(UnknownTraceError):
            store.add_note("ghost", "text", "ana")
        with pytest.raises(UsageError, match="the text is empty"):
            store.add_note("t1", "  ", "ana")
        assert store.notes() == []
