"""Outcomes of recorded runs: dotted keys into traces, outcome values, clear errors."""

from __future__ import annotations

from typing import Any

import pytest

from trailcheck.errors import InputError, UsageError
from trailcheck.run.recorded import outcome_status, outcomes_from_traces, trace_value
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace


def _trace(trace_id: str, **metadata: Any) -> Trace:
    return TraceBuilder(trace_id, input="hi").metadata(**metadata).build()


def test_groups_by_task_in_trace_order() -> None:
    traces = [
        _trace("a0", task_id=7, reward=1.0),
        _trace("b0", task_id="b", reward=0.0),
        _trace("a1", task_id=7, reward=0.9999999),  # floating-point 1.0, as tau-bench allows
        _trace("a2", task_id=7, reward=0.5),
    ]
    outcomes = outcomes_from_traces(
        traces, task_key="metadata.task_id", outcome_key="metadata.reward"
    )
    assert outcomes == {"7": ["passed", "passed", "failed"], "b": ["failed"]}


@pytest.mark.parametrize(
    ("value", "threshold", "status"),
    [
        (True, 1.0, "passed"),
        (False, 0.0, "failed"),
        (0.7, 0.5, "passed"),
        (0.4, 0.5, "failed"),
        (1, 1.0, "passed"),
        ("infra_error", 1.0, "infra_error"),
        ("timeout", 1.0, "timeout"),
        ("maybe", 1.0, None),
        (None, 1.0, None),
    ],
)
def test_outcome_values(value: Any, threshold: float, status: str | None) -> None:
    assert outcome_status(value, threshold) == status


def test_dotted_keys_walk_objects_and_arrays() -> None:
    trace = _trace("t", run={"scores": [{"value": 0.25}]})
    assert trace_value(trace, "metadata.run.scores.0.value") == 0.25
    assert trace_value(trace, "trace_id") == "t"


def test_a_missing_task_key_names_the_trace_and_the_missing_part() -> None:
    traces = [_trace("t1", task_id=1, reward=1.0), _trace("t2", reward=1.0)]
    with pytest.raises(InputError) as caught:
        outcomes_from_traces(traces, task_key="metadata.task_id", outcome_key="metadata.reward")
    assert str(caught.value) == "trace 't2': has no metadata.task_id (metadata has no 'task_id')"


def test_an_outcome_that_is_no_outcome_is_an_error() -> None:
    with pytest.raises(InputError, match=r"trace 't1': metadata.reward is 'high'; an outcome is"):
        outcomes_from_traces(
            [_trace("t1", task_id=1, reward="high")],
            task_key="metadata.task_id",
            outcome_key="metadata.reward",
        )


def test_a_task_id_must_be_text_or_an_integer() -> None:
    with pytest.raises(InputError, match="must be non-empty text or an integer, not True"):
        outcomes_from_traces(
            [_trace("t1", task_id=True, reward=1)],
            task_key="metadata.task_id",
            outcome_key="metadata.reward",
        )


def test_a_key_must_start_at_a_trace_field() -> None:
    with pytest.raises(UsageError, match="must start with a trace field"):
        trace_value(_trace("t"), "task_id")
