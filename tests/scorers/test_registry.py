"""Spec form: name + non-default settings, round-tripping through the registry."""

from __future__ import annotations

import pytest

from trailcheck.cases import BUILTIN_SCORER_NAMES, ScorerSpec
from trailcheck.errors import InputError
from trailcheck.scorers import (
    ArgumentsScorer,
    TrajectoryScorer,
    scorer_classes,
    scorer_from_spec,
    scorer_to_spec,
)


def test_builtins_are_registered() -> None:
    classes = scorer_classes()
    assert classes["trajectory"] is TrajectoryScorer
    assert classes["arguments"] is ArgumentsScorer


@pytest.mark.parametrize(
    ("scorer", "spec"),
    [
        (TrajectoryScorer(), {"name": "trajectory"}),
        (
            TrajectoryScorer(ignore_tools=("think",), errored_calls="skip"),
            {"name": "trajectory", "ignore_tools": ["think"], "errored_calls": "skip"},
        ),
        (ArgumentsScorer(threshold=0.5), {"name": "arguments", "threshold": 0.5}),
    ],
)
def test_spec_round_trips(
    scorer: TrajectoryScorer | ArgumentsScorer, spec: dict[str, object]
) -> None:
    written = scorer.to_spec()
    assert written == scorer_to_spec(scorer)
    assert written.model_dump() == spec
    assert scorer_from_spec(ScorerSpec.model_validate(spec)) == scorer


def test_unknown_settings_are_named() -> None:
    spec = ScorerSpec.model_validate({"name": "arguments", "treshold": 0.5, "mode": "x"})
    with pytest.raises(InputError) as raised:
        scorer_from_spec(spec)
    assert str(raised.value) == (
        "scorer 'arguments' has no setting 'mode', 'treshold';"
        " its settings: errored_calls, threshold"
    )


def test_bad_setting_values_are_reported() -> None:
    with pytest.raises(
        InputError, match=r"scorer 'arguments': threshold: Input should be a valid number"
    ):
        scorer_from_spec(ScorerSpec.model_validate({"name": "arguments", "threshold": "0.5"}))
    with pytest.raises(InputError, match="between 0 and 1"):
        scorer_from_spec(ScorerSpec.model_validate({"name": "arguments", "threshold": 2.0}))
    with pytest.raises(InputError, match="errored_calls"):
        scorer_from_spec(ScorerSpec.model_validate({"name": "trajectory", "errored_calls": "x"}))


def test_every_built_in_is_registered_through_the_entry_point_group() -> None:
    from importlib.metadata import entry_points

    registered = {point.name for point in entry_points(group="trailcheck.scorers")}
    assert registered == BUILTIN_SCORER_NAMES
    assert set(scorer_classes()) == registered
