from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from trailcheck.cli import run_cli
from trailcheck.testing import TraceBuilder
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import dump_trace

pytestmark = pytest.mark.live

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
ADK = [REAL / "adk-2.13.0.traces.json", REAL / "adk-2.13.0.logs.json"]

DATASET = """\
name: shop
cases:
  - id: refund
    input: Refund A-1
    expected_tools: [lookup_order, issue_refund]
"""


def _trace(trace_id: str, *tools: str, case_id: str = "refund") -> Trace:
    builder = TraceBuilder(trace_id, input="Refund A-1")
    for tool in tools:
        builder.tool(tool, {"order_id": "A-1"})
    return builder.output("Refunded.").metadata(case_id=case_id).build()


def _files(tmp_path: Path, *traces: Trace) -> tuple[str, str]:
    dataset = tmp_path / "shop.yaml"
    dataset.write_text(DATASET)
    path = tmp_path / "traces.jsonl"
    path.write_bytes(b"".join(dump_trace(trace) + b"\n" for trace in traces))
    return str(path), str(dataset)


def test_json_grades_name_trace_case_and_every_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _trace("t1", "lookup_order", "issue_refund")
    bad = _trace("t2", "issue_refund")
    traces, dataset = _files(tmp_path, good, bad)
    assert run_cli(["score", traces, "--dataset", dataset, "--json"]) == 1
    grades = orjson.loads(capsys.readouterr().out)
    assert [(g["trace_id"], g["case_id"], g["passed"]) for g in grades] == [
        ("t1", "refund", True),
        ("t2", "refund", False),
    ]
    trajectory = grades[1]["scores"][0]
    assert trajectory == {
        "scorer": "trajectory",
        "value": 0.5,
        "passed": False,
        "threshold": 1.0,
        "reason": "in_order recall 1/2=0.500; precision 1/1=1.000; missing lookup_order",
    }
    # Only the failed entry is attributed: to the refund, before which the lookup was due.
    assert grades[0]["attribution"] is None
    assert grades[1]["attribution"] == {
        "span_id": "span-001",
        "step": 1,
        "name": "issue_refund",
        "category": "wrong_tool",
        "evidence": "lookup_order expected before issue_refund, not called before it",
        "symptom_span_id": None,
    }


def test_all_passing_exits_0_with_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    traces, dataset = _files(tmp_path, _trace("t1", "lookup_order", "issue_refund"))
    assert run_cli(["score", traces, "--dataset", dataset]) == 0
    captured = capsys.readouterr()
    assert "passed" in captured.out
    assert "1/1 traces passed" in captured.err


def test_a_trace_naming_no_known_case_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    traces, dataset = _files(tmp_path, _trace("t9", "lookup_order", case_id="nope"))
    assert run_cli(["score", traces, "--dataset", dataset]) == 2
    assert "no case in" in capsys.readouterr().err


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_file_of_only_bad_records_lists_them_and_says_nothing_was_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], workers: str
) -> None:
    traces, dataset = _files(tmp_path)
    Path(traces).write_bytes(b"".join(b'{"trace_id": "b%d", "spans": 3}\n' % n for n in range(23)))
    assert run_cli(["score", traces, "--dataset", dataset, "--workers", workers]) == 2
    err = capsys.readouterr().err
    rejected = [line for line in err.splitlines() if line.startswith("rejected: ")]
    assert len(rejected) == 20
    assert rejected[0].startswith(f"rejected: {traces}:1: ")
    assert "... and 3 more rejected records" in err
    assert "nothing scored: every trace was rejected (23 rejected records)" in err
    assert "traces passed" not in err


def test_score_gives_the_hints_of_the_rejections_it_only_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, dataset = _files(tmp_path)
    # OTLP/JSON with base64 ids (tests/test_cli_ids.py): 36 records rejected, one hint a file.
    assert run_cli(["score", *map(str, ADK), "--dataset", dataset]) == 2
    err = capsys.readouterr().err
    assert len([line for line in err.splitlines() if line.startswith("rejected: ")]) == 20
    assert "... and 16 more rejected records" in err
    assert f"hint: {ADK[1]}: it looks like base64" in err
    assert err.count("looks like base64") == 2
    assert "nothing scored: every trace was rejected (36 rejected records)" in err


def test_a_bad_dataset_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    traces, dataset = _files(tmp_path, _trace("t1", "lookup_order"))
    Path(dataset).write_text("name: shop\ncases:\n  - id: x\n    input: hi\n    bogus: 1\n")
    assert run_cli(["score", traces, "--dataset", dataset]) == 2
    assert "bogus" in capsys.readouterr().err


def test_one_process_and_several_print_the_same_grades_in_the_same_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    traces = [_trace(f"t{n}", *(["lookup_order"] * (n % 3)), "issue_refund") for n in range(12)]
    path, dataset = _files(tmp_path, *traces)
    outputs = []
    for workers in ("1", "2"):
        assert run_cli(["score", path, "--dataset", dataset, "--json", "--workers", workers]) == 1
        outputs.append(orjson.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1]
    assert [grade["trace_id"] for grade in outputs[0]] == [f"t{n}" for n in range(12)]
    assert [grade["passed"] for grade in outputs[0]].count(True) == 8  # n % 3 != 0
