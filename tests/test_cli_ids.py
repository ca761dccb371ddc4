"""``--ids base64`` on ``import`` and ``ingest`` (OTLP/JSON as protobuf-to-JSON tools write it),
the hint given once per file when it is missing, and the summary counted in spans and traces."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import orjson
import pytest

from trailcheck.cli import run_cli

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
ADK = [REAL / "adk-2.13.0.traces.json", REAL / "adk-2.13.0.logs.json"]
ADK_PB = [REAL / "adk-2.13.0.traces.pb", REAL / "adk-2.13.0.logs.pb"]


def test_import_with_base64_ids_writes_what_the_protobuf_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from_json, from_pb = tmp_path / "json.jsonl", tmp_path / "pb.jsonl"
    assert run_cli(["import", *map(str, ADK), "-o", str(from_json), "--ids", "base64"]) == 0
    err = capsys.readouterr().err
    assert "read 26 spans in 2 files (otlp-json) → 4 traces imported, 0 rejected" in err
    assert run_cli(["import", *map(str, ADK_PB), "-o", str(from_pb)]) == 0
    assert "read 26 spans in 2 files (otlp-proto) → 4 traces imported, 0 rejected" in (
        capsys.readouterr().err
    )
    assert from_json.read_bytes() == from_pb.read_bytes()


def test_protobuf_is_read_the_same_under_either_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    assert run_cli(["import", *map(str, ADK_PB), "-o", str(out), "--ids", "base64"]) == 0
    assert "4 traces imported, 0 rejected" in capsys.readouterr().err


def test_by_default_base64_ids_are_rejected_each_named_with_the_hint_once_per_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["import", *map(str, ADK), "-o", str(tmp_path / "out.jsonl")]) == 1
    err = capsys.readouterr().err
    rejected = [line for line in err.splitlines() if line.startswith("rejected: ")]
    assert len(rejected) == 20  # the first 20 of 36: 26 spans, 10 GenAI log records
    assert "... and 16 more rejected records" in err
    # The spans' hint rides on their first rejection; the log records are all past the list,
    # so theirs follows it.
    hinted = [line for line in err.splitlines() if "--ids base64" in line]
    assert [line.split(":")[1].strip() for line in hinted] == [str(path) for path in ADK]
    assert hinted[0].startswith("rejected: ")
    assert hinted[1].startswith("hint: ")
    assert err.count("looks like base64") == 2
    assert (
        "read 0 spans in 2 files (otlp-json) → 0 traces imported, 0 rejected, plus 36 records"
        " whose trace is unknown"
    ) in err


def test_a_hint_past_the_listed_rejections_is_still_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 25 spans with base64 ids fill the list; the second file's hint comes after it.
    spans = [
        {
            "traceId": base64.b64encode(bytes([1] * 16)).decode(),
            "spanId": base64.b64encode(bytes([1, index + 1] * 4)).decode(),
            "name": "s",
            "startTimeUnixNano": "1",
        }
        for index in range(25)
    ]
    many = tmp_path / "many.json"
    many.write_bytes(orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    other = tmp_path / "other.json"
    shutil.copy(Path(__file__).parent / "fixtures" / "otlp" / "base64_ids.json", other)
    assert run_cli(["import", str(many), str(other), "-o", str(tmp_path / "o.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "... and 6 more rejected records" in err
    assert f"hint: {other}: it looks like base64" in err
    assert err.count("--ids base64") == 2


def test_hex_ids_under_base64_are_rejected_with_the_opposite_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = Path(__file__).parent / "fixtures" / "otlp" / "genai_agent_run.json"
    assert run_cli(["import", str(sample), "-o", str(tmp_path / "o.jsonl"), "--ids", "base64"]) == 1
    err = capsys.readouterr().err
    assert "must be 16 bytes in base64, got '0af7651916cd43dd8448eb211c80319c'" in err
    assert err.count("it looks like hex") == 1


def test_ids_takes_hex_or_base64_and_its_help_says_only_otlp_json_is_affected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["import", str(ADK[0]), "-o", str(tmp_path / "o"), "--ids", "b64"]) == 2
    assert "'b64' is not one of 'hex', 'base64'" in capsys.readouterr().err
    for command in ("import", "ingest"):
        assert run_cli([command, "--help"]) == 0
        # The words of the help, without the box that frames them.
        text = " ".join(capsys.readouterr().out.replace("│", " ").split())
        assert "--ids <hex|base64> How OTLP/JSON files write trace and span ids" in text
        assert "or base64, as protobuf-to-JSON tools do; other formats are not affected" in text


def test_ingest_with_base64_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'store.db'}"
    assert run_cli(["ingest", *map(str, ADK), "--db", db]) == 1
    assert capsys.readouterr().err.count("--ids base64") == 2
    assert run_cli(["ingest", *map(str, ADK), "--db", db, "--ids", "base64"]) == 0
    assert (
        "read 26 spans in 2 files (otlp-json) → 4 traces imported, 0 unchanged, 0 conflicts,"
        " 0 rejected"
    ) in capsys.readouterr().err
    assert run_cli(["ingest", *map(str, ADK_PB), "--db", db]) == 0
    assert "0 traces imported, 4 unchanged" in capsys.readouterr().err


def test_copies_count_as_rejected_traces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = Path(__file__).parent / "fixtures" / "otlp" / "genai_agent_run.json"
    copy = tmp_path / "copy.json"
    shutil.copy(sample, copy)
    assert run_cli(["import", str(sample), str(copy), "-o", str(tmp_path / "o.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "in 2 files (otlp-json) → 1 trace imported, 1 rejected" in err
