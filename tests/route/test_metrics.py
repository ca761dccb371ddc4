"""Routing metrics: denominators stated, guarded queries kept, labels read only here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import trailcheck.route
from tests.route.shop import catalog, gate, taxonomy, training
from trailcheck.errors import RecordError
from trailcheck.route import (
    EvalQuery,
    build_gate,
    evaluate_routing,
    load_queries,
    sample_path,
)

ROUTE_DIR = Path(trailcheck.route.__file__).parent
LABEL_MODULES = {"metrics.py"}


def test_expected_labels_are_read_only_by_the_metrics_module() -> None:
    readers = set()
    for module in ROUTE_DIR.rglob("*.py"):
        if re.search(r"expected_(route|tool)", module.read_text(encoding="utf-8")):
            readers.add(module.name)
    assert readers == LABEL_MODULES


def test_the_sample_evaluation_states_every_denominator() -> None:
    queries = load_queries(sample_path("queries"))
    result = evaluate_routing(gate(), queries, k=2)
    m = result.metrics
    tool_queries = sum(q.expected_tool is not None for q in queries)
    assert m["route_accuracy"].of == len(queries) == result.queries
    assert m["hit_at_1"].of == m["hit_at_k"].of == tool_queries
    assert m["coverage"].of == m["task_success"].of == len(queries)
    assert m["correct_executions"].of == m["decisions"]["execute"]
    assert sum(m["decisions"].values()) == len(queries)
    assert m["route_accuracy"].value == 1.0
    assert m["hit_at_1"].value == 1.0
    assert m["incorrect_executions"].count == 0
    guarded = sum(m["stopped_by_guard"].values())
    assert (
        guarded
        == m["decisions"]["confirm"] + m["decisions"]["abstain"] + m["decisions"]["human_fallback"]
    )
    assert guarded >= 1


def test_a_query_stopped_by_a_guard_still_counts_in_retrieval() -> None:
    unsure = EvalQuery("Good morning, is my order shipped? hello thanks", "AGENT", "track_order")
    result = evaluate_routing(gate(), [unsure], k=2)
    row = result.rows[0]
    assert row.routing.decision.action != "execute"
    assert result.metrics["hit_at_k"].of == 1
    assert result.metrics["task_success"].of == 1


def test_the_confusion_matrix_has_every_cell() -> None:
    queries = [EvalQuery("Hello!", "FAST_PATH", None), EvalQuery("Hi", "SMALLTALK", None)]
    confusion = evaluate_routing(gate(), queries).metrics["confusion"]
    routes = ["AGENT", "FAST_PATH", "SMALLTALK"]
    assert list(confusion) == routes
    assert all(list(row) == routes for row in confusion.values())
    assert confusion["FAST_PATH"]["FAST_PATH"] == 1
    assert confusion["SMALLTALK"]["AGENT"] + confusion["SMALLTALK"]["FAST_PATH"] == 1


def test_an_expected_tool_outside_the_catalog_is_named() -> None:
    with pytest.raises(RecordError, match="query 0: tool 'fly_to_mars'"):
        evaluate_routing(gate(), [EvalQuery("fly me", "AGENT", "fly_to_mars")])


def test_a_bad_query_file_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    path.write_text(json.dumps([{"query": "hi", "expected_route": ""}]))
    with pytest.raises(RecordError) as caught:
        load_queries(path)
    assert caught.value.field == "expected_route"


def test_decisions_are_identical_across_two_runs() -> None:
    queries = load_queries(sample_path("queries"))
    first = evaluate_routing(build_gate(catalog(), taxonomy(), training()), queries)
    second = evaluate_routing(build_gate(catalog(), taxonomy(), training()), queries)
    assert [r.routing for r in first.rows] == [r.routing for r in second.rows]
    assert first.economics == second.economics


def test_economics_against_the_everything_to_the_model_baseline() -> None:
    result = evaluate_routing(gate(), load_queries(sample_path("queries")))
    e = result.economics
    n = result.queries
    assert e.baseline_cost_usd == pytest.approx(n * (600 + 40 * 120) / 1000 * 0.0025)
    assert e.gate_cost_usd < e.baseline_cost_usd
    assert e.gate_task_success == result.metrics["task_success"].value
    fallbacks = result.metrics["decisions"]["human_fallback"]
    assert e.human_fallbacks == fallbacks
    assert e.break_even_human_cost_usd == pytest.approx(
        (e.baseline_cost_usd - e.gate_cost_usd) / fallbacks
    )
    assert "break-even" in e.reason
