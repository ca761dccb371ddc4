"""The online worker on SQLite and PostgreSQL: it scores exactly the sample the rule chooses,
once; a restart resumes from the store; workers sharing a store never score a trace twice; a
failing judge is retried, then counted as failed; a crashing evaluator quarantines its trace
and the queue goes on; a trace whose seq committed late is still scored."""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import delete, func, insert, select

from trailcheck.judge import JudgeItem
from trailcheck.online import Evaluator, OnlineConfig, is_sampled
from trailcheck.online import worker as worker_module
from trailcheck.online.evaluate import JudgeResult, evaluate_deterministic
from trailcheck.online.planning import MAX_HOLE_GAP
from trailcheck.online.queue import claim
from trailcheck.online.worker import JudgeBudget, OnlineWorker, WorkerSettings
from trailcheck.rate_limit import Backoff
from trailcheck.scorers import Attribution
from trailcheck.store import Store, schema
from trailcheck.testing import FakeJudge, FakeOutcome, TraceBuilder
from trailcheck.trace import Trace

SECOND = 10**9


def trace_id(number: int) -> str:
    """A W3C trace id as a tracer makes one: random-looking (here, a digest of the number)."""
    return hashlib.sha256(str(number).encode()).hexdigest()[:32]


def support_trace(number: int, *, verified: bool) -> Trace:
    """A refund, with or without the identity check before it."""
    builder = TraceBuilder(trace_id(number), input=f"Refund order A-{number}")
    if verified:
        builder = builder.tool("verify_identity", {"customer": "c-1"}, result={"ok": True})
    return (
        builder.tool("issue_refund", {"order_id": f"A-{number}"}, result={"refunded": True})
        .output("Refunded.")
        .build()
    )


def traffic(count: int, start: int = 0) -> list[Trace]:
    return [support_trace(n, verified=n % 3 != 0) for n in range(start, start + count)]


class Clock:
    """Real time plus an offset the test moves: the store stamps ingestion with real time."""

    def __init__(self) -> None:
        self._now = time.time_ns
        self.offset = 0

    def __call__(self) -> int:
        return self._now() + self.offset


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with Store.open(store_url) as opened:
        yield opened


def rule_evaluator(sampling: float, *, name: str = "refund-policy", delay: str = "0s") -> Evaluator:
    return Evaluator(
        name=name, rule="refund_without_identity_check", sampling=sampling, delay=delay
    )


def judge_evaluator(sampling: float) -> Evaluator:
    return Evaluator.model_validate(
        {"name": "completion", "judge": "task_completion", "sampling": sampling}
    )


def runner_of(judge: FakeJudge) -> Any:
    async def run(evaluator: Evaluator, trace: Trace) -> JudgeResult:
        item = JudgeItem(item_id=trace.trace_id, trace=trace, criterion="the request was met")
        return JudgeResult(await judge.judge(item), model="fake-judge", input_tokens=100)

    return run


def scores(store: Store, name: str) -> dict[str, bool]:
    table = schema.online_scores
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(table.c.trace_id, table.c.passed).where(table.c.name == name)
        ).all()
    return {trace_id: passed for trace_id, passed in rows}


def executions(store: Store, name: str) -> list[tuple[str, str]]:
    table = schema.online_executions
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(table.c.trace_id, table.c.outcome)
            .where(table.c.name == name)
            .order_by(table.c.id)
        ).all()
    return [(trace_id, outcome) for trace_id, outcome in rows]


def job_states(store: Store) -> dict[str, str]:
    table = schema.online_jobs
    with store.engine.connect() as connection:
        rows = connection.execute(select(table.c.trace_id, table.c.state)).all()
    return {trace_id: state for trace_id, state in rows}


