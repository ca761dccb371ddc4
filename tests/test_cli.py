"""The command line: exit codes, one-line errors, import summaries, --strict, show, schema."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from trailcheck.cli import run_cli
from trailcheck.trace import Trace
from trailcheck.trace.jsonl import trace_json_schema

SAMPLE = Path(__file__).resolve().parent.parent / "src/trailcheck/samples/support-agent.otlp.json"
GOOD_ID = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
CLAIMED_ID = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"


def read_jsonl(path: Path) -> list[Trace]:
    return [Trace.model_validate_json(line) for line in path.read_bytes().splitlines()]


def test_import_of_bundled_sample_detects_format_and_writes_every_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    assert run_cli(["import", str(SAMPLE), "-o", str(out)]) == 0
    traces = read_jsonl(out)
    assert [t.trace_id for t in traces] == [GOOD_ID, CLAIMED_ID, "5e5e5e5e00000000aaaaaaaa12345678"]
    assert [c.name for c in traces[0].tool_calls] == [
        "lookup_order",
        "verify_identity",
        "check_refund_policy",
        "issue_refund",
    ]
    refused = traces[1].tool_calls[-1]
    assert refused.name == "issue_refund"
    assert refused.error == "identity not verified for cus_bob"
    err = capsys.readouterr().err
    assert "read 24 spans in 1 file (otlp-json) → 3 traces imported, 0 rejected" in err


def bad_and_good_lines(tmp_path: Path) -> Path:
    good = orjson.dumps({"trace_id": "ok-1", "input": "hi", "final_output": "hello"})
    bad = orjson.dumps({"trace_id": "bad-1", "spans": [{"span_id": "s"}]})
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(good + b"\n" + bad + b"\n")
    return path


def test_rejected_record_is_named_and_the_rest_imported_with_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    assert run_cli(["import", str(bad_and_good_lines(tmp_path)), "-o", str(out)]) == 1
    assert [t.trace_id for t in read_jsonl(out)] == ["ok-1"]
    err = capsys.readouterr().err
    assert "mixed.jsonl:2: span 's': field 'spans[0].trace_id': required field is missing" in err
    # The good record's trace has no spans; the bad one is one trace rejected.
    assert "read 0 spans in 1 file (trailcheck) → 1 trace imported, 1 rejected" in err


def test_strict_writes_nothing_and_keeps_an_existing_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("previous content\n")
    assert run_cli(["import", str(bad_and_good_lines(tmp_path)), "-o", str(out), "--strict"]) == 1
    assert out.read_text() == "previous content\n"
    assert list(tmp_path.glob(".out.jsonl.*")) == []
    assert "nothing written" in capsys.readouterr().err


def test_strict_to_stdout_prints_no_trace_when_a_record_is_bad(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["import", str(bad_and_good_lines(tmp_path)), "-o", "-", "--strict"]) == 1
    assert capsys.readouterr().out == ""


def test_import_to_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["import", str(SAMPLE), "-o", "-"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert Trace.model_validate_json(lines[0]).trace_id == GOOD_ID


def test_same_trace_id_twice_is_rejected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy.json"
    shutil.copy(SAMPLE, copy)
    out = tmp_path / "out.jsonl"
    assert run_cli(["import", str(SAMPLE), str(copy), "-o", str(out)]) == 1
    assert len(read_jsonl(out)) == 3
    assert f"trace id {GOOD_ID!r} was already imported from" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["import", "missing.json", "-o", "x.jsonl"], "missing.json: no such file"),
        (["import", "SAMPLE", "-o", "x.jsonl", "--format", "nope"], "unknown format 'nope'"),
        (["traces", "show", "SAMPLE", "--id", "nope"], "has no trace 'nope'"),
    ],
)
def test_user_errors_are_one_line_with_exit_2(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [str(SAMPLE) if a == "SAMPLE" else a for a in args]
    args = [
        str(tmp_path / a) if a.endswith((".json", ".jsonl")) and "/" not in a else a for a in args
    ]
    assert run_cli(args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_undetectable_content_asks_for_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n")
    assert run_cli(["import", str(path), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "cannot tell the format" in capsys.readouterr().err


def test_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["import"]) == 2
    assert "Missing argument" in capsys.readouterr().err


def test_traces_show_renders_tree_tool_calls_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["traces", "show", str(SAMPLE), "--id", CLAIMED_ID]) == 0
    out = capsys.readouterr().out
    assert f"trace {CLAIMED_ID}" in out
    assert "lookup_order → issue_refund ✗" in out
    assert "invoke_agent support-agent" in out
    assert "identity not verified for cus_bob" in out
    assert "has been processed" in out
    assert "1 failed" in out


def test_traces_show_truncates_unless_full(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_output = "x" * 1000
    path = tmp_path / "t.jsonl"
    path.write_bytes(orjson.dumps({"trace_id": "t", "final_output": long_output}) + b"\n")
    assert run_cli(["traces", "show", str(path)]) == 0
    assert "more chars; --full shows all" in capsys.readouterr().out
    assert run_cli(["traces", "show", str(path), "--full"]) == 0
    assert long_output in capsys.readouterr().out.replace("\n", "")


def test_trace_content_is_not_interpreted_as_markup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        orjson.dumps({"trace_id": "t", "final_output": "[bold red]x[/] [link=y]z"}) + b"\n"
    )
    assert run_cli(["traces", "show", str(path)]) == 0
    assert "[bold red]x[/] [link=y]z" in capsys.readouterr().out


def test_schema_trace_prints_the_model_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["schema", "trace"]) == 0
    printed = orjson.loads(capsys.readouterr().out)
    assert printed == trace_json_schema()
    assert printed["title"] == "Trace"
    assert {"trace_id", "spans", "final_output"} <= set(printed["properties"])


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["--version"]) == 0
    assert capsys.readouterr().out.startswith("trailcheck 0.")


def test_shipped_schema_file_matches_the_model() -> None:
    shipped = SAMPLE.parent.parent / "schemas" / "trace.schema.json"
    assert orjson.loads(shipped.read_bytes()) == trace_json_schema(), (
        "regenerate it: uv run trailcheck schema trace > src/trailcheck/schemas/trace.schema.json"
    )


def test_byte_order_mark_and_crlf_line_ends_are_read(tmp_path: Path) -> None:
    path = tmp_path / "windows.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"trace_id": "a", "input": "hi"}\r\n{"trace_id": "b"}\r\n')
    out = tmp_path / "out.jsonl"
    assert run_cli(["import", str(path), "-o", str(out)]) == 0
    assert [(t.trace_id, t.input) for t in read_jsonl(out)] == [("a", "hi"), ("b", None)]


def test_detection_sees_a_first_line_longer_than_its_window(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    path.write_bytes(orjson.dumps({"trace_id": "long", "final_output": "y" * (3 << 20)}) + b"\n")
    out = tmp_path / "out.jsonl"
    assert run_cli(["import", str(path), "-o", str(out)]) == 0
    assert [len(t.final_text) for t in read_jsonl(out)] == [3 << 20]


def test_openai_jsonl_with_trace_ids_is_not_taken_for_trailcheck_jsonl(tmp_path: Path) -> None:
    record = {"trace_id": "conv-1", "messages": [{"role": "user", "content": "hi"}]}
    path = tmp_path / "chats.jsonl"
    path.write_bytes(orjson.dumps(record) + b"\n")
    out = tmp_path / "out.jsonl"
    assert run_cli(["import", str(path), "-o", str(out)]) == 0
    assert [t.trace_id for t in read_jsonl(out)] == ["conv-1"]


@pytest.mark.parametrize(
    ("make_args", "message"),
    [
        (lambda d: ["import", str(SAMPLE), "-o", str(d)], "is a directory; name the output file"),
        (lambda d: ["import", str(d), "-o", str(d / "o.jsonl")], "is a directory; name the trace"),
        (
            lambda d: ["import", str(SAMPLE), "-o", "/proc/no-such-dir/x.jsonl"],
            "/proc/no-such-dir/x.jsonl: cannot write",
        ),
    ],
)
def test_unusable_paths_are_one_line_errors(
    make_args: Callable[[Path], list[str]],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_cli(make_args(tmp_path)) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_show_of_a_rejected_trace_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["traces", "show", str(bad_and_good_lines(tmp_path)), "--id", "bad-1"]) == 2
    err = capsys.readouterr().err
    assert "no readable trace to show" in err
    assert "spans[0].trace_id" in err


def test_terminal_escape_sequences_in_a_trace_are_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = {"trace_id": "t", "input": "hi\u001b]0;pwned\u0007", "final_output": "\u001b[31mred"}
    path = tmp_path / "t.jsonl"
    path.write_bytes(orjson.dumps(record) + b"\n")
    assert run_cli(["traces", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\u001b" not in out
    assert "\u0007" not in out
    assert "hi\\x1b]0;pwned\\x07" in out
    assert "\\x1b[31mred" in out


def span_record(span_id: str, parent: str | None) -> bytes:
    record = {"trace_id": "t9", "span_id": span_id, "parent_span_id": parent, "name": span_id}
    return orjson.dumps({**record, "start_ns": 100, "end_ns": 200})


def test_a_trace_split_across_files_imports_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "part1.jsonl").write_bytes(span_record("root", None) + b"\n")
    (tmp_path / "part2.jsonl").write_bytes(span_record("child", "root") + b"\n")
    out = tmp_path / "out.jsonl"
    args = ["import", str(tmp_path / "part1.jsonl"), str(tmp_path / "part2.jsonl"), "-o", str(out)]
    assert run_cli(args) == 0
    (trace,) = read_jsonl(out)
    assert sorted(span.span_id for span in trace.spans) == ["child", "root"]
    assert "read 2 spans in 2 files (spans) → 1 trace imported, 0 rejected" in (
        capsys.readouterr().err
    )


def test_otlp_json_with_snake_case_keys_imports_nothing_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    span = {"traceId": "1" * 32, "spanId": "2" * 16, "name": "x", "startTimeUnixNano": "1"}
    path = tmp_path / "snake.json"
    path.write_bytes(orjson.dumps({"resourceSpans": [{"scope_spans": [{"spans": [span]}]}]}))
    assert run_cli(["import", str(path), "-o", str(tmp_path / "out.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "field 'resourceSpans[0].scope_spans': is a protobuf field name" in err
    assert "lowerCamelCase ('scopeSpans')" in err


def test_a_broken_first_line_of_a_collector_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = orjson.dumps(orjson.loads(SAMPLE.read_bytes()))  # one export, on one line
    path = tmp_path / "collector.jsonl"
    path.write_bytes(line[:50] + b"\n" + line + b"\n")
    assert run_cli(["import", str(path), "-o", str(tmp_path / "out.jsonl")]) == 1
    err = capsys.readouterr().err
    assert f"{path}:1: not valid JSON" in err
    assert f"{path}:1: 3 traces withheld because line 1 could not be read" in err


def test_schema_dataset_prints_the_shipped_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["schema", "dataset"]) == 0
    printed = orjson.loads(capsys.readouterr().out)
    shipped = SAMPLE.parent.parent / "schemas" / "dataset.schema.json"
    assert printed == orjson.loads(shipped.read_bytes())
    assert printed["$id"] == "urn:trailcheck:schema:dataset:1"
