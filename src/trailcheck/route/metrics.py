"""Routing metrics: the only module that reads the expected labels of a query set.

A query file is a JSON list of ``{query, expected_route, expected_tool}``; ``expected_tool``
is null for a route without a tool, and otherwise names a catalog tool (canonical or variant),
counted by its capability. :func:`evaluate_routing` runs the gate on every query, without
showing it the labels, and only then compares. Every rate carries its denominator:

- route accuracy over all queries, with a confusion matrix whose every cell is present;
- hit@1 and hit@k over the queries with an expected tool, *all* of them: a query stopped by a
  guard, or routed away from the agent, still counts, with the capabilities retrieval ranked;
- executions correct and incorrect over the executions, fast paths over the fast paths;
- abstentions, confirmations and fallbacks by the guard that fired;
- coverage (handled without a person or a question: fast path or execute) and task success
  (a correct fast path or a correct execution) over all queries;
- calibration of the route probabilities on the queries: Brier, ECE and the reliability table,
  for the calibrated and the raw probabilities, beside the same on the training folds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trailcheck.errors import InputError, RecordError
from trailcheck.route.calibration import (
    brier_score,
    expected_calibration_error,
    reliability_table,
)
from trailcheck.route.catalog import read_json
from trailcheck.route.economics import CostModel, Economics, estimate_economics
from trailcheck.route.gate import RouteGate, Routing

__all__ = ["EvalQuery", "QueryRow", "Rate", "RouteEvaluation", "evaluate_routing", "load_queries"]


@dataclass(frozen=True)
class EvalQuery:
    query: str
    expected_route: str
    expected_tool: str | None


@dataclass(frozen=True)
class QueryRow:
    """One query: what was expected, and what the gate did."""

    query: str
    expected_route: str
    expected_tool: str | None
    expected_capability: str | None
    routing: Routing


@dataclass(frozen=True)
class Rate:
    count: int
    of: int
    value: float | None


@dataclass(frozen=True)
class RouteEvaluation:
    k: int
    queries: int
    metrics: dict[str, Any]
    economics: Economics
    rows: list[QueryRow]


def _field(entry: dict[str, Any], key: str, where: str, index: int) -> str | None:
    value = entry.get(key)
    if key == "expected_tool" and value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        nullable = " or null" if key == "expected_tool" else ""
        raise RecordError(
            f"query {index}: must be a non-empty string{nullable}", source=where, field=key
        )
    return value


def load_queries(path: Path) -> list[EvalQuery]:
    """The labelled queries of a query file."""
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of queries")
    queries: list[EvalQuery] = []
    for index, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise RecordError(f"query {index}: expected an object", source=str(path))
        text = _field(entry, "query", str(path), index)
        route = _field(entry, "expected_route", str(path), index)
        assert text is not None
        assert route is not None
        queries.append(EvalQuery(text, route, _field(entry, "expected_tool", str(path), index)))
    return queries


def _rate(count: int, of: int) -> Rate:
    return Rate(count, of, count / of if of else None)


def _expected_capability(gate: RouteGate, query: EvalQuery, index: int) -> str | None:
    if query.expected_tool is None:
        return None
    of_tool = gate.index.capabilities.of_tool
    if query.expected_tool not in of_tool:
        raise RecordError(
            f"query {index}: tool {query.expected_tool!r} is not in the catalog",
            field="expected_tool",
        )
    return of_tool[query.expected_tool]


def _confusion(rows: Sequence[QueryRow], routes: Sequence[str]) -> dict[str, dict[str, int]]:
    cells = Counter((r.expected_route, r.routing.prediction.route) for r in rows)
    return {e: {p: cells[(e, p)] for p in routes} for e in routes}


def _retrieval(rows: Sequence[QueryRow], k: int) -> dict[str, Rate]:
    tool_rows = [r for r in rows if r.expected_capability is not None]
    top = [[c.capability for c in r.routing.candidates] for r in tool_rows]
    hits1 = sum(
        bool(t) and t[0] == r.expected_capability for t, r in zip(top, tool_rows, strict=True)
    )
    hitsk = sum(r.expected_capability in t[:k] for t, r in zip(top, tool_rows, strict=True))
    return {"hit_at_1": _rate(hits1, len(tool_rows)), "hit_at_k": _rate(hitsk, len(tool_rows))}


def _is_correct(row: QueryRow) -> bool:
    decision = row.routing.decision
    if decision.action == "fast_path":
        return row.routing.prediction.route == row.expected_route and row.expected_tool is None
    if decision.action == "execute":
        return decision.capability == row.expected_capability
    return False


def _decisions(rows: Sequence[QueryRow]) -> dict[str, Any]:
    by_action = Counter(r.routing.decision.action for r in rows)
    by_guard = Counter(
        f"{r.routing.decision.guard}:{r.routing.decision.action}"
        for r in rows
        if r.routing.decision.guard is not None
    )
    executed = [r for r in rows if r.routing.decision.action == "execute"]
    fast = [r for r in rows if r.routing.decision.action == "fast_path"]
    confirmed = [r for r in rows if r.routing.decision.action == "confirm"]
    correct_exec = sum(_is_correct(r) for r in executed)
    correct_fast = sum(_is_correct(r) for r in fast)
    confirm_right = sum(r.expected_capability in r.routing.decision.candidates for r in confirmed)
    n = len(rows)
    return {
        "decisions": {
            a: by_action.get(a, 0)
            for a in ("fast_path", "execute", "confirm", "abstain", "human_fallback")
        },
        "stopped_by_guard": dict(sorted(by_guard.items())),
        "correct_executions": _rate(correct_exec, len(executed)),
        "incorrect_executions": _rate(len(executed) - correct_exec, len(executed)),
        "correct_fast_paths": _rate(correct_fast, len(fast)),
        "confirmations_offering_expected": _rate(confirm_right, len(confirmed)),
        "coverage": _rate(len(executed) + len(fast), n),
        "task_success": _rate(correct_exec + correct_fast, n),
    }


def _calibration(gate: RouteGate, queries: Sequence[EvalQuery]) -> dict[str, Any]:
    routes = gate.router.routes
    texts = [q.query for q in queries]
    known = [i for i, q in enumerate(queries) if q.expected_route in routes]
    truth = [routes.index(queries[i].expected_route) for i in known]
    out: dict[str, Any] = {"denominator": f"{len(known)} queries with a route the router knows"}
    fitted = gate.router.fit
    sources = {
        "calibrated": gate.router.probabilities(texts)[known],
        "raw": gate.router.raw_probabilities(texts)[known],
    }
    for name, probabilities in sources.items():
        confidence = probabilities.max(axis=1)
        correct = probabilities.argmax(axis=1) == truth
        table = reliability_table(confidence.tolist(), correct.tolist())
        out[name] = {
            "brier": brier_score(probabilities, truth),
            "ece": expected_calibration_error(table),
            "reliability": table,
        }
    training: dict[str, Any] = {
        "folds": fitted.folds,
        "calibrated": fitted.calibrated,
        "reason": fitted.reason,
        "note": "the scalers were fitted on these same out-of-fold scores: the calibrated "
        "figures here are optimistic; the query-set figures above are held out",
    }
    for name, oof in (("raw", fitted.oof_raw), ("calibrated", fitted.oof_calibrated)):
        confidence = [max(row) for row in oof]
        correct = [row.index(max(row)) == t for row, t in zip(oof, fitted.oof_truth, strict=True)]
        table = reliability_table(confidence, correct)
        training[name] = {
            "brier": brier_score(list(oof), list(fitted.oof_truth)),
            "ece": expected_calibration_error(table),
        }
    out["training_out_of_fold"] = training
    return out


def _tools_sent(row: QueryRow) -> int:
    decision = row.routing.decision
    if decision.action == "execute":
        return 1
    return len(decision.candidates) if decision.action == "confirm" else 0


def evaluate_routing(
    gate: RouteGate, queries: Sequence[EvalQuery], k: int = 2, cost: CostModel | None = None
) -> RouteEvaluation:
    """Route every query with ``gate`` (labels unseen), then measure; see the module doc."""
    expected = [_expected_capability(gate, q, i) for i, q in enumerate(queries)]
    rows = [
        QueryRow(q.query, q.expected_route, q.expected_tool, cap, gate.route(q.query, k=k))
        for q, cap in zip(queries, expected, strict=True)
    ]
    routes = sorted(set(gate.router.routes) | {q.expected_route for q in queries})
    correct_routes = sum(r.routing.prediction.route == r.expected_route for r in rows)
    metrics: dict[str, Any] = {
        "route_accuracy": _rate(correct_routes, len(rows)),
        "confusion": _confusion(rows, routes),
        **_retrieval(rows, k),
        **_decisions(rows),
        "calibration": _calibration(gate, queries),
    }
    sent: dict[str, list[int]] = {}
    for row in rows:
        sent.setdefault(row.routing.decision.action, []).append(_tools_sent(row))
    success = metrics["task_success"].value or 0.0
    economics = estimate_economics(sent, len(gate.index.capabilities.of_tool), success, cost)
    return RouteEvaluation(k=k, queries=len(rows), metrics=metrics, economics=economics, rows=rows)
