"""No traceback reaches a user of ``trailcheck import`` or ``trailcheck ingest``, whatever the
input: a property test over every format, with valid inputs and inputs damaged one mutation at
a time (:mod:`tests.importing.fuzz_mutations`), checking the properties of
:mod:`tests.importing.import_properties` (the rule of what acceptance is right).

A failure that is a known bug (:data:`KNOWN_BUGS`) is counted as an event instead of failing,
and pinned by a strict xfail test below on its smallest input, so fixing the bug turns that
test into a failure that says to remove the entry. CI runs a bounded number of examples; the
long run is::

    TRAILCHECK_FUZZ_EXAMPLES=5000 pytest tests/importing/test_no_traceback.py \\
        tests/serve/test_no_traceback.py --hypothesis-show-statistics
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.importing.fuzz_inputs import valid_inputs
from tests.importing.fuzz_mutations import MutatedInput, Mutation, fuzz_settings, mutated_inputs
from tests.importing.import_properties import PropertyError, Run, check_import, run_command
from trailcheck.importing.formats import FORMAT_NAMES
from trailcheck.trace import Trace
from trailcheck.trace.unread import unread_parts

CI_EXAMPLES = 25
CI_VALID_EXAMPLES = 5
# Parquet is binary and columnar, so JSON mutations of its records do not apply as they do to
# the formats here: tests/importing/test_trailcheck_parquet.py damages its bytes instead.
FUZZED_FORMATS = tuple(name for name in FORMAT_NAMES if name != "trailcheck-parquet")


@dataclass(frozen=True)
class KnownBug:
    """A broken property the code shows today, tracked by an xfail test until fixed."""

    reason: str
    matches: Callable[[str, Mutation | None, PropertyError], bool]


# Every bug the fuzz found is fixed, and pinned by a test below on its smallest input. A new one
# goes here, with a strict xfail test on its smallest input, until it is fixed.
KNOWN_BUGS: dict[str, KnownBug] = {}


def known_bug(fmt: str, mutation: Mutation | None, error: PropertyError) -> str | None:
    for name, bug in KNOWN_BUGS.items():
        if bug.matches(fmt, mutation, error):
            return name
    return None


def _checked(fmt: str, case: MutatedInput, *, detect: bool = False) -> None:
    """Check one input; a known bug is counted (an event), not failed."""
    with tempfile.TemporaryDirectory() as directory:
        try:
            imported, stored = check_import(case, fmt, Path(directory), detect=detect)
        except PropertyError as error:
            bug = known_bug(fmt, case.mutation, error)
            if bug is None:
                raise
            event(f"known bug: {bug}")
            return
    kind = "valid" if case.mutation is None else case.mutation.kind
    event(f"{fmt} {kind}: import exit {imported.code}, ingest exit {stored.code}")


@pytest.mark.parametrize("fmt", FUZZED_FORMATS)
@fuzz_settings(CI_VALID_EXAMPLES)
@given(data=st.data())
def test_a_valid_input_is_detected_imported_whole_and_read_back_equal(
    fmt: str, data: st.DataObject
) -> None:
    _checked(fmt, data.draw(mutated_inputs(valid_inputs(fmt), damage=False)), detect=True)


@pytest.mark.parametrize("fmt", FUZZED_FORMATS)
@fuzz_settings(CI_EXAMPLES)
@given(data=st.data())
def test_a_damaged_input_is_rejected_by_name_or_imported_faithfully(
    fmt: str, data: st.DataObject
) -> None:
    _checked(fmt, data.draw(mutated_inputs(valid_inputs(fmt))))


# --- the bugs the fuzz found, each on its smallest input ----------------------------------


def _import(tmp_path: Path, name: str, data: bytes, *argv: str) -> Run:
    path = tmp_path / name
    path.write_bytes(data)
    return run_command(["import", str(path), "-o", str(tmp_path / "out.jsonl"), *argv])


def test_nan_in_trailcheck_jsonl_is_rejected_naming_the_line(tmp_path: Path) -> None:
    data = b'{"trace_id":"ok"}\n{"trace_id":"t","metadata":{"x":NaN}}\n'
    run = _import(tmp_path, "traces.jsonl", data, "--format", "trailcheck")
    assert run.code == 1
    assert any("traces.jsonl:2:" in line for line in run.rejected_lines), run.err


def _openai_call(arguments: str) -> bytes:
    """An OpenAI record whose one tool call has ``arguments`` (JSON text)."""
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    messages = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    return orjson.dumps({"id": "c", "messages": messages}) + b"\n"


DUPLICATE_KEYS = {
    "trailcheck": b'{"trace_id":"t","metadata":{"x":1,"x":2}}\n',
    "openai": b'{"id":"c","messages":[{"role":"user","content":"a","content":"b"}]}\n',
    "spans": (
        b'{"trace_id":"t","span_id":"s","name":"a","name":"b","start_ns":1,"end_ns":2,'
        b'"attributes":{}}\n'
    ),
}


@pytest.mark.parametrize("fmt", sorted(DUPLICATE_KEYS))
def test_a_duplicate_json_key_is_rejected(tmp_path: Path, fmt: str) -> None:
    run = _import(tmp_path, "input.jsonl", DUPLICATE_KEYS[fmt], "--format", fmt.split("-")[0])
    assert run.code == 1
    assert any("input.jsonl:1:" in line for line in run.rejected_lines), run.err


def test_a_duplicate_key_in_tool_call_arguments_leaves_its_message_out_kept_verbatim(
    tmp_path: Path,
) -> None:
    # As in a span's arguments: the part is not read, and the reading report keeps it as written.
    run = _import(tmp_path, "input.jsonl", _openai_call('{"a":1,"a":2}'), "--format", "openai")
    assert run.code == 0, run.err
    (trace,) = [
        Trace.model_validate_json(line)
        for line in (tmp_path / "out.jsonl").read_bytes().splitlines()
    ]
    # The message is left out, and the tool message answering its call answers none.
    part, orphan = unread_parts(trace.metadata)
    assert (part["field"], orphan["field"]) == ("messages[1]", "messages[2].tool_call_id")
    assert part["kept"]["tool_calls"][0]["function"]["arguments"] == '{"a":1,"a":2}'
    assert "given twice" in part["reason"]


@pytest.mark.parametrize("fmt", FORMAT_NAMES)
def test_an_empty_file_is_refused_whatever_the_format(tmp_path: Path, fmt: str) -> None:
    run = _import(tmp_path, "empty", b"", "--format", fmt)
    assert run.code == 2
    assert "the file is empty" in run.err


def test_an_integer_the_store_cannot_hold_is_refused_naming_file_line_and_field(
    tmp_path: Path,
) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_bytes(b'{"trace_id":"t","metadata":{"n":18446744073709551616}}\n')
    run = run_command(["ingest", str(path), "--db", f"sqlite:///{tmp_path / 'store.db'}"])
    assert run.code == 1
    [line] = run.rejected_lines
    assert f"{path}:1:" in line, line
    assert "field 'metadata" in line, line


DEEP = {
    "openai-record": b"[" * 300 + b"]" * 300 + b"\n",
    "openai-arguments": _openai_call('{"a":' + "[" * 300 + "]" * 300 + "}"),
}


@pytest.mark.parametrize("case", sorted(DEEP))
def test_json_nested_300_deep_gets_an_answer_not_a_traceback(tmp_path: Path, case: str) -> None:
    run = _import(tmp_path, "input.jsonl", DEEP[case], "--format", "openai")
    assert run.crash is None, run.crash
    assert run.code in (0, 1)


def test_an_integer_beyond_64_bits_is_rejected_naming_the_field(tmp_path: Path) -> None:
    record = b'{"id":"c","n":18446744073709551617,"messages":[{"role":"user","content":"a"}]}\n'
    run = _import(tmp_path, "input.jsonl", record, "--format", "openai")
    assert run.code == 1
    assert any("input.jsonl:1: field 'n'" in line for line in run.rejected_lines), run.err


def test_the_largest_64_bit_integers_are_kept_exactly(tmp_path: Path) -> None:
    record = (
        b'{"id":"c","n":18446744073709551615,"m":-9223372036854775808,'
        b'"messages":[{"role":"user","content":"a"}]}\n'
    )
    run = _import(tmp_path, "input.jsonl", record, "--format", "openai")
    assert run.code == 0, run.err
    written = (tmp_path / "out.jsonl").read_bytes()
    assert b"18446744073709551615" in written
    assert b"-9223372036854775808" in written


def test_a_protobuf_logs_export_whose_first_scope_is_empty_is_read_as_logs(
    tmp_path: Path,
) -> None:
    request = ExportLogsServiceRequest()
    request.resource_logs.add().scope_logs.add()
    scope = request.resource_logs.add().scope_logs.add()
    scope.log_records.add(time_unix_nano=1, body=AnyValue(string_value="request handled"))
    run = _import(tmp_path, "logs.pb", request.SerializeToString(), "--format", "otlp-proto")
    assert run.code == 0, run.err
    assert "1 log record(s) that are not GenAI events were ignored" in run.err


def test_an_otlp_span_ending_before_it_starts_is_rejected_naming_the_field(
    tmp_path: Path,
) -> None:
    span = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": "b7ad6b7169203331",
        "name": "invoke_agent a",
        "startTimeUnixNano": "2000",
        "endTimeUnixNano": "1000",
    }
    export = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
    run = _import(tmp_path, "traces.json", orjson.dumps(export), "--format", "otlp-json")
    assert run.code == 1
    assert any("TimeUnixNano'" in line for line in run.rejected_lines), run.err


def test_a_record_breaking_a_json_rule_in_an_array_rejects_only_itself(tmp_path: Path) -> None:
    conversation = {"messages": [{"role": "user", "content": "a"}]}
    good = orjson.dumps([{"id": "c1", **conversation}, {"id": "c3", **conversation}])
    bad = b'{"id":"c2","messages":[{"role":"user","content":"a","content":"b"}]}'
    document = good[:-1] + b",\n" + bad + b"]"
    run = _import(tmp_path, "chats.json", document, "--format", "openai")
    assert run.code == 1
    [line] = run.rejected_lines
    assert "chats.json:2: field '[2].messages[0].content'" in line, line
    written = (tmp_path / "out.jsonl").read_bytes().splitlines()
    assert [orjson.loads(line)["trace_id"] for line in written] == ["c1", "c3"]
