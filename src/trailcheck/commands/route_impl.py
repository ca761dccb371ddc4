"""What ``trailcheck route eval`` does (its options: :mod:`trailcheck.commands.route`): the
pre-LLM gate measured on labelled queries.

Loads a catalog, a taxonomy, router training messages and labelled queries; builds the gate;
routes every query; prints the metrics (or, with ``--json``, the metrics, the economics and one
row per query). ``--out FILE`` also writes that JSON to ``FILE``. The JSON carries a provenance
block: when it was generated, the commit, and whether any tracked file outside the report
differs from that commit (the audit's :func:`~trailcheck.audit.check_provenance` reads the
same record). Given an ``--out`` that already holds a report, the command first checks that
report's provenance and says whether it is stale, then regenerates it. Exit 0; with
``--fail-on-incorrect``, exit 1 when any execution picked the wrong capability.
"""

from __future__ import annotations

import subprocess
from dataclasses import asdict, is_dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import typer

from trailcheck.audit import check_provenance
from trailcheck.commands.route import RouteEvalRequest
from trailcheck.errors import EXIT_FAILED, InputError
from trailcheck.route import (
    FieldWeights,
    RouteEvaluation,
    Thresholds,
    build_gate,
    evaluate_routing,
    load_catalog,
    load_queries,
    load_taxonomy,
    load_training,
)
from trailcheck.route.metrics import QueryRow, Rate
from trailcheck.run.manifest import git_commit
from trailcheck.run.results import RunReport
from trailcheck.run.stats import summarize_outcomes

REPORT_SCHEMA = "trailcheck.route.eval/1"


