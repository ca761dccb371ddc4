"""Retention: a prune deletes exactly the traces past the age that nothing holds, with every row
they own, a batch per transaction, says what it kept and why, logs what went, and changes
nothing when dry; ingest goes on beside it."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from sqlalchemy.exc import OperationalError

from tests.store.owned_builders import (
    DAY_NS,
    ORIGIN_NS,
    add_dependents,
    add_judge_label,
    add_trial,
    aged_trace,
    case,
    dataset,
    lease_job,
    link_case_cluster,
    owned_rows_of,
    rows_per_table,
)
from tests.waiting import GUARD_S
from trailcheck.errors import UsageError
from trailcheck.store import Holds, PruneSummary, Retention, Store, parse_age
from trailcheck.store.holds import held_traces
from trailcheck.trace import Finding

# "Now" is 40 days after the origin: traces of days 0 to 9 are past 30 days, those of day 35
# are not.
NOW_NS = ORIGIN_NS + 40 * DAY_NS
THIRTY_DAYS = Retention("30d")

# Past the age, and what holds each (or nothing).
HELD = {
    "cited": "cited_by_case",  # a candidate case of the stored dataset's latest version
    "approved": "cited_by_case",  # an approved one
    "clustered": "cited_by_case",  # a member of a cluster a case was promoted from
    "from-file": "cited_by_case",  # cited by a dataset file the prune was given
    "trial": "referenced_by_run",  # a stored run's trial
    "reported": "referenced_by_run",  # a run report file the prune was given
    "noted": "noted",
    "labelled": "labelled",  # a human: finding
    "calibrated": "labelled",  # a judge calibration label
    "leased": "being_scored",
}
# Past the age and held by nothing: a rule's finding, a rejected case, a case of an older
# version, and a due online job hold nothing.
UNHELD = ["old-0", "old-1", "old-2", "ruled", "rejected", "superseded", "due"]
RECENT = ["new-0", "new-1", "noted-new"]


def _populate(store: Store) -> None:
    old = [*HELD, *UNHELD]
    store.ingest([aged_trace(trace_id, day % 10) for day, trace_id in enumerate(old)])
    store.ingest([aged_trace(trace_id, 35) for trace_id in RECENT])
    for trace_id in [*old, *RECENT]:
        add_dependents(store, trace_id)
    store.save_dataset(dataset("shop", [case("c1", ["superseded"])]))
    store.save_dataset(
        dataset(
            "shop",
            [
                case("c1", ["cited"]),
                case("c2", ["approved"], "approved"),
                case("c3", ["rejected"], "rejected"),
            ],
        )
    )
    link_case_cluster(store, ["clustered"])
    add_trial(store, "trial")
    store.add_note("noted", "refunded twice", "ana")
    store.add_note("noted-new", "fine", "ana")
    store.label("labelled", "double_refund", "ana")
    store.add_findings(
        [Finding(trace_id="ruled", label="x", severity="low", reason="r", source="rule:x")]
    )
    add_judge_label(store, "calibrated")
    lease_job(store, "leased")
    with store.engine.begin() as connection:  # a due job: not being scored yet
        connection.exec_driver_sql("UPDATE online_jobs SET state = 'due' WHERE trace_id = 'due'")


def _holds() -> Holds:
    return Holds(cited=frozenset({"from-file"}), referenced=frozenset({"reported"}))


def test_a_prune_deletes_exactly_the_unheld_traces_past_the_age(store_url: str) -> None:
    with Store.open(store_url) as store:
        _populate(store)
        before = rows_per_table(store.engine)
        owned = owned_rows_of(store.engine, UNHELD)
        summary = store.prune(Retention("30d", _holds()), now_ns=NOW_NS, batch_size=4)
        after = rows_per_table(store.engine)
        remaining = {row.trace_id for row in store.list_traces()}
        assert owned_rows_of(store.engine, UNHELD) == Counter()
    assert remaining == {*HELD, *RECENT}
    assert summary.deleted == len(UNHELD)
    assert summary.kept == dict(Counter(HELD.values()))
    assert summary.cutoff_ns == NOW_NS - 30 * DAY_NS
    assert summary.batches == 5  # 17 past the age, 4 a batch
    # Every row the unheld traces owned went, and nothing else: table by table.
    emptied = {"clusters": len(UNHELD)}  # each had a cluster of its own, without a case
    assert summary.rows == dict(owned) | emptied
    expected = Counter(before)
    expected.subtract(owned + Counter(emptied))
    expected["deletions"] += 1
    assert after == dict(expected)


def test_a_dry_run_reports_the_same_and_changes_nothing(store_url: str) -> None:
    with Store.open(store_url) as store:
        _populate(store)
        before = rows_per_table(store.engine)
        dry = store.prune(Retention("30d", _holds()), now_ns=NOW_NS, batch_size=4, dry_run=True)
        assert rows_per_table(store.engine) == before
        assert store.deletions() == []
        done = store.prune(Retention("30d", _holds()), now_ns=NOW_NS, batch_size=4)
    assert (dry.deleted, dry.rows, dry.kept, dry.batches) == (
        done.deleted,
        done.rows,
        done.kept,
        done.batches,
    )
    assert (dry.dry_run, dry.deletion_id, done.dry_run) == (True, None, False)


def test_labelled_and_noted_traces_go_only_when_asked(store_url: str) -> None:
    with Store.open(store_url) as store:
        _populate(store)
        retention = Retention("30d", Holds(keep_labelled=False))
        summary = store.prune(retention, now_ns=NOW_NS)
        remaining = {row.trace_id for row in store.list_traces()}
        [logged] = store.deletions()
        notes = store.notes()
    gone = {"noted", "labelled", "calibrated", "from-file", "reported"}
    assert remaining == ({*HELD, *RECENT} - gone)
    assert "noted" not in summary.kept
    assert "labelled" not in summary.kept
    assert [note.trace_id for note in notes] == ["noted-new"]  # the recent trace's note stays
    assert logged.selector == "older_than 30d, labelled pruned"


def test_the_log_says_what_went_never_what_it_held(store_url: str) -> None:
    with Store.open(store_url) as store:
        _populate(store)
        summary = store.prune(Retention("30d", _holds()), now_ns=NOW_NS, batch_size=4)
        [logged] = store.deletions()
        assert store.prune(Retention("30d", _holds()), now_ns=NOW_NS).deleted == 0
        assert len(store.deletions()) == 1  # a prune that deleted nothing logs nothing
    assert logged.deletion_id == summary.deletion_id
    assert (logged.action, logged.selector, logged.selector_digest) == (
        "prune",
        "older_than 30d",
        None,
    )
    assert (logged.traces, logged.rows, logged.kept) == (
        summary.deleted,
        summary.rows,
        summary.kept,
    )
    assert logged.started_ns == NOW_NS
    assert "hello" not in repr(logged)


def test_a_prune_asked_to_stop_stops_between_batches(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.ingest([aged_trace(f"t{n}", 0) for n in range(10)])
        asked: list[int] = []

        def stop() -> bool:
            asked.append(1)
            return len(asked) > 2  # two batches, then stop

        summary = store.prune(THIRTY_DAYS, now_ns=NOW_NS, batch_size=3, stop=stop)
        assert (summary.deleted, summary.batches, summary.stopped) == (6, 2, True)
        assert len(store.list_traces()) == 4
        [logged] = store.deletions()
        assert logged.traces == 6


def test_ingest_goes_on_beside_a_prune_in_batches(store_url: str) -> None:
    """A writer ingests new traces flat out while a prune deletes the old ones in small
    batches: it never fails, and the prune deletes exactly the old ones. The prune's first
    batch waits until the writer has stored a trace since the prune began, so they overlap."""
    with Store.open(store_url) as store:
        store.ingest([aged_trace(f"old-{n}", n % 10) for n in range(300)])
    prune_began, prune_done, wrote_beside = threading.Event(), threading.Event(), threading.Event()
    written: list[str] = []
    errors: list[BaseException] = []

    def write() -> None:
        try:
            with Store.open(store_url) as writer:
                n = 0
                while not prune_done.is_set():
                    summary = writer.ingest([aged_trace(f"new-{n}", 39)])
                    assert summary.stored == 1
                    written.append(f"new-{n}")
                    if prune_began.is_set():
                        wrote_beside.set()
                    n += 1
        except Exception as error:  # noqa: BLE001 - whatever the writer met is the finding
            errors.append(error)
            wrote_beside.set()

    def stop() -> bool:
        prune_began.set()
        assert wrote_beside.wait(GUARD_S), "hung: the writer stored nothing beside the prune"
        return False

    writer = threading.Thread(target=write)
    writer.start()
    try:
        with Store.open(store_url) as store:
            summary = store.prune(THIRTY_DAYS, now_ns=NOW_NS, batch_size=20, stop=stop)
    finally:
        prune_done.set()
        writer.join(GUARD_S)
    assert errors == []
    assert summary.deleted == 300
    assert summary.batches == 15
    with Store.open(store_url) as store:
        assert sorted(row.trace_id for row in store.list_traces()) == sorted(written)
    assert written


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30d", 30 * 86_400), ("12h", 43_200), ("90m", 5_400), ("2w", 1_209_600), ("45s", 45)],
)
def test_ages_read_as_a_number_and_a_unit(text: str, seconds: int) -> None:
    assert parse_age(text) == seconds * 10**9


@pytest.mark.parametrize("text", ["30", "d", "0d", "-1d", "1.5d", "30 days", "1y"])
def test_an_age_without_a_unit_or_above_zero_is_refused(text: str) -> None:
    with pytest.raises(UsageError, match="a whole number above 0 and a unit"):
        parse_age(text)


def test_a_summary_counts_kept_traces_in_all() -> None:
    summary = PruneSummary(cutoff_ns=0, dry_run=False, kept={"noted": 2, "labelled": 1})
    assert summary.kept_total == 3


@pytest.mark.parametrize("store_url", ["postgresql"], indirect=True)
def test_a_note_added_after_the_look_waits_for_the_prune_instead_of_going_with_it(
    store_url: str,
) -> None:
    # Between a batch's look at the holds and its delete, a note added to one of its traces
    # would be deleted with it by the cascade, unseen; the batch locks its traces first, so a
    # note (whose key check shares the trace's row) waits for it.
    with Store.open(store_url) as store:
        store.ingest([aged_trace("old-0", 0)])
        with store.engine.begin() as prune:
            assert held_traces(prune, ["old-0"], _holds()) == {}
            with store.engine.connect() as writer, pytest.raises(OperationalError):
                writer.exec_driver_sql(
                    "SELECT trace_id FROM traces WHERE trace_id = 'old-0' FOR KEY SHARE NOWAIT"
                )
        with store.engine.connect() as writer:  # the prune's transaction ended: free again
            found = writer.exec_driver_sql(
                "SELECT trace_id FROM traces WHERE trace_id = 'old-0' FOR KEY SHARE NOWAIT"
            )
            assert found.scalars().all() == ["old-0"]
