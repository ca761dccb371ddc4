"""Clustering: label, signature and similar inputs group findings; ids and representatives are
stable; input order changes nothing; new members after approval are flagged."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from trailcheck.loop import (
    SIMILARITY_THRESHOLD,
    Occurrence,
    cluster_occurrences,
    occurrence,
    regressed_members,
    tool_signature,
)
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Finding

REFUND = "issue_refund(amount:number,order_id:text)"


def occ(
    trace_id: str, text: str, *, label: str = "l", sig: str = REFUND, seen: int = 0
) -> Occurrence:
    return Occurrence(trace_id, label, sig, text, seen * 1_000_000_000)  # seen: seconds


POOL = [
    occ("t1", "Refund order A-1001 please", seen=5),
    occ("t2", "Please refund my order A-2002", seen=3),
    occ("t3", "refund order 1234", seen=9),
    occ("t4", "I want to reschedule my appointment to June 3", seen=1),
    occ("t5", "Refund order A-1001 please", sig="issue_refund(order_id:text)", seen=2),
    occ("t6", "Refund order A-1001 please", label="other", seen=4),
]


def test_signature_is_shape_not_values_and_collapses_runs() -> None:
    one = (
        TraceBuilder("a")
        .tool("search", {"q": "x"})
        .tool("search", {"q": "y"})
        .tool("book", {"slot": {"date": "d", "n": 2}, "tags": ["a"]})
        .build()
    )
    other = (
        TraceBuilder("b")
        .tool("search", {"q": "z"})
        .tool("book", {"tags": ["b", "c"], "slot": {"n": 5, "date": "e"}})
        .build()
    )
    assert tool_signature(one) == "search(q:text)+ > book(slot:{date:text,n:number},tags:[text])"
    assert tool_signature(one) == tool_signature(other).replace("search(q:text)", "search(q:text)+")
    assert tool_signature(TraceBuilder("c").build()) == "(no calls)"


def test_groups_by_label_signature_and_similar_inputs() -> None:
    clusters = cluster_occurrences(POOL)
    groups = {(c.label, c.member_trace_ids) for c in clusters}
    assert groups == {
        ("l", ("t1", "t2", "t3")),
        ("l", ("t4",)),
        ("l", ("t5",)),
        ("other", ("t6",)),
    }
    big = next(c for c in clusters if c.size == 3)
    assert big.representative_trace_id == "t1"  # the medoid
    assert big.first_seen_ns == 3_000_000_000
    assert big.last_seen_ns == 9_000_000_000
    assert big.members[0].seen_at == datetime.fromtimestamp(5, tz=UTC)
    assert big.cluster_id.startswith("cl-")
    assert len(big.cluster_id) == 15


def test_threshold_is_a_parameter() -> None:
    assert 0 < SIMILARITY_THRESHOLD < 1
    similar = [POOL[0], occ("t7", "Refund order A-1001, it arrived broken", seen=6)]
    assert [c.size for c in cluster_occurrences(similar)] == [2]
    assert sorted(c.size for c in cluster_occurrences(similar, threshold=0.9)) == [1, 1]


def test_id_follows_the_founder_as_the_cluster_grows() -> None:
    before = cluster_occurrences(POOL[:2])
    after = cluster_occurrences(POOL[:3])
    assert before[0].cluster_id == after[0].cluster_id
    assert after[0].size == 3


def test_new_members_after_approval_are_flagged() -> None:
    (cluster,) = cluster_occurrences(POOL[:3])
    assert regressed_members(cluster, 4_000_000_000) == ("t1", "t3")
    assert regressed_members(cluster, 10_000_000_000) == ()
    assert regressed_members(cluster, None) == ()


def test_occurrence_reads_the_trace() -> None:
    trace = TraceBuilder("t9", input="Refund A-1").tool("issue_refund", {"order_id": "A-1"}).build()
    finding = Finding(trace_id="t9", label="x", severity="low", reason="r", source="rule:x")
    read = occurrence(finding, trace)
    assert read.signature == "issue_refund(order_id:text)"
    assert read.input_text == "Refund A-1"
    assert read.seen_ns == trace.spans[0].start_ns


def test_inputs_without_words_cluster_by_equality() -> None:
    clusters = cluster_occurrences([occ("a", ""), occ("b", ""), occ("c", "!!")])
    assert sorted(c.member_trace_ids for c in clusters) == [("a", "b"), ("c",)]


@settings(max_examples=40, deadline=None)
@given(st.permutations(POOL), st.lists(st.sampled_from(POOL), max_size=4))
def test_shuffling_and_repeating_change_no_cluster(
    shuffled: list[Occurrence], repeated: list[Occurrence]
) -> None:
    assert cluster_occurrences([*shuffled, *repeated]) == cluster_occurrences(POOL)
