"""An online evaluator's execution as data: the execution itself as a trailcheck trace (kept
with its row, so a run of an evaluator opens like any trace), and the finding label a failure
is kept under."""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import Any

from trailcheck.trace import Trace
from trailcheck.trace.span import ModelInvocation, Span, Status, Usage

__all__ = ["execution_trace", "failure_label"]

_LABEL_CHARACTERS = re.compile(r"[^a-z0-9_]+")


def execution_trace(row: Mapping[str, Any], reason: str | None) -> Trace:
    """An execution as a trailcheck trace: one span for the evaluator's run (and, for a judge,
    the model call's model and tokens), so it can be opened and exported like any trace."""
    trace_id = uuid.uuid4().hex
    start, end = row["started_ns"], row["started_ns"] + row["duration_ns"]
    failed = row["outcome"] in ("crashed", "gave_up", "retry")
    usage = None
    if row["input_tokens"] is not None or row["output_tokens"] is not None:
        usage = Usage(input_tokens=row["input_tokens"], output_tokens=row["output_tokens"])
    llm = ModelInvocation(model=row["model"], usage=usage) if row["kind"] == "judge" else None
    attributes = {
        f"trailcheck.online.{key}": row[key]
        for key in ("name", "version", "trace_id", "attempt", "worker", "outcome", "input_digest")
    }
    span = Span(
        trace_id=trace_id,
        span_id=trace_id[:16],
        name=f"online.evaluate {row['name']}",
        kind="llm" if llm is not None else "other",
        start_ns=start,
        end_ns=end,
        status=Status(code="error", message=reason) if failed else Status(code="ok"),
        attributes=attributes,
        llm=llm,
    )
    return Trace(
        trace_id=trace_id,
        input=f"{row['name']}@{row['version']} on trace {row['trace_id']}",
        final_output={"outcome": row["outcome"], "reason": reason},
        spans=[span],
        metadata={"trailcheck.online.execution": True},
        usage=usage,
    )


def failure_label(text: str) -> str:
    """``text`` as a finding's label: lowercase letters, digits and underscores, from a
    letter (a judge's failure mode is free text)."""
    label = _LABEL_CHARACTERS.sub("_", text.lower()).strip("_")[:120]
    return label if label[:1].isalpha() else f"online_{label}"[:120].rstrip("_")
