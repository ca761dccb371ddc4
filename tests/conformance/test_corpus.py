"""Every configuration of the conformance corpus against the table of truth: one test per
configuration and column (see :mod:`tests.conformance.corpus` for what read, absent and a gap
mean). A trace is never rejected for a part no reader understands: every recording imports
whole."""

from __future__ import annotations

import functools

import pytest

from tests.conformance.corpus import (
    CORPUS,
    NOT_A_CONVERSATION,
    PER_MODEL_CALL,
    Configuration,
    recorded_fixtures,
)
from tests.conformance.truth import COLUMNS, check, shows_nothing
from trailcheck.trace import Trace


@functools.cache
def _traces(fixture: str) -> tuple[Trace, ...]:
    configuration = next(c for c in CORPUS if c.fixture == fixture)
    return tuple(configuration.traces())


def _cases() -> list[object]:
    cases: list[object] = []
    for configuration in CORPUS:
        for column in COLUMNS:
            marks = []
            if column in configuration.gaps:
                marks.append(pytest.mark.xfail(reason=configuration.gaps[column], strict=True))
            cases.append(
                pytest.param(
                    configuration, column, marks=marks, id=f"{configuration.fixture}:{column}"
                )
            )
    return cases


@pytest.mark.parametrize(("configuration", "column"), _cases())
def test_each_run_reads_as_the_table_of_truth_says(
    configuration: Configuration, column: str
) -> None:
    traces = _traces(configuration.fixture)
    assert len(traces) == len(configuration.runs), f"{len(traces)} runs found"
    problems = []
    for trace, run in zip(traces, configuration.runs, strict=True):
        wrong = (
            shows_nothing(column, trace)
            if column in configuration.absent
            else check(column, trace, run)
        )
        if wrong is not None:
            problems.append(f"{run.name}: {wrong}")
    assert problems == []


def test_the_table_names_every_recording_once() -> None:
    named = [c.fixture for c in CORPUS] + [*PER_MODEL_CALL, *NOT_A_CONVERSATION]
    assert sorted(named) == sorted(set(named))
    assert set(named) == recorded_fixtures()


def test_a_column_is_absent_or_a_gap_never_both() -> None:
    for configuration in CORPUS:
        assert not set(configuration.absent) & set(configuration.gaps), configuration.fixture
        assert set(configuration.absent) | set(configuration.gaps) <= set(COLUMNS)
