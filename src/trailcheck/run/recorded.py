"""Trial outcomes of recorded runs that carry their own verdict (a benchmark's reward, say).

Each trace is one trial. Its task is the value at ``task_key`` and its outcome the value at
``outcome_key``, both dotted paths into the trace: the first part names a Trace field
(``metadata``, ``final_output``, ``state_after``...), the rest walk into JSON objects (and
arrays, by index). ``metadata.task_id`` is ``trace.metadata["task_id"]``.

The outcome becomes a status:

- a boolean: true is ``passed``, false ``failed``;
- a number: ``passed`` when it reaches ``threshold`` (within 1e-6, so a reward computed as
  0.9999999 in floating point reaches 1.0, as tau-bench itself judges), else ``failed``;
- a status name (``passed``, ``timeout``, ``infra_error``...): that status.

Anything else, or a path that leads nowhere, is an InputError naming the trace: a typo in a key
must not turn into a run of failures.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from trailcheck.errors import InputError, UsageError
from trailcheck.run.status import TRIAL_STATUSES, TrialStatus, is_trial_status
from trailcheck.trace import Trace

__all__ = [
    "OUTCOME_TOLERANCE",
    "group_outcomes",
    "outcome_status",
    "outcomes_from_traces",
    "trace_value",
    "trial_outcome",
]

OUTCOME_TOLERANCE: Final = 1e-6


def _step(value: Any, part: str) -> tuple[bool, Any]:
    if isinstance(value, dict):
        return (part in value, value.get(part))
    if isinstance(value, list) and part.isascii() and part.isdigit() and int(part) < len(value):
        return (True, value[int(part)])
    return (False, None)


def trace_value(trace: Trace, path: str) -> Any:
    """The value at the dotted ``path`` in ``trace``; an InputError naming the trace and the
    first part that is missing."""
    first, *rest = path.split(".")
    if first not in Trace.__struct_fields__:
        raise UsageError(
            f"key {path!r} must start with a trace field ({', '.join(Trace.__struct_fields__)})"
        )
    value: Any = getattr(trace, first)
    walked = first
    for part in rest:
        found, value = _step(value, part)
        if not found:
            raise InputError(f"trace {trace.trace_id!r}: has no {path} ({walked} has no {part!r})")
        walked += f".{part}"
    return value


def outcome_status(value: Any, threshold: float) -> TrialStatus | None:
    """The status an outcome value stands for, or ``None`` when it stands for none."""
    if isinstance(value, bool):
        return "passed" if value else "failed"
    if isinstance(value, int | float):
        return "passed" if value >= threshold - OUTCOME_TOLERANCE else "failed"
    if is_trial_status(value):
        return value
    return None


def _task_id(trace: Trace, task_key: str) -> str:
    value = trace_value(trace, task_key)
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(
        f"trace {trace.trace_id!r}: {task_key} must be non-empty text or an integer, not {value!r}"
    )


def outcomes_from_traces(
    traces: Iterable[Trace], *, task_key: str, outcome_key: str, threshold: float = 1.0
) -> dict[str, list[TrialStatus]]:
    """Task id → the statuses of its traces, in the order the traces came."""
    trials = (trial_outcome(trace, task_key, outcome_key, threshold) for trace in traces)
    return group_outcomes(trials)


def trial_outcome(
    trace: Trace, task_key: str, outcome_key: str, threshold: float = 1.0
) -> tuple[str, TrialStatus]:
    """The task of ``trace`` and the status of its outcome; an InputError naming the trace when
    either cannot be read."""
    task = _task_id(trace, task_key)
    value = trace_value(trace, outcome_key)
    status = outcome_status(value, threshold)
    if status is None:
        raise InputError(
            f"trace {trace.trace_id!r}: {outcome_key} is {value!r}; an outcome is a boolean,"
            f" a number (passed when >= {threshold:g}) or one of {', '.join(TRIAL_STATUSES)}"
        )
    return task, status


def group_outcomes(trials: Iterable[tuple[str, TrialStatus]]) -> dict[str, list[TrialStatus]]:
    """Task id → the statuses of its trials, in the order they came."""
    outcomes: dict[str, list[TrialStatus]] = {}
    for task, status in trials:
        outcomes.setdefault(task, []).append(status)
    return outcomes