def test_scores_exactly_the_sample_once_and_a_rerun_scores_nothing_twice(store: Store) -> None:
    store.ingest(traffic(300))
    worker = OnlineWorker(store, OnlineConfig(evaluators=[rule_evaluator(0.25)]))

    first = worker.run_once()

    expected = {t.trace_id for t in traffic(300) if is_sampled(t.trace_id, 0.25)}
    scored = scores(store, "refund-policy")
    assert set(scored) == expected
    assert 40 < len(expected) < 110  # the rule chose about a quarter
    unverified = {trace_id(n) for n in range(0, 300, 3)}
    assert {t for t, passed in scored.items() if not passed} == expected & unverified
    assert first.planned == 300
    assert first.scored == len(expected)

    again = worker.run_once()
    assert again.planned == 0
    assert again.executed == 0
    assert len(executions(store, "refund-policy")) == len(expected)

    store.ingest(traffic(100, start=300))
    later = worker.run_once()
    new = {t.trace_id for t in traffic(100, start=300) if is_sampled(t.trace_id, 0.25)}
    assert later.planned == 100
    assert later.scored == len(new)
    assert set(scores(store, "refund-policy")) == expected | new


def test_a_failure_is_a_finding_that_names_the_evaluator_version(store: Store) -> None:
    store.ingest(traffic(3))
    evaluator = rule_evaluator(1.0)
    OnlineWorker(store, OnlineConfig(evaluators=[evaluator])).run_once()

    online = [f for f in store.findings() if f.source.startswith("online:")]
    assert [(f.trace_id, f.label) for f in online] == [
        (trace_id(0), "refund_without_identity_check")
    ]
    assert online[0].source == f"online:refund-policy@{evaluator.version}"


def test_the_judges_sample_lies_inside_the_rules_sample(store: Store) -> None:
    store.ingest(traffic(400))
    judge = FakeJudge(lambda item: "pass")
    config = OnlineConfig(evaluators=[rule_evaluator(0.25), judge_evaluator(0.05)])

    OnlineWorker(store, config, judge=runner_of(judge)).run_once()

    judged, ruled = scores(store, "completion"), scores(store, "refund-policy")
    assert judged
    assert set(judged) < set(ruled)
    assert set(judged) == {t.trace_id for t in traffic(400) if is_sampled(t.trace_id, 0.05)}


def test_a_delay_holds_a_trace_until_it_has_been_quiet_that_long(store: Store) -> None:
    clock = Clock()
    store.ingest(traffic(30))
    worker = OnlineWorker(
        store, OnlineConfig(evaluators=[rule_evaluator(1.0, delay="5m")]), clock=clock
    )

    assert worker.run_once().scored == 0
    assert set(job_states(store).values()) == {"due"}

    clock.offset = 5 * 60 * SECOND
    assert worker.run_once().scored == 30


