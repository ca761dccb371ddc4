"""tau-bench results: one record per trial of a task, as tau-bench's ``run.py`` writes them.

A record is an object with ``task_id`` (an integer or text), ``reward`` (the number the benchmark
gave the trial), ``trial`` (its number among the task's trials, optional), ``info`` and ``traj``
(the OpenAI-style messages of the conversation). The input is a JSON array of records, one
record, or JSON Lines of records (:mod:`trailcheck.importing.transport.json_records`).

The conversation becomes spans exactly as in :mod:`trailcheck.importing.message_logs`, which
this reader calls. On top of that it keeps what a grader of the trial needs:

- ``metadata``: every field of the record but ``traj``, verbatim (``task_id``, ``reward``,
  ``trial``, ``info``, and any others), plus ``expected_actions``, the task's gold actions as
  trailcheck writes tool calls (``[{"name": ..., "arguments": {...}}]``, from
  ``info.task.actions[].name``/``kwargs``) and ``expected_outputs`` (``info.task.outputs``, the
  facts the answer must state). The task comes from the record, not from tau-bench's task
  list, because instructions changed after trajectories were recorded: grade against the copy
  the run used.
- trace id ``{file stem}:task-{task_id}:trial-{trial}`` (``record-{index}`` stands in for a
  missing trial), stable across imports and readable in a report.

A trial that tau-bench's harness could not run is recorded with an empty ``traj`` and
``info.error`` (and no task); it becomes a trace without spans whose metadata keeps the error, so
it is counted, not lost. Any other bad record is a Rejection naming the file, the line where the
record starts and the field (``[17].info.task.actions[0].kwargs``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any, BinaryIO, Final

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.genai_messages import json_kind
from trailcheck.importing.message_logs import looks_like_openai_messages, trace_from_messages
from trailcheck.importing.records import Rejection
from trailcheck.importing.transport.json_records import JsonRecord, read_json_records
from trailcheck.trace import Trace

__all__ = ["looks_like_tau_bench", "read_tau_bench"]

# The fields every tau-bench result has; detection also wants the messages to be OpenAI's.
_RESULT_FIELDS: Final = tuple(
    re.compile(pattern)
    for pattern in (
        rb'"task_id"\s*:',
        rb'"reward"\s*:',
        rb'"info"\s*:\s*\{',
        rb'"traj"\s*:\s*\[',
    )
)


def looks_like_tau_bench(head: bytes) -> bool:
    """The first bytes of an input hold tau-bench results: JSON with ``task_id``, ``reward``,
    an ``info`` object and a ``traj`` array of OpenAI chat messages. Records without ``info``
    are plain conversations with a score beside them, left to the OpenAI reader."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return (
        text[:1] in (b"[", b"{")
        and all(pattern.search(text) for pattern in _RESULT_FIELDS)
        and looks_like_openai_messages(text)
    )


def read_tau_bench(stream: BinaryIO, source: str) -> Iterator[Trace | Rejection]:
    """A Trace for each result record of ``stream``, or a Rejection saying what is wrong with
    it and where; bad records do not stop the others."""
    stem = PurePath(source).stem or source
    for record in read_json_records(stream.read(), source, array_is_one_record=lambda _: False):
        if isinstance(record, Rejection):
            yield record
            continue
        try:
            yield _trace(record, stem, source)
        except RecordError as error:
            yield Rejection(source, error.message, line=record.start_line(), field=error.field)


def _field(prefix: str, name: str) -> str:
    """``[17]`` + ``info.task`` → ``[17].info.task``; ``[17].traj`` + ``[5].role`` →
    ``[17].traj[5].role``; a record on a line of its own has no prefix."""
    if not prefix or name.startswith("["):
        return prefix + name
    return f"{prefix}.{name}"


def _trace(record: JsonRecord, stem: str, source: str) -> Trace:
    value = record.value
    if not isinstance(value, dict):
        raise RecordError(
            f"a tau-bench result must be a JSON object, not {json_kind(value)}",
            field=record.path or None,
        )
    at = record.path
    task_id = _task_id(value.get("task_id"), _field(at, "task_id"))
    _reward(value.get("reward"), _field(at, "reward"))
    trial = _trial(value.get("trial"), _field(at, "trial"))
    info = value.get("info")
    if not isinstance(info, dict):
        raise RecordError(
            f"info must be a JSON object, not {json_kind(info)}", field=_field(at, "info")
        )
    messages = value.get("traj")
    if not isinstance(messages, list):
        raise RecordError(
            f"traj must be a JSON array of messages, not {json_kind(messages)}",
            field=_field(at, "traj"),
        )
    run = f"trial-{trial}" if trial is not None else f"record-{record.index}"
    trace_id = f"{stem}:task-{task_id}:{run}"
    metadata = {name: field for name, field in value.items() if name != "traj"}
    if not messages and "error" in info and "task" not in info:
        # The harness failed before the conversation started: a trial without spans.
        return Trace(trace_id=trace_id, metadata=metadata)
    metadata |= _expectations(info.get("task"), _field(at, "info.task"))
    try:
        return trace_from_messages(
            messages,
            trace_id=trace_id,
            metadata=metadata,
            source=source,
            path=_field(at, "traj"),
        )
    except RecordError as error:
        traj_field = _field(_field(at, "traj"), error.field or "")
        raise RecordError(error.message, field=traj_field) from None


def _task_id(value: Any, field: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value:
        return value
    raise RecordError(
        f"task_id must be an integer or non-empty text, not {json_kind(value)}", field=field
    )


def _reward(value: Any, field: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RecordError(f"reward must be a number, not {json_kind(value)}", field=field)


def _trial(value: Any, field: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RecordError(f"trial must be a non-negative integer, not {value!r}", field=field)
    return value


def _expectations(task: Any, field: str) -> dict[str, Any]:
    """``expected_actions`` and ``expected_outputs`` from the task the trial ran."""
    if not isinstance(task, dict):
        raise RecordError(
            f"the task the trial ran must be a JSON object, not {json_kind(task)}", field=field
        )
    actions = task.get("actions")
    if not isinstance(actions, list):
        raise RecordError(
            f"actions must be a JSON array, not {json_kind(actions)}", field=f"{field}.actions"
        )
    outputs = task.get("outputs", [])
    if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
        raise RecordError("outputs must be a JSON array of text", field=f"{field}.outputs")
    return {
        "expected_actions": [
            _action(action, f"{field}.actions[{index}]") for index, action in enumerate(actions)
        ],
        "expected_outputs": outputs,
    }


def _action(action: Any, field: str) -> dict[str, Any]:
    if not isinstance(action, dict):
        raise RecordError(f"an action must be a JSON object, not {json_kind(action)}", field=field)
    name = action.get("name")
    if not isinstance(name, str) or not name:
        raise RecordError("an action needs a name, as non-empty text", field=f"{field}.name")
    if "kwargs" not in action:
        # tau-bench writes {} for an action without arguments: absent is not the same claim.
        raise RecordError(
            "an action needs its kwargs, as a JSON object ({} for none)", field=f"{field}.kwargs"
        )
    arguments = action["kwargs"]
    if not isinstance(arguments, dict):
        raise RecordError(
            f"kwargs must be a JSON object, not {json_kind(arguments)}", field=f"{field}.kwargs"
        )
    return {"name": name, "arguments": arguments}
