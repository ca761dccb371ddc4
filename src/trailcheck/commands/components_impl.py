"""What ``trailcheck components`` does (its options: :mod:`trailcheck.commands.components`): the
span scores of the store, or of trace files scored now, read into each component's rates, and
printed as a table (a trend line of the windows' success rates) or as JSON."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, Final

from rich.box import SIMPLE_HEAD
from rich.table import Table

from trailcheck.cases import Case, load_dataset
from trailcheck.commands.components import ComponentsRequest
from trailcheck.commands.import_summary import print_rejections
from trailcheck.commands.output import print_json, stderr, stdout
from trailcheck.commands.store_commands_impl import open_store
from trailcheck.components import ComponentRate, ComponentRates, SpanScore, component_rates
from trailcheck.components import score_spans as score_trace_spans
from trailcheck.errors import UsageError
from trailcheck.importing.importer import ImportSummary, iter_import
from trailcheck.online.fields import iso
from trailcheck.online.periods import parse_since, parse_window
from trailcheck.terminal_text import shown

__all__ = ["components_command", "rates_json", "trend_text"]

# A window's success rate as one of eight bars, lowest to highest.
_BARS: Final = "▁▂▃▄▅▆▇█"
# The latest windows a trend shows, so a row stays one line.
_TREND_WINDOWS: Final = 16
# The error kinds a row names; the rest are counted.
_SHOWN_ERRORS: Final = 3


def components_command(request: ComponentsRequest) -> None:
    """The body of :func:`trailcheck.commands.components.components_command`."""
    now = time.time_ns()
    since_ns = None if request.since is None else parse_since(request.since, now)
    window_ns = None if request.window is None else parse_window(request.window)
    files = request.traces or []
    if files and request.db is not None:
        raise UsageError("read trace files or the store (--db), not both")
    if files and request.backfill:
        raise UsageError("--backfill scores the store's traces, not trace files")
    if not files and request.dataset is not None:
        raise UsageError(
            "--dataset goes with trace files: the store scored its traces at ingest, without cases"
        )
    if not files and request.format_name is not None:
        raise UsageError("--format names the format of trace files; the store holds traces")
    summary = ImportSummary()
    if files:
        cases = {} if request.dataset is None else _cases(request)
        scores = _file_scores(request, cases, summary)
        rates = component_rates(scores, since_ns=since_ns, window_ns=window_ns, level=request.level)
        where = f"{len(files)} trace file(s)"
    else:
        with open_store(request.db, must_exist=True) as store:
            if request.backfill:
                done = store.backfill_span_scores()
                stderr.print(
                    f"backfill: {done.spans} span(s) of {done.traces} trace(s) scored",
                    markup=False,
                )
            rates = component_rates(
                store.span_scores(since_ns=since_ns),
                since_ns=since_ns,
                window_ns=window_ns,
                level=request.level,
            )
            where = store.url
    if request.as_json:
        print_json(rates_json(rates))
    else:
        _print_rates(rates, where)
    print_rejections(summary.rejections)


def _cases(request: ComponentsRequest) -> dict[str, Case]:
    assert request.dataset is not None
    return {case.id: case for case in load_dataset(request.dataset).cases}


def _file_scores(
    request: ComponentsRequest, cases: dict[str, Case], summary: ImportSummary
) -> Iterator[SpanScore]:
    for trace in iter_import(
        request.traces or [], format_name=request.format_name, summary=summary
    ):
        case_id = trace.metadata.get("case_id")
        case = cases.get(case_id) if isinstance(case_id, str) else None
        yield from score_trace_spans(trace, case)


def rates_json(rates: ComponentRates) -> dict[str, Any]:
    """The rates as JSON, each time also as UTC ISO 8601 text (``since``, a window's ``start``
    and ``end``)."""
    document = rates.model_dump(mode="json")
    document["since"] = None if rates.since_ns is None else iso(rates.since_ns)
    for component in document["components"]:
        for window in component["windows"]:
            window["start"] = iso(window["start_ns"])
            window["end"] = iso(window["end_ns"])
    return document


def trend_text(rate: ComponentRate) -> str:
    """The latest windows' success rates as bars (``▇██▃``), oldest first; ``-`` without
    windows."""
    windows = rate.windows[-_TREND_WINDOWS:]
    if not windows:
        return "-"
    top = len(_BARS) - 1
    return "".join(_BARS[round(window.success_rate * top)] for window in windows)


def _number(value: float | None, form: str = ".3f") -> str:
    return "-" if value is None else format(value, form)


def _errors(rate: ComponentRate) -> str:
    kinds = list(rate.error_kinds.items())
    text = ", ".join(f"{shown(kind)} {count}" for kind, count in kinds[:_SHOWN_ERRORS])
    more = len(kinds) - _SHOWN_ERRORS
    return text + (f" +{more} more" if more > 0 else "") if kinds else "-"


_KIND_HEADINGS: Final = {
    "tool": "tools",
    "agent": "sub-agents",
    "llm": "models",
    "retriever": "retrievers",
}


def _print_rates(rates: ComponentRates, where: str) -> None:
    if not rates.components:
        stdout.print(f"no component call in {where}", markup=False)
        return
    table = Table(box=SIMPLE_HEAD)
    table.add_column("component", overflow="fold", min_width=16)
    table.add_column("calls", justify="right", no_wrap=True)
    table.add_column(f"success [{rates.level:.0%}]", no_wrap=True)
    table.add_column("errors", overflow="fold", min_width=10)
    table.add_column("p50/p95 ms", justify="right", no_wrap=True)
    table.add_column("trend", overflow="crop", max_width=_TREND_WINDOWS)
    kind = None
    for rate in rates.components:
        if rate.kind != kind:
            kind = rate.kind
            table.add_row(_KIND_HEADINGS[kind], style="bold", end_section=False)
        low, high = rate.interval
        bounds = "" if low is None or high is None else f" [{low:.2f}, {high:.2f}]"
        latency = f"{_number(rate.latency_p50_ms, '.0f')}/{_number(rate.latency_p95_ms, '.0f')}"
        table.add_row(
            shown(rate.component),
            str(rate.calls),
            _number(rate.success_rate, ".2f") + bounds,
            _errors(rate),
            latency,
            trend_text(rate),
        )
    if rates.since_ns is not None:
        stdout.print(f"calls started since {iso(rates.since_ns)}", markup=False)
    stdout.print(table)
    stdout.print(
        f"success: calls whose outcome is ok, with the {rates.level:.0%} {rates.method} interval;"
        " trend: the success rate of each window, oldest first",
        markup=False,
        style="dim",
    )
