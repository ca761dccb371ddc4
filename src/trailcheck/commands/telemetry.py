"""``--emit-otel ENDPOINT`` and ``--emit-otel-header KEY=VALUE``, shared by ``trailcheck score``
and ``trailcheck run`` (declared in :mod:`trailcheck.commands.options`): the target they name,
and the one line the export prints.

The target is checked before any work (a bad URL or header is a usage error, exit 2); the export
itself is best effort and never changes the exit code (:mod:`trailcheck.telemetry.otlp_http`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from rich.console import Console

from trailcheck.errors import UsageError
from trailcheck.report.otel_results import EvaluationResult, emit_results, new_run_id
from trailcheck.telemetry.otlp_http import OtlpTarget, logs_target

__all__ = ["emit", "emit_target"]


def emit_target(endpoint: str | None, headers: Sequence[str] | None) -> OtlpTarget | None:
    """The target the options name, or ``None`` when ``--emit-otel`` was not given."""
    if endpoint is None:
        if headers:
            raise UsageError("--emit-otel-header needs --emit-otel")
        return None
    return logs_target(endpoint, headers or (), os.environ)


def emit(results: Sequence[EvaluationResult], target: OtlpTarget, console: Console) -> None:
    """Send ``results`` and print one line: what was sent, or the warning."""
    run_id = new_run_id()
    outcome = emit_results(results, target, run_id=run_id)
    if outcome.problem is None:
        console.print(f"{outcome.message} (trailcheck.run.id {run_id})", markup=False)
    else:
        console.print(outcome.message, style="yellow", markup=False)
