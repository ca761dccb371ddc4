"""Who&When logs: failed multi-agent runs, each labelled with its mistaken agent and step.

Who&When (Zhang et al., ICML 2025, "Which Agent Causes Task Failures and When?";
github.com/mingyin1/Agents_Failure_Attribution) publishes one JSON file per failed task, in two
folders: ``Algorithm-Generated`` (CaptainAgent teams) and ``Hand-Crafted`` (Magentic-One). A file
is one object:

- ``question`` (the task), ``ground_truth`` (its answer), ``question_ID``, ``level``,
  ``is_correct`` (or ``is_corrected``), and for generated teams ``system_prompt`` (each
  agent's);
- ``history``: the conversation, one entry per *step*: ``content`` and ``role``, and ``name``
  for generated teams. The agent of an entry is its ``name`` when it has one, else its
  ``role`` (``"WebSurfer"``, ``"Orchestrator (thought)"``), as the paper's own code reads them;
- the label: ``mistake_agent``, ``mistake_step`` (the 0-based index of the entry where the
  decisive mistake was made, written as text), ``mistake_reason``, and in a few files
  ``mistake_type``.

:func:`read_who_and_when` makes each file a trace: the question as input, a root span, and one
``agent`` span per history entry, in order, named as the entry names its speaker, its text in
``output.value`` and its agent in ``gen_ai.agent.name``. A role's trailing remark in parentheses
is not part of the agent (``Orchestrator (-> WebSurfer)`` is the ``Orchestrator``), so the
agent compares with the label's ``mistake_agent``. The spans are the trace's steps, so history
entry *i* is step *i + 1* (:class:`~trailcheck.scorers.attribution.Attribution` counts steps
from 1). The label stays out of the trace, where a judge of it could read it; everything else
in the file is in ``metadata``.

:func:`read_who_and_when_logs` reads each log as its trace and its label, a
:class:`WhoAndWhenMistake` naming the trace's id, for :mod:`trailcheck.judge.attribution_labels`
to make labels of. A log whose label is malformed is rejected by both readers: the label stays
out of the trace, but a file that cannot be read as published is not read in part.

The trace id is ``who-and-when:{folder}/{file stem}`` (``who-and-when:Hand-Crafted/12``): the
file's place in the published data, readable in a report. The logs carry no times; the spans are
1 µs apart in history order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, BinaryIO, Final

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.genai_messages import json_kind
from trailcheck.importing.records import Rejection
from trailcheck.importing.transport.json_records import JsonRecord, read_json_records
from trailcheck.trace import Span, Trace
from trailcheck.trace.semconv import (
    GEN_AI_AGENT_NAME,
    MIME_TYPE_TEXT,
    OUTPUT_MIME_TYPE,
    OUTPUT_VALUE,
)

__all__ = [
    "WHO_AND_WHEN_PREFIX",
    "WhoAndWhenMistake",
    "looks_like_who_and_when",
    "read_who_and_when",
    "read_who_and_when_logs",
    "who_and_when_agent",
]

WHO_AND_WHEN_PREFIX: Final = "who-and-when:"
ROOT_SPAN_ID: Final = "run"
_STEP_NS: Final = 1_000
_LABEL_FIELDS: Final = frozenset(
    {"mistake_agent", "mistake_step", "mistake_reason", "mistake_type", "labels"}
)
_HEAD_FIELDS: Final = tuple(
    re.compile(pattern)
    for pattern in (rb'"history"\s*:\s*\[', rb'"question"\s*:', rb'"ground_truth"\s*:')
)
_REMARK: Final = re.compile(r"\s*\([^()]*\)\s*$")


@dataclass(frozen=True, slots=True)
class WhoAndWhenMistake:
    """The label of one log: who made the decisive mistake, at which step (from 1), and why."""

    trace_id: str
    agent: str
    step: int
    reason: str
    folder: str
    mistake_type: str | None = None


def looks_like_who_and_when(head: bytes) -> bool:
    """The first bytes of an input hold a Who&When log: a JSON object with a ``history`` array,
    a ``question`` and a ``ground_truth``."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return text[:1] in (b"[", b"{") and all(pattern.search(text) for pattern in _HEAD_FIELDS)


def who_and_when_agent(entry_speaker: str) -> str:
    """The agent of a history entry's speaker: ``Orchestrator (thought)`` is ``Orchestrator``."""
    return _REMARK.sub("", entry_speaker) or entry_speaker


def read_who_and_when(stream: BinaryIO, source: str) -> Iterator[Trace | Rejection]:
    """A Trace for each log of ``stream``, or a Rejection saying what is wrong and where."""
    for record in _records(stream, source):
        if isinstance(record, Rejection):
            yield record
            continue
        try:
            yield _parsed(record, source)[0]
        except RecordError as error:
            yield Rejection(source, error.message, line=record.start_line(), field=error.field)


def read_who_and_when_logs(
    stream: BinaryIO, source: str
) -> Iterator[tuple[Trace, WhoAndWhenMistake | None] | Rejection]:
    """Each log of ``stream`` as its trace and its label (None for a log without
    ``mistake_agent`` and ``mistake_step``), or a Rejection saying what is wrong and where."""
    for record in _records(stream, source):
        if isinstance(record, Rejection):
            yield record
            continue
        try:
            yield _parsed(record, source)
        except RecordError as error:
            yield Rejection(source, error.message, line=record.start_line(), field=error.field)


def _parsed(record: JsonRecord, source: str) -> tuple[Trace, WhoAndWhenMistake | None]:
    trace = _trace(record, source)
    return trace, _mistake(record, trace, source)


def _records(stream: BinaryIO, source: str) -> Iterator[JsonRecord | Rejection]:
    return read_json_records(stream.read(), source, array_is_one_record=lambda _: False)


def _field(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _folder_and_stem(source: str) -> tuple[str, str]:
    path = PurePath(source)
    return path.parent.name, path.stem or source


def _trace_id(source: str, record: JsonRecord) -> str:
    folder, stem = _folder_and_stem(source)
    where = f"{folder}/{stem}" if folder else stem
    # A file holding several logs (an array, or JSON Lines) numbers them after the file.
    return f"{WHO_AND_WHEN_PREFIX}{where}" + (f"#{record.index}" if record.index else "")


def _log(record: JsonRecord) -> dict[str, Any]:
    if not isinstance(record.value, dict):
        raise RecordError(
            f"a Who&When log must be a JSON object, not {json_kind(record.value)}",
            field=record.path or None,
        )
    return record.value


def _trace(record: JsonRecord, source: str) -> Trace:
    log = _log(record)
    at = record.path
    question = log.get("question")
    if not isinstance(question, str):
        raise RecordError(
            f"question must be text, not {json_kind(question)}", field=_field(at, "question")
        )
    history = log.get("history")
    if not isinstance(history, list) or not history:
        raise RecordError(
            "history must be a non-empty JSON array of messages", field=_field(at, "history")
        )
    trace_id = _trace_id(source, record)
    steps = [
        _step_span(trace_id, index, entry, _field(at, f"history[{index}]"))
        for index, entry in enumerate(history)
    ]
    root = Span(
        trace_id=trace_id,
        span_id=ROOT_SPAN_ID,
        name="who-and-when run",
        kind="agent",
        start_ns=0,
        end_ns=(len(steps) + 1) * _STEP_NS,
    )
    metadata = {
        name: value
        for name, value in log.items()
        if name not in _LABEL_FIELDS and name not in ("history", "question")
    }
    metadata["who_and_when_folder"] = _folder_and_stem(source)[0]
    return Trace(trace_id=trace_id, input=question, spans=[root, *steps], metadata=metadata)


def _step_span(trace_id: str, index: int, entry: Any, field: str) -> Span:
    if not isinstance(entry, dict):
        raise RecordError(
            f"a history entry must be a JSON object, not {json_kind(entry)}", field=field
        )
    content = entry.get("content")
    if not isinstance(content, str):
        raise RecordError(
            f"content must be text, not {json_kind(content)}", field=f"{field}.content"
        )
    speaker = _speaker(entry, field)
    attributes: dict[str, Any] = {
        GEN_AI_AGENT_NAME: who_and_when_agent(speaker),
        OUTPUT_VALUE: content,
        OUTPUT_MIME_TYPE: MIME_TYPE_TEXT,
        "who_and_when.index": index,
    }
    if isinstance(entry.get("role"), str):
        attributes["who_and_when.role"] = entry["role"]
    start = (index + 1) * _STEP_NS
    return Span(
        trace_id=trace_id,
        span_id=f"message-{index}",
        parent_id=ROOT_SPAN_ID,
        name=speaker,
        kind="agent",
        start_ns=start,
        end_ns=start + _STEP_NS // 2,
        attributes=attributes,
    )


def _speaker(entry: dict[str, Any], field: str) -> str:
    """The entry's ``name``, else its ``role`` (the paper reads ``name`` for generated teams,
    ``role`` for hand-crafted ones, where ``name`` is absent)."""
    for key in ("name", "role"):
        value = entry.get(key)
        if isinstance(value, str) and value.strip():
            return value
    raise RecordError("a history entry names its speaker in 'name' or 'role'", field=field)


def _mistake(record: JsonRecord, trace: Trace, source: str) -> WhoAndWhenMistake | None:
    """The log's label; None when it has none (neither ``mistake_agent`` nor ``mistake_step``)."""
    log = _log(record)
    at = record.path
    if "mistake_agent" not in log and "mistake_step" not in log:
        return None
    agent = log.get("mistake_agent")
    if not isinstance(agent, str) or not agent.strip():
        raise RecordError(
            f"mistake_agent must be non-empty text, not {json_kind(agent)}",
            field=_field(at, "mistake_agent"),
        )
    index = _step_index(log.get("mistake_step"), _field(at, "mistake_step"))
    steps = len(trace.spans) - 1
    if index >= steps:
        raise RecordError(
            f"mistake_step {index} is past the last of the {steps} history entries (0-based)",
            field=_field(at, "mistake_step"),
        )
    texts = {key: _optional_text(log, key, at) for key in ("mistake_reason", "mistake_type")}
    # One published file writes its mistake type under "labels".
    mistake_type = texts["mistake_type"] or _optional_text(log, "labels", at)
    return WhoAndWhenMistake(
        trace_id=trace.trace_id,
        agent=agent,
        step=index + 1,
        reason=texts["mistake_reason"] or "",
        folder=_folder_and_stem(source)[0],
        mistake_type=mistake_type,
    )


def _optional_text(log: dict[str, Any], key: str, at: str) -> str | None:
    value = log.get(key)
    if value is None or isinstance(value, str):
        return value
    raise RecordError(f"{key} must be text, not {json_kind(value)}", field=_field(at, key))


def _step_index(value: Any, field: str) -> int:
    """``mistake_step``: a 0-based index, written as text (``"12"``) in the published files."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise RecordError(
        f"mistake_step must be a 0-based index (a number, or digits as text), not {value!r}",
        field=field,
    )
