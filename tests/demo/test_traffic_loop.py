"""The demo's improvement loop: v1's traffic stored, detected, clustered and promoted."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from trailcheck.cases import load_dataset
from trailcheck.commands.demo_traffic import run_traffic_loop
from trailcheck.demo.support.traffic import TRAFFIC_MESSAGES
from trailcheck.store import Store


def test_traffic_becomes_candidates_that_wait_for_a_person(tmp_path: Path) -> None:
    loop = run_traffic_loop(tmp_path)
    assert loop.traces == len(TRAFFIC_MESSAGES) == 6
    with Store.open(f"sqlite:///{loop.store}", must_exist=True) as store:
        labels = Counter(finding.label for finding in store.findings())
        status_question = next(
            t for t in store.iter_traces() if t.input_text == "Where is my order A-1006?"
        )
        assert store.findings(trace_id=status_question.trace_id) == []
    assert labels == {"refund_without_identity_check": 3, "date_argument_mismatch": 2}
    # The two reworded reschedules and the two damaged-books refunds fold; the headphones
    # refund is another complaint in other words, so it stands alone.
    assert sorted((c.label, c.size) for c in loop.clusters) == [
        ("date_argument_mismatch", 2),
        ("refund_without_identity_check", 1),
        ("refund_without_identity_check", 2),
    ]
    written = load_dataset(loop.candidates_file)
    assert [c.id for c in written.cases] == [c.id for c in loop.candidates]
    assert all(c.review_status == "candidate" for c in written.cases)
    for case, cluster in zip(written.cases, loop.clusters, strict=True):
        assert case.failure_modes == [cluster.label]
        assert sorted(case.source_trace_ids) == sorted(cluster.member_trace_ids)


def test_a_second_demo_starts_from_an_empty_store(tmp_path: Path) -> None:
    first = run_traffic_loop(tmp_path)
    second = run_traffic_loop(tmp_path)
    assert (second.traces, second.findings) == (first.traces, first.findings) == (6, 5)
    assert len(load_dataset(second.candidates_file).cases) == len(first.candidates) == 3
