"""Retention inside the receiver: the schedule prunes at start and at each turn, as of its
clock, survives a failed prune, and stops when told; and ``serve --retention`` runs it beside
the receiver and stops it with the server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from fastapi import FastAPI
from sqlalchemy.exc import OperationalError
from typer.testing import CliRunner

from tests.store.owned_builders import DAY_NS, ORIGIN_NS, aged_trace
from tests.waiting import GUARD_S, wait_until
from trailcheck.commands import serve_impl as serve_module
from trailcheck.commands.serve import serve_command
from trailcheck.serve import TOKEN_ENV, GrpcReceiver
from trailcheck.serve.retention import RetentionSchedule
from trailcheck.store import PruneSummary, Retention, Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(f"sqlite:///{tmp_path / 'store.db'}") as opened:
        opened.ingest([aged_trace(f"day-{day}", day) for day in range(10)])
        yield opened


def _days_left(store: Store) -> list[str]:
    return sorted(row.trace_id for row in store.list_traces())


def test_each_turn_prunes_as_of_the_clock_until_stopped(store: Store) -> None:
    """Three turns at days 33, 36 and 40: each prunes what is 30 days old by then. The wait
    between turns is 0 s: the test's clock, not time, moves the schedule on."""
    now = iter(ORIGIN_NS + day * DAY_NS for day in (33, 36, 40))
    stop = threading.Event()
    summaries: list[PruneSummary] = []

    def report(summary: PruneSummary) -> None:
        summaries.append(summary)
        if len(summaries) == 3:
            stop.set()

    schedule = RetentionSchedule(
        store, Retention("30d"), every_s=0, clock=lambda: next(now), report=report
    )
    thread = threading.Thread(target=schedule.run, args=(stop,))
    thread.start()
    thread.join(GUARD_S)
    assert not thread.is_alive()
    assert [summary.deleted for summary in summaries] == [3, 3, 4]
    assert _days_left(store) == []
    assert [entry.traces for entry in store.deletions()] == [4, 3, 3]


@pytest.mark.parametrize(
    "failure",
    [
        OperationalError("DELETE", {}, Exception("the database went away")),
        ValueError("a stored case no longer reads"),  # not the database's: tried again too
    ],
    ids=["database", "other"],
)
def test_a_failed_prune_is_logged_and_tried_again(
    store: Store,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    failure: Exception,
) -> None:
    real_prune = store.prune
    calls: list[int] = []

    def flaky_prune(*args: object, **kwargs: object) -> PruneSummary:
        calls.append(1)
        if len(calls) == 1:
            raise failure
        return real_prune(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "prune", flaky_prune)
    stop = threading.Event()
    reported: list[PruneSummary] = []

    def report(summary: PruneSummary) -> None:
        reported.append(summary)
        stop.set()

    clock = lambda: ORIGIN_NS + 40 * DAY_NS  # noqa: E731
    schedule = RetentionSchedule(store, Retention("30d"), every_s=0, clock=clock, report=report)
    schedule.run(stop)
    assert len(calls) == 2
    assert [summary.deleted for summary in reported] == [10]
    assert "retention: the prune failed" in caplog.text


def test_stopping_stops_a_prune_between_batches(store: Store) -> None:
    stop = threading.Event()
    stop.set()
    summary = RetentionSchedule(store, Retention("1d")).prune_once(stop)
    assert (summary.stopped, summary.deleted) == (True, 0)
    assert len(_days_left(store)) == 10


def _cli() -> typer.Typer:
    app = typer.Typer()
    app.command("serve")(serve_command)
    app.command("other")(lambda: None)  # two commands, so "serve" is a subcommand as in cli.py
    return app


def test_serve_with_retention_prunes_beside_the_receiver_and_stops_with_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The builder's traces started in 2023: a day's retention prunes them all at start."""
    db = f"sqlite:///{tmp_path / 'serve.db'}"
    with Store.open(db) as seeded:
        seeded.ingest([aged_trace(f"day-{day}", day) for day in range(3)])
    seen: list[int] = []

    def serve_while_the_prune_runs(
        app: FastAPI, *, host: str, port: int, token: str | None, grpc: GrpcReceiver | None
    ) -> None:
        assert grpc is None
        served = app.state.intake.store
        wait_until(lambda: served.deletions(), "the first prune")
        seen.append(len(served.list_traces()))

    monkeypatch.setattr(serve_module, "serve_forever", serve_while_the_prune_runs)
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    args = ["serve", "--db", db, "--retention", "1d", "--no-grpc", "--port", "0"]
    result = CliRunner().invoke(_cli(), args)
    assert result.exit_code == 0, result.output
    assert "pruning traces older than 1d every 3600 s" in result.output
    assert "retention: deleted 3 trace(s) started before" in result.output
    assert seen == [0]
    assert not any(thread.name == "retention" for thread in threading.enumerate())


def test_serve_refuses_a_bad_retention_before_opening_anything(tmp_path: Path) -> None:
    db = tmp_path / "never.db"
    result = CliRunner().invoke(_cli(), ["serve", "--db", f"sqlite:///{db}", "--retention", "30"])
    assert result.exit_code != 0
    assert "a whole number above 0 and a unit" in str(result.exception)
    assert not db.exists()
