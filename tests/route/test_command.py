"""``trailcheck route eval`` through typer: text, JSON with provenance, steady state, errors,
and the real 285-tool catalog with the taxonomy in benchmarks/data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from trailcheck.commands.route import route_app
from trailcheck.errors import InputError
from trailcheck.route import sample_path

REPO_ROOT = Path(__file__).resolve().parents[2]
TAXONOMY = REPO_ROOT / "benchmarks" / "data" / "case-agents-taxonomy.json"

app = typer.Typer()
app.add_typer(route_app, name="route")
runner = CliRunner()


def _sample_args() -> list[str]:
    return [
        "route",
        "eval",
        "--catalog",
        str(sample_path("catalog")),
        "--taxonomy",
        str(sample_path("taxonomy")),
        "--train",
        str(sample_path("train")),
        "--queries",
        str(sample_path("queries")),
    ]


def _run(args: list[str]) -> tuple[int, str]:
    result = runner.invoke(app, args, catch_exceptions=False)
    return result.exit_code, result.output


def test_the_summary_states_rates_with_denominators() -> None:
    code, output = _run(_sample_args())
    assert code == 0
    assert "route_accuracy\t18/18=1.000" in output
    assert "hit_at_1\t13/13=1.000" in output
    assert "break-even" in output


def test_json_carries_metrics_rows_and_provenance() -> None:
    code, output = _run([*_sample_args(), "--json", "--k", "3"])
    assert code == 0
    data = json.loads(output)
    metrics = data["metrics"]
    for key in (
        "route_accuracy",
        "hit_at_1",
        "hit_at_k",
        "coverage",
        "task_success",
        "correct_executions",
        "incorrect_executions",
        "confusion",
        "calibration",
    ):
        assert key in metrics, key
    assert metrics["k"] == 3
    assert metrics["denominators"]["hit_at_k"] == {"count": 13, "of": 13}
    row = data["rows"][0]
    assert set(row) >= {"query", "predicted_route", "confidence", "top_k", "decision"}
    assert len(row["top_k"]) <= 3
    assert {"capability", "score", "variant"} <= set(row["top_k"][0])
    assert "guard" in row["decision"]
    provenance = data["provenance"]
    assert {"generated_at", "commit", "changed_outside_report"} <= set(provenance)
    assert data["economics"]["catalog_tools"] == 40


def _without_time(data: dict[str, Any]) -> dict[str, Any]:
    kept = dict(data)
    kept["provenance"] = {
        k: v
        for k, v in data["provenance"].items()
        if k not in ("generated_at", "previous_report_findings")
    }
    return kept


def test_regenerating_the_report_is_a_steady_state(tmp_path: Path) -> None:
    out = tmp_path / "reports" / "route.json"
    assert _run([*_sample_args(), "--out", str(out)])[0] == 0
    first = json.loads(out.read_text())
    assert "previous_report_findings" not in first["provenance"]
    assert _run([*_sample_args(), "--out", str(out)])[0] == 0
    second = json.loads(out.read_text())
    assert "previous_report_findings" in second["provenance"]
    assert _without_time(first) == _without_time(second)


def test_an_unknown_scorer_is_a_usage_error_and_a_missing_file_an_input_error(
    tmp_path: Path,
) -> None:
    code, output = _run([*_sample_args(), "--scorer", "dense"])
    assert code == 2
    assert "'dense' is not one of 'tfidf', 'bm25'" in " ".join(output.replace("│", " ").split())
    args = _sample_args()
    args[args.index("--catalog") + 1] = str(tmp_path / "absent.json")
    with pytest.raises(InputError, match=r"absent\.json: cannot read"):
        runner.invoke(app, args, catch_exceptions=False)


def test_the_real_taxonomy_names_only_catalog_tools_once() -> None:
    taxonomy = json.loads(TAXONOMY.read_text(encoding="utf-8"))
    variants = [v for body in taxonomy.values() for v in body["variants"]]
    assert len(variants) == len(set(variants)) == 285
    assert {body["direction"] for body in taxonomy.values()} == {"read", "write", "none"}


@pytest.mark.external
@pytest.mark.parametrize("scorer", ["tfidf", "bm25"])
def test_eval_on_the_real_catalog_is_sane(external: Path, scorer: str) -> None:
    folder = external / "case-agents"
    if not folder.is_dir():
        pytest.skip(f"case-agents material not present at {folder}")
    code, output = _run(
        [
            "route",
            "eval",
            "--json",
            "--scorer",
            scorer,
            "--catalog",
            str(folder / "tools_registry.json"),
            "--taxonomy",
            str(TAXONOMY),
            "--train",
            str(folder / "router_training_data.json"),
            "--queries",
            str(folder / "eval_dataset.json"),
        ]
    )
    assert code == 0
    data = json.loads(output)
    m = data["metrics"]
    print(
        scorer,
        {
            k: m[k]
            for k in (
                "route_accuracy",
                "hit_at_1",
                "hit_at_k",
                "coverage",
                "task_success",
                "incorrect_executions",
            )
        },
    )
    assert m["denominators"]["route_accuracy"]["of"] == 30
    assert m["denominators"]["hit_at_1"]["of"] == 20
    assert m["route_accuracy"] >= 0.9
    assert m["hit_at_1"] >= 0.9
    assert m["hit_at_k"] >= 0.95
    assert m["incorrect_executions"] <= 0.1
    assert m["coverage"] >= 0.8
    calibration = m["calibration"]
    assert calibration["calibrated"]["brier"] < calibration["raw"]["brier"]
    economics = data["economics"]
    assert economics["gate_cost_usd"] < economics["baseline_cost_usd"] / 10
    read_rows = [r for r in data["rows"] if r["direction"] == "read"]
    assert read_rows
    assert all(c["direction"] != "write" for r in read_rows for c in r["top_k"])


def test_fail_on_incorrect_exits_1_only_when_an_execution_is_wrong(tmp_path: Path) -> None:
    queries = tmp_path / "queries.json"
    queries.write_text(
        json.dumps(
            [
                {
                    "query": "Cancel my subscription so it does not renew",
                    "expected_route": "AGENT",
                    "expected_tool": "tell_joke",
                },
            ]
        )
    )
    args = _sample_args()
    args[args.index("--queries") + 1] = str(queries)
    assert _run([*args, "--fail-on-incorrect"])[0] == 1
    assert _run(args)[0] == 0
    assert _run([*_sample_args(), "--fail-on-incorrect"])[0] == 0