def _plain(value: Any) -> Any:
    if isinstance(value, Rate):
        return value.value
    if is_dataclass(value) and not isinstance(value, type):
        return {k: _plain(v) for k, v in asdict(value).items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(value)
    return value


def _denominators(metrics: dict[str, Any]) -> dict[str, dict[str, int]]:
    return {k: {"count": v.count, "of": v.of} for k, v in metrics.items() if isinstance(v, Rate)}


def _row(row: QueryRow) -> dict[str, Any]:
    routing = row.routing
    return {
        "query": row.query,
        "expected_route": row.expected_route,
        "expected_tool": row.expected_tool,
        "expected_capability": row.expected_capability,
        "predicted_route": routing.prediction.route,
        "confidence": routing.prediction.confidence,
        "direction": routing.direction,
        "direction_reason": routing.direction_reason,
        "top_k": [
            {
                "capability": c.capability,
                "score": c.score,
                "variant": c.variant,
                "direction": c.direction,
                "reason": c.reason,
            }
            for c in routing.candidates
        ],
        "decision": _plain(routing.decision),
    }


def _git(arguments: list[str]) -> str | None:
    try:
        done = subprocess.run(
            ["git", *arguments], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _changed_outside(report: Path | None) -> list[str] | None:
    """Tracked files that differ from HEAD, the report excluded; None when git cannot tell."""
    top = _git(["rev-parse", "--show-toplevel"])
    if top is None:
        return None
    root = Path(top.strip())
    exclude: list[str] = []
    if report is not None and report.resolve().is_relative_to(root):
        exclude = [f":(top,exclude){report.resolve().relative_to(root).as_posix()}"]
    status = _git(["status", "--porcelain", "--untracked-files=no", "--", ":(top)", *exclude])
    if status is None:
        return None
    return sorted(line[3:] for line in status.splitlines() if line.strip())


def _findings(commit: str, dirty: bool, folder: Path) -> list[dict[str, Any]]:
    record = RunReport(
        manifest={"git": {"commit": commit, "dirty": dirty}},
        summary=summarize_outcomes({}),
        review_statuses={},
        cases=[],
    )
    return [f.model_dump(mode="json") for f in check_provenance(record, folder)]


def provenance(report: Path | None) -> dict[str, Any]:
    """generated_at, the commit, and the files outside ``report`` changed since that commit."""
    git = git_commit()
    changed = _changed_outside(report)
    block: dict[str, Any] = {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": None if git is None else git["commit"],
        "changed_outside_report": changed,
        "clean_outside_report": None if changed is None else not changed,
    }
    if block["commit"] is not None and changed is not None:
        folder = Path.cwd()
        top = _git(["rev-parse", "--show-toplevel"])
        if report is not None and top and report.resolve().is_relative_to(top.strip()):
            folder = report.resolve().parent
        block["findings"] = _findings(str(block["commit"]), bool(changed), folder)
    return block


def previous_report_findings(path: Path) -> list[dict[str, Any]] | None:
    """The provenance findings of the report already at ``path`` (None when there is none)."""
    if not path.is_file():
        return None
    try:
        old = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as error:
        raise InputError(f"{path}: not a route report: {error}") from error
    block = old.get("provenance") if isinstance(old, dict) else None
    commit = block.get("commit") if isinstance(block, dict) else None
    if not isinstance(commit, str):
        return [{"check": "provenance_unchecked", "message": "the report records no commit"}]
    dirty = block.get("clean_outside_report") is False if isinstance(block, dict) else False
    return _findings(commit, dirty, path.resolve().parent)


def report_json(
    evaluation: RouteEvaluation, settings: dict[str, Any], report: Path | None
) -> dict[str, Any]:
    """The whole report as JSON-ready data (see the module doc)."""
    return {
        "schema": REPORT_SCHEMA,
        "provenance": provenance(report),
        "settings": settings,
        "metrics": {
            "queries": evaluation.queries,
            "k": evaluation.k,
            **_plain(evaluation.metrics),
            "denominators": _denominators(evaluation.metrics),
        },
        "economics": _plain(evaluation.economics),
        "rows": [_row(r) for r in evaluation.rows],
    }


def render_summary(evaluation: RouteEvaluation) -> str:
    """A few lines: each rate with its count and denominator, then the economics."""
    lines = [f"{evaluation.queries} queries, k={evaluation.k}"]
    for name, value in evaluation.metrics.items():
        if isinstance(value, Rate):
            shown = "n/a" if value.value is None else f"{value.value:.3f}"
            lines.append(f"{name}\t{value.count}/{value.of}={shown}")
    lines.append(f"decisions\t{evaluation.metrics['decisions']}")
    lines.append(f"stopped_by_guard\t{evaluation.metrics['stopped_by_guard']}")
    calibration = evaluation.metrics["calibration"]
    for kind in ("raw", "calibrated"):
        lines.append(
            f"calibration {kind}\tbrier={calibration[kind]['brier']:.4f}"
            f" ece={calibration[kind]['ece']:.4f}"
        )
    lines.append(f"economics\t{evaluation.economics.reason}")
    return "\n".join(lines)


def eval_command(request: RouteEvalRequest) -> None:
    """The body of :func:`trailcheck.commands.route.eval_command`."""
    catalog, taxonomy, train, queries = (
        request.catalog,
        request.taxonomy,
        request.train,
        request.queries,
    )
    k, chosen, out = request.k, request.scorer, request.out
    thresholds = Thresholds()
    gate = build_gate(
        load_catalog(catalog),
        load_taxonomy(taxonomy),
        load_training(train),
        scorer=chosen,
        thresholds=thresholds,
    )
    evaluation = evaluate_routing(gate, load_queries(queries), k=k)
    settings = {
        "k": k,
        "scorer": chosen,
        "thresholds": _plain(thresholds),
        "field_weights": _plain(FieldWeights()),
        "files": {
            "catalog": catalog.name,
            "taxonomy": taxonomy.name,
            "train": train.name,
            "queries": queries.name,
        },
    }
    previous = None if out is None else previous_report_findings(out)
    data = report_json(evaluation, settings, out)
    if previous is not None:
        data["provenance"]["previous_report_findings"] = previous
    text = orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n", encoding="utf-8")
    typer.echo(text if request.as_json else render_summary(evaluation))
    if request.fail_on_incorrect and evaluation.metrics["incorrect_executions"].count:
        raise typer.Exit(EXIT_FAILED)
