"""Paired comparison with a baseline: deltas, exact McNemar, the paired bootstrap, the statement."""

from __future__ import annotations

import orjson
import pytest

from trailcheck.run.compare import compare_outcomes, mcnemar_exact_p
from trailcheck.run.stats import TaskOutcomes
from trailcheck.run.status import TrialStatus


def test_mcnemar_exact_p_by_hand() -> None:
    # b = 1, c = 6: 2 * (C(7,0) + C(7,1)) / 2^7 = 2 * 8 / 128.
    assert mcnemar_exact_p(1, 6) == pytest.approx(0.125)
    assert mcnemar_exact_p(6, 1) == pytest.approx(0.125)
    assert mcnemar_exact_p(0, 0) == 1.0
    assert mcnemar_exact_p(3, 3) == 1.0  # capped, not 2 * 0.65
    assert mcnemar_exact_p(0, 5) == pytest.approx(2 / 32)


def test_mcnemar_stays_exact_for_many_discordant_tasks() -> None:
    assert mcnemar_exact_p(600, 600) == 1.0
    assert 0 < mcnemar_exact_p(500, 700) < 1e-6


def _trials(*passes: bool) -> list[TrialStatus]:
    return ["passed" if passed else "failed" for passed in passes]


def test_deltas_pairs_and_exclusions() -> None:
    baseline: TaskOutcomes = {
        "1": _trials(True, True),
        "2": _trials(False, False),
        "3": _trials(True, False),
        "gone": _trials(True),
        "flaky-infra": ["infra_error"],
    }
    candidate: TaskOutcomes = {
        "1": _trials(True, False),
        "2": _trials(True, True),
        "3": ["passed", "infra_error"],
        "new": _trials(False),
        "flaky-infra": _trials(True),
    }
    result = compare_outcomes(candidate, baseline, seed=1)
    assert [(d.task_id, d.baseline, d.candidate, d.delta) for d in result.deltas] == [
        ("1", 1.0, 0.5, -0.5),
        ("2", 0.0, 1.0, 1.0),
        ("3", 0.5, 1.0, 0.5),
    ]
    assert (result.only_in_baseline, result.only_in_candidate) == (["gone"], ["new"])
    assert result.unscored == ["flaky-infra"]
    assert result.paired_tasks == 3
    assert result.mean_delta == pytest.approx(1 / 3)
    assert result.baseline_pass_at_1 == pytest.approx(0.5)
    # Verdicts at pass@1 >= 0.5: task 1 passes on both, 2 improved, 3 passes on both.
    mcnemar = result.mcnemar
    assert (mcnemar.both_passed, mcnemar.both_failed, mcnemar.regressed, mcnemar.improved) == (
        2,
        0,
        0,
        1,
    )
    assert mcnemar.p_value == 1.0
    assert "pass@1 >= 0.5" in mcnemar.definition
    assert result.interval.method == "bootstrap-paired-task"
    assert result.interval.seed == 1


def test_a_change_within_noise_says_so_plainly() -> None:
    baseline = {str(task): _trials(task % 2 == 0) for task in range(20)}
    candidate = {str(task): _trials(task % 2 == 0 if task != 3 else True) for task in range(20)}
    result = compare_outcomes(candidate, baseline)
    assert result.interval.includes(0.0)
    assert result.statement.startswith(
        "the 95% interval of the difference in pass@1, [+0.000, +0.150], includes zero:"
        " no evidence of a change"
    )
    assert "McNemar p = 1 on 1 changed task(s)" in result.statement


def test_a_clear_regression_is_named() -> None:
    baseline = {str(task): _trials(True, True) for task in range(12)}
    candidate = {str(task): _trials(False, task < 2) for task in range(12)}
    result = compare_outcomes(candidate, baseline)
    assert result.mean_delta == pytest.approx(-(10 + 2 * 0.5) / 12)
    assert not result.interval.includes(0.0)
    assert "evidence of a regression" in result.statement
    assert result.mcnemar.regressed == 10
    assert result.mcnemar.p_value == pytest.approx(2 / 2**10)


def test_nothing_paired_is_undefined_and_serialises_as_null() -> None:
    result = compare_outcomes({"a": _trials(True)}, {"b": _trials(True)})
    assert result.statement == "no task was scored in both runs: nothing to compare"
    data = orjson.loads(result.model_dump_json())
    assert (data["mean_delta"], data["interval"]["low"], data["interval"]["high"]) == (
        None,
        None,
        None,
    )


def test_seeded_and_order_independent() -> None:
    baseline = {str(task): _trials(task % 3 == 0, True) for task in range(15)}
    candidate = {str(task): _trials(task % 2 == 0, False) for task in range(15)}
    first = compare_outcomes(candidate, baseline, seed=4)
    again = compare_outcomes(dict(reversed(candidate.items())), baseline, seed=4)
    assert first == again
