"""Deletion on request: every row of a session's, a user's or a trace's traces deleted, nothing
else, whatever held them; the cases citing them reported; the deletion logged without the id."""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

from tests.store.owned_builders import (
    add_dependents,
    add_judge_label,
    aged_trace,
    case,
    dataset,
    lease_job,
    owned_rows_of,
    rows_per_table,
)
from trailcheck.store import Erasure, Store
from trailcheck.trace import Trace

OTHERS = ["other-session", "lone", "mentions-alice", "bob", "alice-ish"]


def _with_attribute(trace: Trace, key: str, value: Any) -> Trace:
    """``trace`` with ``key: value`` among the attributes of its last span."""
    document = trace.model_dump(mode="json")
    document["spans"][-1]["attributes"] = {key: value}
    return Trace.model_validate(document)


def _traffic() -> list[Trace]:
    return [
        aged_trace("a1", 0, conversation_id="conv-A", user_id="alice"),
        aged_trace("a2", 1, conversation_id="conv-A"),
        aged_trace("other-session", 1, conversation_id="conv-B"),
        aged_trace("lone", 2),
        # alice by a span attribute and by the resource; 42 as an integer.
        _with_attribute(aged_trace("span-alice", 3), "user.id", "alice"),
        aged_trace("resource-alice", 3, **{"otel.resource": {"enduser.id": "alice"}}),
        _with_attribute(aged_trace("number", 3), "enduser.id", 42),
        # Not alice: her name in the text, or under a key that names no user, or another id.
        aged_trace("mentions-alice", 4, note="alice"),
        aged_trace("bob", 4, user_id="bob"),
        aged_trace("alice-ish", 4, user_id="alice2"),
        aged_trace("tenant", 5, tenant="acme-7"),
    ]


def _populate(store: Store) -> None:
    traffic = _traffic()
    store.ingest(traffic)
    for trace in traffic:
        add_dependents(store, trace.trace_id)
        store.add_note(trace.trace_id, "seen", "ana")
        store.label(trace.trace_id, "checked", "ana")
    add_judge_label(store, "a1")
    lease_job(store, "a2")
    store.save_dataset(dataset("shop", [case("c1", ["a1", "lone"]), case("c2", ["bob"])]))


def _erase_and_count(
    store_url: str, erasure: Erasure, expected: set[str]
) -> tuple[Counter[str], dict[str, int], dict[str, int]]:
    with Store.open(store_url) as store:
        _populate(store)
        before = rows_per_table(store.engine)
        owned = owned_rows_of(store.engine, expected)
        summary = store.erase(erasure)
        after = rows_per_table(store.engine)
        assert owned_rows_of(store.engine, expected) == Counter()
        assert set(summary.trace_ids) == expected
        assert summary.traces == len(expected)
    return owned, before, after


def _unchanged_but(before: dict[str, int], owned: Counter[str], clusters: int) -> dict[str, int]:
    """``before`` less the rows ``owned`` and the clusters emptied, with one more log row."""
    expected = Counter(before)
    expected.subtract(owned + Counter({"clusters": clusters}))
    expected["deletions"] += 1
    return dict(expected)


def test_deleting_a_session_removes_its_rows_and_nothing_else(store_url: str) -> None:
    owned, before, after = _erase_and_count(store_url, Erasure("session", "conv-A"), {"a1", "a2"})
    # Spans, findings (rule and human), notes, judge label, online rows (the leased job too),
    # memberships, pending rows, conflicts, quarantine and rejection rows: all of them.
    assert owned["judge_labels"] == 1
    assert owned["online_jobs"] == 3
    assert owned["notes"] == 2
    assert after == _unchanged_but(before, owned, clusters=2)


def test_deleting_a_user_finds_them_in_metadata_resource_and_span_attributes(
    store_url: str,
) -> None:
    alice = {"a1", "span-alice", "resource-alice"}
    owned, before, after = _erase_and_count(store_url, Erasure("user", "alice"), alice)
    assert after == _unchanged_but(before, owned, clusters=3)


def test_a_user_id_matches_an_integer_and_a_configured_key(store_url: str) -> None:
    _erase_and_count(store_url, Erasure("user", "42"), {"number"})


def test_a_configured_user_key_replaces_the_default_ones(store_url: str) -> None:
    _erase_and_count(store_url, Erasure("user", "acme-7", user_keys=("tenant",)), {"tenant"})


def test_deleting_a_trace_takes_what_the_endpoint_holds_under_its_id(store_url: str) -> None:
    owned, before, after = _erase_and_count(store_url, Erasure("trace", "lone"), {"lone"})
    assert owned["pending_spans"] == owned["span_conflicts"] == 1
    assert after == _unchanged_but(before, owned, clusters=1)
    with Store.open(store_url) as store:  # an id nothing is stored under matches nothing
        nothing = store.erase(Erasure("trace", "never-seen"))
        assert (nothing.trace_ids, nothing.rows, nothing.deletion_id) == ([], {}, None)
        assert len(store.deletions()) == 1


def test_a_dry_run_counts_the_same_and_changes_nothing(store_url: str) -> None:
    with Store.open(store_url) as store:
        _populate(store)
        before = rows_per_table(store.engine)
        dry = store.erase(Erasure("user", "alice"), dry_run=True)
        assert rows_per_table(store.engine) == before
        assert store.deletions() == []
        done = store.erase(Erasure("user", "alice"))
    assert (sorted(dry.trace_ids), dry.rows) == (sorted(done.trace_ids), done.rows)
    assert (dry.deletion_id, done.deletion_id is not None) == (None, True)


def test_the_citing_cases_are_reported_and_the_log_keeps_no_id(store_url: str) -> None:
    with Store.open(store_url) as store:
        _populate(store)
        summary = store.erase(Erasure("session", "conv-A"))
        [logged] = store.deletions()
        [kept] = store.dataset_cases("shop", store.dataset_versions("shop")[-1])[:1]
    assert [(c.dataset, c.case_id) for c in summary.cited_by] == [("shop", "c1")]
    assert kept.source_trace_ids == ["a1", "lone"]  # the case keeps its copy and its sources
    assert (logged.action, logged.selector) == ("delete", "session")
    assert logged.selector_digest == hashlib.sha256(b"conv-A").hexdigest()
    assert logged.cited_by == [summary.cited_by[0].named]
    assert (logged.traces, logged.rows) == (2, summary.rows)
    assert "conv-A" not in repr(logged)
