"""The router: calibrated on out-of-fold scores, folds adapted, calibration reported."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.route.shop import training
from trailcheck.errors import InputError
from trailcheck.route import (
    PlattScaler,
    Router,
    TrainingExample,
    brier_score,
    expected_calibration_error,
    reliability_table,
)


def test_folds_follow_the_smallest_route_and_probabilities_are_calibrated() -> None:
    router = Router.train(training())
    assert router.fit.calibrated
    assert router.fit.folds == 5
    assert router.routes == ("AGENT", "FAST_PATH")
    prediction = router.predict("Cancel my order please")
    assert prediction.route == "AGENT"
    assert sum(prediction.probabilities.values()) == pytest.approx(1.0)
    assert prediction.confidence == max(prediction.probabilities.values())
    assert router.predict("Good morning, thank you").route == "FAST_PATH"


def test_three_examples_in_the_smallest_route_give_three_folds() -> None:
    examples = [e for e in training() if e.label == "AGENT"]
    examples += [TrainingExample(t, "FAST_PATH") for t in ("hi", "hello there", "thanks")]
    router = Router.train(examples)
    assert router.fit.folds == 3
    assert "3 stratified folds" in router.fit.reason
    assert len(router.fit.oof_calibrated) == len(examples)


def test_a_route_with_one_example_is_not_calibrated() -> None:
    examples = [*training(), TrainingExample("speak to a lawyer", "LEGAL")]
    router = Router.train(examples)
    assert not router.fit.calibrated
    assert "fewer than 2" in router.fit.reason
    row = router.probabilities(["Cancel my order"])[0]
    assert row == pytest.approx(router.raw_probabilities(["Cancel my order"])[0])


def test_one_route_is_not_a_router() -> None:
    with pytest.raises(InputError, match="at least two routes"):
        Router.train([TrainingExample("a", "X"), TrainingExample("b", "X")])


def test_training_twice_gives_the_same_probabilities() -> None:
    texts = ["Where is my parcel?", "Hi", "Refund please", "Are you open today?"]
    first = Router.train(training()).probabilities(texts)
    second = Router.train(training()).probabilities(texts)
    assert np.array_equal(first, second)


def test_platt_smoothed_targets_keep_separable_data_off_0_and_1() -> None:
    scaler = PlattScaler.fit([-2.0, -1.0, 1.0, 2.0], [False, False, True, True])
    p = scaler.apply([-2.0, 2.0])
    assert 0 < p[0] < 0.5 < p[1] < 1
    assert scaler.slope > 0


def test_brier_and_ece_by_hand() -> None:
    # two items: p=(0.8, 0.2) truth 0 → 0.04+0.04; p=(0.4, 0.6) truth 0 → 0.36+0.36
    assert brier_score([[0.8, 0.2], [0.4, 0.6]], [0, 0]) == pytest.approx((0.08 + 0.72) / 2)
    rows = reliability_table([0.8, 0.6, 0.95], [True, False, True], bins=10)
    assert [r.count for r in rows] == [0, 0, 0, 0, 0, 0, 1, 0, 1, 1]
    # |0-0.6| + |1-0.8| + |1-0.95| over 3
    assert expected_calibration_error(rows) == pytest.approx((0.6 + 0.2 + 0.05) / 3)
    assert math.isnan(expected_calibration_error(reliability_table([], [])))


@pytest.mark.parametrize("extra", [False, True])
def test_predict_gives_the_numbers_of_the_batch_path(extra: bool) -> None:
    examples = list(training())
    if extra:  # three routes: one-vs-rest scalers, renormalised
        examples += [
            TrainingExample(t, "LEGAL")
            for t in ("talk to a lawyer", "legal notice", "lawsuit against you")
        ]
    router = Router.train(examples)
    for text in ["Where is my parcel?", "Hi", "lawyer please", "zzz unknown words"]:
        batch = router.probabilities([text])[0]
        single = router.predict(text)
        assert [single.probabilities[r] for r in router.routes] == pytest.approx(batch)
