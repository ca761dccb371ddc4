"""pass@k and pass^k: hand-checked values, undefined below k, honest counts, the summary, and the
published tau-bench figures."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trailcheck.errors import UsageError
from trailcheck.importing.tau_bench import read_tau_bench
from trailcheck.report.stats_view import stats_json
from trailcheck.run.recorded import outcomes_from_traces
from trailcheck.run.stats import (
    count_trials,
    pass_at_k,
    pass_hat_k,
    summarize_outcomes,
    task_stats,
)
from trailcheck.run.status import TRIAL_STATUSES, TrialStatus, is_scored
from trailcheck.trace import Trace

TAU_BENCH_TRAJECTORIES = Path("tau-bench") / "gpt-4o-airline-trajectories.json"


# --- the estimators ----------------------------------------------------------------------------


def test_two_of_four_at_k_2_by_hand() -> None:
    # C(2,2)/C(4,2) = 1/6; 1 - C(2,2)/C(4,2) = 5/6.
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_at_k(4, 2, 2) == pytest.approx(5 / 6)


def test_k_1_is_the_pass_rate() -> None:
    assert pass_hat_k(4, 3, 1) == pass_at_k(4, 3, 1) == 0.75


def test_fewer_trials_than_k_is_undefined_not_a_number() -> None:
    assert pass_hat_k(3, 3, 4) is None
    assert pass_at_k(3, 0, 4) is None
    assert pass_hat_k(0, 0, 1) is None


def test_all_or_none_passing() -> None:
    assert (pass_hat_k(4, 4, 4), pass_at_k(4, 4, 4)) == (1.0, 1.0)
    assert (pass_hat_k(4, 0, 2), pass_at_k(4, 0, 2)) == (0.0, 0.0)
    # With fewer failures than k, some pass among k is certain; with more, it is not.
    assert pass_at_k(5, 3, 3) == 1.0
    assert pass_at_k(5, 1, 3) == pytest.approx(0.6)


@pytest.mark.parametrize(("n", "c", "k"), [(4, 5, 1), (4, -1, 1), (4, 2, 0)])
def test_impossible_counts_are_usage_errors(n: int, c: int, k: int) -> None:
    with pytest.raises(UsageError):
        pass_hat_k(n, c, k)


@given(st.integers(0, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_hat_k_falls_and_pass_at_k_rises_with_k(counts: tuple[int, int]) -> None:
    n, c = counts
    hats = [pass_hat_k(n, c, k) for k in range(1, n + 1)]
    ats = [pass_at_k(n, c, k) for k in range(1, n + 1)]
    assert all(v is not None for v in hats + ats)
    assert hats == sorted(hats, reverse=True)  # type: ignore[type-var]
    assert ats == sorted(ats)  # type: ignore[type-var]
    for hat, at in zip(hats, ats, strict=True):
        assert hat is not None
        assert at is not None
        assert 0 <= hat <= at <= 1


# --- statuses and counts -------------------------------------------------------------------


def test_scored_statuses_count_timeouts_and_crashes_against_the_agent() -> None:
    assert [s for s in TRIAL_STATUSES if is_scored(s)] == ["passed", "failed", "timeout", "crashed"]


def test_unscored_trials_leave_n_but_are_counted() -> None:
    statuses: list[TrialStatus] = ["passed", "timeout", "infra_error", "unscorable", "crashed"]
    stats = task_stats("t", statuses)
    assert stats.trials == count_trials(statuses)
    assert (stats.trials.attempted, stats.trials.scored, stats.trials.passed) == (5, 3, 1)
    assert (stats.trials.infra_error, stats.trials.unscorable) == (1, 1)
    assert stats.pass_at_1 == pytest.approx(1 / 3)


# --- the summary ---------------------------------------------------------------------------


def test_all_infra_task_is_excluded_from_n_but_counted_and_shown() -> None:
    summary = summarize_outcomes(
        {"a": ["passed", "passed"], "b": ["passed", "failed"], "down": ["infra_error"] * 2}
    )
    assert summary.tasks == 3
    assert summary.trials.attempted == 6
    assert summary.trials.scored == 4
    assert summary.trials.infra_error == 2
    assert summary.k == 2
    assert summary.tasks_defined == {1: 2, 2: 2}
    assert summary.pass_at_1 == pytest.approx(0.75)  # (1 + 0.5) / 2: "down" is not a failure
    assert summary.pass_hat_k == {1: pytest.approx(0.75), 2: pytest.approx(0.5)}
    assert summary.pass_at_k == {1: pytest.approx(0.75), 2: pytest.approx(1.0)}
    # ...and not silently dropped: its rate is over every attempted trial.
    rate = summary.infra_error_rate
    assert (rate.count, rate.total, rate.value) == (2, 6, pytest.approx(1 / 3))
    assert rate.interval.method == "wilson"
    assert [t.task_id for t in summary.per_task] == ["a", "b", "down"]
    assert summary.per_task[2].pass_at_1 is None


def test_k_beyond_every_task_is_undefined_and_serialises_as_null() -> None:
    summary = summarize_outcomes({"a": ["passed", "passed"]}, k=3)
    assert summary.pass_hat_k[3] is None
    assert summary.pass_at_k[3] is None
    assert summary.tasks_defined[3] == 0
    assert not summary.pass_hat_k_interval[3].defined
    data = orjson.loads(orjson.dumps(stats_json(summary)))
    assert data["pass_hat_k"] == {"1": 1.0, "2": 1.0, "3": None}
    assert data["pass_at_k"]["3"] is None
    assert (data["pass_hat_k_interval"]["3"]["low"], data["pass_hat_k_interval"]["3"]["high"]) == (
        None,
        None,
    )


def test_pass_hat_k_averages_only_tasks_defined_at_k() -> None:
    summary = summarize_outcomes({"many": ["passed"] * 4, "few": ["failed"]})
    assert summary.k == 4
    assert summary.tasks_defined == {1: 2, 2: 1, 3: 1, 4: 1}
    assert summary.pass_hat_k[1] == 0.5
    assert summary.pass_hat_k[4] == 1.0


def test_no_tasks_gives_undefined_figures() -> None:
    summary = summarize_outcomes({})
    assert (summary.tasks, summary.k, summary.pass_at_1) == (0, 1, None)
    assert summary.trial_pass_rate.value is None
    assert not summary.pass_at_1_interval.defined


def test_intervals_are_labelled_and_deterministic_for_a_seed() -> None:
    outcomes: dict[str, list[TrialStatus]] = {
        str(task): ["passed" if (task * 7 + trial) % 3 else "failed" for trial in range(4)]
        for task in range(30)
    }
    first = summarize_outcomes(outcomes, seed=11)
    again = summarize_outcomes(dict(reversed(outcomes.items())), seed=11)
    assert first == again  # the task order of the input does not matter either
    interval = first.pass_at_1_interval
    assert (interval.method, interval.level, interval.resamples, interval.seed) == (
        "bootstrap-task",
        0.95,
        2000,
        11,
    )
    assert first.pass_at_1 is not None
    assert interval.includes(first.pass_at_1)
    for k in range(1, 5):
        value = first.pass_hat_k[k]
        assert value is not None
        assert first.pass_hat_k_interval[k].includes(value)
    assert first.trial_pass_rate.interval.method == "wilson"
    assert summarize_outcomes(outcomes, seed=12).pass_at_1_interval != interval


# --- the published tau-bench figures -----------------------------------------------------------


def _tau_bench_traces(external: Path) -> list[Trace]:
    path = external / TAU_BENCH_TRAJECTORIES
    with path.open("rb") as stream:
        items = list(read_tau_bench(stream, path.name))
    assert all(isinstance(item, Trace) for item in items), [str(item) for item in items]
    return [item for item in items if isinstance(item, Trace)]


@pytest.mark.external
def test_tau_bench_gpt_4o_airline_gives_the_published_pass_hat_k(external: Path) -> None:
    outcomes = outcomes_from_traces(
        _tau_bench_traces(external), task_key="metadata.task_id", outcome_key="metadata.reward"
    )
    summary = summarize_outcomes(outcomes)
    assert (summary.tasks, summary.trials.attempted, summary.k) == (50, 200, 4)
    assert summary.tasks_defined == {1: 50, 2: 50, 3: 50, 4: 50}
    published = {1: "0.42", 2: "0.273", 3: "0.22", 4: "0.20"}
    for k, figure in published.items():
        value = summary.pass_hat_k[k]
        assert value is not None
        assert f"{value:.{len(figure) - 2}f}" == figure
    # The README's intervals: the task bootstrap about [0.32, 0.52], Wilson about [0.354, 0.489].
    bootstrap = summary.pass_at_1_interval
    assert bootstrap.low == pytest.approx(0.32, abs=0.01)
    assert bootstrap.high == pytest.approx(0.52, abs=0.01)
    wilson = summary.trial_pass_rate.interval
    assert (round(wilson.low or 0, 3), round(wilson.high or 0, 3)) == (0.354, 0.489)