def test_a_restarted_worker_takes_over_an_expired_lease_and_the_old_one_writes_no_score(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    store.ingest(traffic(10))
    config = OnlineConfig(evaluators=[rule_evaluator(1.0)])
    settings = WorkerSettings(worker_id="a", lease_s=60)
    dead = OnlineWorker(store, config, settings=settings, clock=clock)
    dead.plan()
    evaluator = config.evaluators[0]
    # Worker a leases every job, then dies before finishing any.
    leased = claim(
        store.engine,
        "a",
        [(evaluator.name, evaluator.version)],
        clock(),
        lease_ns=60 * SECOND,
        limit=100,
    )
    assert len(leased) == 10

    fresh = OnlineWorker(store, config, settings=WorkerSettings(worker_id="b"), clock=clock)
    assert fresh.run_once().executed == 0  # the leases still hold

    clock.offset = 61 * SECOND
    assert fresh.run_once().scored == 10
    assert len(scores(store, "refund-policy")) == 10

    # Worker a comes back and finishes a job it no longer holds: recorded, not scored again.
    assert asyncio.run(dead._run_jobs(leased[:1])).lost_lease == 1
    outcomes = [outcome for _, outcome in executions(store, "refund-policy")]
    assert outcomes.count("lost_lease") == 1
    assert len(outcomes) == 11
    assert len(scores(store, "refund-policy")) == 10


def test_workers_sharing_a_store_never_score_a_trace_twice(store: Store) -> None:
    store.ingest(traffic(400))
    config = OnlineConfig(evaluators=[rule_evaluator(1.0), rule_evaluator(0.5, name="half")])
    workers = [
        OnlineWorker(store, config, settings=WorkerSettings(worker_id=f"w{n}", batch=25))
        for n in range(3)
    ]
    start = threading.Barrier(len(workers))
    done: list[int] = []

    def work(worker: OnlineWorker) -> None:
        start.wait()
        done.append(worker.run_once().scored)

    threads = [threading.Thread(target=work, args=(worker,)) for worker in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    half = {t.trace_id for t in traffic(400) if is_sampled(t.trace_id, 0.5)}
    assert sum(done) == 400 + len(half)
    assert len(scores(store, "refund-policy")) == 400
    assert set(scores(store, "half")) == half
    for name in ("refund-policy", "half"):
        ran = [trace_id for trace_id, _ in executions(store, name)]
        assert len(ran) == len(set(ran))  # each trace executed once: no overlap


def test_a_failing_judge_is_retried_then_counted_as_failed(store: Store) -> None:
    clock = Clock()
    store.ingest(traffic(2))
    always = FakeJudge(lambda item: "unscorable")
    config = OnlineConfig(evaluators=[judge_evaluator(1.0)])
    settings = WorkerSettings(max_attempts=3, backoff=Backoff(initial_s=10, jitter=0))
    worker = OnlineWorker(store, config, judge=runner_of(always), settings=settings, clock=clock)

    assert worker.run_once().retried == 2
    assert worker.run_once().executed == 0  # backing off
    clock.offset = 10 * SECOND
    assert worker.run_once().retried == 2
    clock.offset = 30 * SECOND
    assert worker.run_once().gave_up == 2

    assert set(job_states(store).values()) == {"failed"}
    assert scores(store, "completion") == {}
    outcomes = [outcome for _, outcome in executions(store, "completion")]
    assert sorted(outcomes) == ["gave_up"] * 2 + ["retry"] * 4


def test_a_judge_that_recovers_is_scored_after_its_retry(store: Store) -> None:
    clock = Clock()
    store.ingest(traffic(1))
    steps: Iterator[FakeOutcome] = iter(["unscorable", "fail"])
    flaky = FakeJudge(lambda item: next(steps))
    settings = WorkerSettings(backoff=Backoff(initial_s=1, jitter=0))
    config = OnlineConfig(evaluators=[judge_evaluator(1.0)])
    worker = OnlineWorker(store, config, judge=runner_of(flaky), settings=settings, clock=clock)

    worker.run_once()
    clock.offset = SECOND
    assert worker.run_once().failed == 1
    assert scores(store, "completion") == {trace_id(0): False}


def test_a_judge_that_raises_is_retried_with_the_error_recorded(store: Store) -> None:
    store.ingest(traffic(1))

    async def broken(evaluator: Evaluator, trace: Trace) -> JudgeResult:
        raise ConnectionError("judge endpoint refused the connection")

    config = OnlineConfig(evaluators=[judge_evaluator(1.0)])
    OnlineWorker(store, config, judge=broken).run_once()

    table = schema.online_executions
    with store.engine.connect() as connection:
        error = connection.execute(select(table.c.error)).scalar_one()
    assert "ConnectionError: judge endpoint refused the connection" in error


def test_the_judges_budget_defers_jobs_without_spending_attempts(store: Store) -> None:
    clock = Clock()
    store.ingest(traffic(5))
    judge = FakeJudge(lambda item: "pass")
    settings = WorkerSettings(budget=JudgeBudget(calls=2))
    config = OnlineConfig(evaluators=[judge_evaluator(1.0)])
    worker = OnlineWorker(store, config, judge=runner_of(judge), settings=settings, clock=clock)

    first = worker.run_once()
    assert first.scored == 2
    assert first.deferred == 3
    table = schema.online_jobs
    with store.engine.connect() as connection:
        waiting = (
            connection.execute(select(table.c.attempts).where(table.c.state == "due"))
            .scalars()
            .all()
        )
    assert waiting == [0, 0, 0]

    clock.offset = 3_601 * SECOND  # the hour's calls aged out
    assert worker.run_once().scored == 2


def test_a_crashing_evaluator_quarantines_its_trace_and_the_queue_goes_on(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.ingest(traffic(6))
    real = evaluate_deterministic
    poisoned = trace_id(4)

    def crash_on_one(evaluator: Evaluator, trace: Trace, rules: Any, scorer: Any = None) -> Any:
        if trace.trace_id == poisoned:
            raise RuntimeError("the rule tripped over this trace")
        return real(evaluator, trace, rules, scorer)

    monkeypatch.setattr(worker_module, "evaluate_deterministic", crash_on_one)
    summary = OnlineWorker(store, OnlineConfig(evaluators=[rule_evaluator(1.0)])).run_once()

    assert summary.quarantined == 1
    assert summary.scored == 5
    assert job_states(store)[poisoned] == "quarantined"
    assert poisoned not in scores(store, "refund-policy")
    crashed = [t for t, outcome in executions(store, "refund-policy") if outcome == "crashed"]
    assert crashed == [poisoned]


def test_a_trace_whose_seq_committed_after_the_cursor_passed_it_is_still_scored(
    store: Store,
) -> None:
    store.ingest(traffic(4))
    traces = schema.traces
    with store.engine.begin() as connection:
        row = (
            connection.execute(select(traces).where(traces.c.trace_id == trace_id(2)))
            .mappings()
            .one()
        )
        spans = (
            connection.execute(
                select(schema.spans).where(schema.spans.c.trace_id == row["trace_id"])
            )
            .mappings()
            .all()
        )
        connection.execute(delete(traces).where(traces.c.trace_id == row["trace_id"]))
    worker = OnlineWorker(store, OnlineConfig(evaluators=[rule_evaluator(1.0)]))
    assert worker.run_once().scored == 3

    # The trace of seq 3 commits now, as a slow PostgreSQL transaction would.
    late = {key: value for key, value in row.items() if key != "start_key"}
    with store.engine.begin() as connection:
        connection.execute(insert(traces), late)
        connection.execute(insert(schema.spans), [dict(span) for span in spans])
    assert worker.run_once().scored == 1
    assert len(scores(store, "refund-policy")) == 4


def test_a_failing_score_names_the_step_where_the_failure_began(store: Store) -> None:
    store.ingest(traffic(3))
    OnlineWorker(store, OnlineConfig(evaluators=[rule_evaluator(1.0)])).run_once()

    table = schema.online_scores
    with store.engine.connect() as connection:
        rows = dict(connection.execute(select(table.c.trace_id, table.c.attribution)).all())
    unverified = support_trace(0, verified=False)
    refund = next(s for s in unverified.spans if s.tool and s.tool.name == "issue_refund")
    attribution = Attribution.model_validate_json(rows[trace_id(0)])
    assert (attribution.span_id, attribution.category) == (refund.span_id, "policy_breach")
    assert attribution.step == 1  # the refund is the run's first step
    assert rows[trace_id(1)] is None  # a pass is not attributed


def test_a_policy_evaluator_fails_and_attributes_the_breaking_call(store: Store) -> None:
    store.ingest(traffic(3))
    policy = Evaluator.model_validate(
        {
            "name": "identity-first",
            "policy": [
                {"name": "must_precede", "tool": "verify_identity", "before": "issue_refund"}
            ],
        }
    )
    OnlineWorker(store, OnlineConfig(evaluators=[policy])).run_once()

    assert scores(store, "identity-first") == {
        trace_id(0): False,
        trace_id(1): True,
        trace_id(2): True,
    }
    table = schema.online_scores
    with store.engine.connect() as connection:
        text = connection.execute(
            select(table.c.attribution).where(table.c.trace_id == trace_id(0))
        ).scalar_one()
    assert Attribution.model_validate_json(text).category == "policy_breach"


def test_a_wide_gap_of_deleted_traces_is_history_not_holes(store: Store) -> None:
    store.ingest(traffic(3))
    traces = schema.traces
    with store.engine.begin() as connection:
        row = dict(connection.execute(select(traces).where(traces.c.seq == 3)).mappings().one())
        # A trace stored far past the others: the seqs between were taken by traces since
        # deleted, and no commit will fill them.
        late = {key: value for key, value in row.items() if key != "start_key"}
        connection.execute(
            insert(traces), {**late, "seq": 3 + MAX_HOLE_GAP + 5, "trace_id": "f" * 32}
        )
    worker = OnlineWorker(store, OnlineConfig(evaluators=[rule_evaluator(1.0)]))

    assert worker.run_once().scored == 4
    with store.engine.connect() as connection:
        held = connection.execute(select(func.count()).select_from(schema.online_holes))
        assert held.scalar_one() == 0
