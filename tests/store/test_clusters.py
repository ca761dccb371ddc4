"""Clusters: replaced label by label; a persisting cluster keeps its promoted case."""

from __future__ import annotations

import pytest

from trailcheck.errors import UsageError
from trailcheck.store import ClusterRecord, Store


def _cluster(
    cluster_id: str, members: tuple[str, ...], label: str = "tool_call_loop"
) -> ClusterRecord:
    return ClusterRecord(
        cluster_id=cluster_id,
        label=label,
        signature="lookup_order>lookup_order|order_id",
        representative_trace_id=members[0],
        member_trace_ids=members,
        first_seen_ns=10,
        last_seen_ns=20,
    )


def test_saving_replaces_the_label_and_keeps_case_links(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.save_clusters(
            "tool_call_loop", [_cluster("c1", ("t1", "t2")), _cluster("c2", ("t3",))]
        )
        store.save_clusters("no_final_answer", [_cluster("c9", ("t5",), "no_final_answer")])
        store.link_cluster_case("c1", "case-loop-1", 99)
        # Re-clustering: c1 persists with a new member, c2 is gone, c3 is new.
        store.save_clusters(
            "tool_call_loop", [_cluster("c1", ("t1", "t2", "t7")), _cluster("c3", ("t4",))]
        )
        loops = store.clusters("tool_call_loop")
        assert [(c.cluster_id, c.member_trace_ids) for c in loops] == [
            ("c1", ("t1", "t2", "t7")),
            ("c3", ("t4",)),
        ]
        assert (loops[0].case_id, loops[0].approved_ns, loops[0].size) == ("case-loop-1", 99, 3)
        assert loops[1].case_id is None
        # Other labels are untouched.
        assert [c.cluster_id for c in store.clusters()] == ["c9", "c1", "c3"]
        store.save_clusters("tool_call_loop", [])
        assert [c.cluster_id for c in store.clusters()] == ["c9"]


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([_cluster("c1", ("t1",), "no_final_answer")], "takes only clusters of that label"),
        ([_cluster("c1", ("t1",)), _cluster("c1", ("t2",))], "given twice"),
        (
            [ClusterRecord("c1", "tool_call_loop", "s", "t9", ("t1",), 1, 2)],
            "representative 't9' is not one of its members",
        ),
    ],
)
def test_inconsistent_clusterings_are_refused_and_change_nothing(
    store_url: str, records: list[ClusterRecord], message: str
) -> None:
    with Store.open(store_url) as store:
        store.save_clusters("tool_call_loop", [_cluster("c0", ("t0",))])
        with pytest.raises(UsageError, match=message):
            store.save_clusters("tool_call_loop", records)
        assert [c.cluster_id for c in store.clusters()] == ["c0"]


def test_linking_an_unknown_cluster_is_an_error(store_url: str) -> None:
    with Store.open(store_url) as store, pytest.raises(UsageError, match="no cluster 'c1'"):
        store.link_cluster_case("c1", "case", 1)
