"""Traces recorded from the real libraries (``tests/fixtures/real/``, recorded by the scripts in
its ``recorders/`` folder) read as faithfully as trailcheck's own: the tool calls, their
arguments and results, the input, the answer, the usage and the model of the shared scenario.

Each fixture plays the conversations of ``recorders/scenario.py``, one trace per user turn;
this file checks ``refund`` (three calls, two of them asked for in one message) and
``missing_order`` (a lookup that fails), each picked by its lookup call (the conformance
corpus, ``tests/conformance``, checks ``two_turns`` too). Where the library did not capture
content (its default, or a mode the recorder chose), the test pins what is still recovered: the
calls, their ids, the usage and the model.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Literal

import pytest

from trailcheck.importing import import_traces
from trailcheck.trace import ToolCall, Trace

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"


def _scenario() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "real_fixture_scenario", REAL / "recorders" / "scenario.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs: its dataclasses look their module up while being defined.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


SCENARIO = _scenario()
REFUND_CALLS = [
    (call.call_id, call.name, call.arguments)
    for turn in SCENARIO.TURNS["refund"]
    for call in turn.calls
]
# One trace per user turn: refund, missing_order, and two_turns' two.
PLAYED = sum(len(exchanges) for exchanges in SCENARIO.CONVERSATIONS.values())
LOOKUP_RESULT = SCENARIO.lookup_order("A-1001")
REFUND_RESULT = SCENARIO.issue_refund("A-1001", 129.0)

# How a fixture shows the failed lookup of missing_order: the call's error naming the failure,
# an error whose text the library redacted, or only the result the agent loop wrote back (a
# source that records calls in messages alone records no failure).
Failure = Literal["error", "redacted", "result"]


@dataclass(frozen=True)
class Fixture:
    name: str
    content: bool = True
    failure: Failure = "error"

    def traces(self) -> list[Trace]:
        files = [REAL / f"{self.name}.traces.pb"]
        logs = REAL / f"{self.name}.logs.pb"
        if logs.exists():
            files.append(logs)
        found: list[Trace] = []
        summary = import_traces(files, found.append)
        assert summary.rejections == []
        return sorted(found, key=lambda trace: min(span.start_ns for span in trace.spans))

    def refund_and_missing(self) -> tuple[Trace, Trace]:
        """The refund and missing_order runs, each the one trace holding its conversation's
        lookup call, of a recording holding every run played."""
        traces = self.traces()
        assert len(traces) == PLAYED

        def holding(call_id: str) -> Trace:
            [run] = [t for t in traces if call_id in [c.call_id for c in t.tool_calls]]
            return run

        return holding("call_lookup_1"), holding("call_lookup_2")


FIXTURES = [
    Fixture("openai-v2-2.4b0-span-only", failure="result"),
    Fixture("openai-v2-2.4b0-event-only", failure="result"),
    Fixture("openai-v2-2.4b0-legacy-events", failure="result"),
    Fixture("openai-v2-2.4b0-no-content", content=False, failure="result"),
    Fixture("openinference-openai-0.1.66", failure="result"),
    Fixture("adk-2.13.0", content=False),  # ADK 2's default records no content
    Fixture("adk-2.13.0-content"),
    Fixture("adk-2.13.0-schema-v1"),
    Fixture("adk-2.13.0-schema-v1-latest-semconv"),
    Fixture("adk-2.13.0-schema-v1-no-content", content=False),
    Fixture("langgraph-1.2.24-openinference-0.1.80"),
    Fixture("openai-agents-0.24.0-openinference-2.6.0", failure="redacted"),
    Fixture("pydantic-ai-2.68.0"),
    Fixture("pydantic-ai-2.68.0-v6"),
    Fixture("pydantic-ai-2.68.0-no-content", content=False),
]


def _calls(trace: Trace) -> list[tuple[str | None, str]]:
    return [(call.call_id, call.name) for call in trace.tool_calls]


def _as_asked(calls: list[ToolCall]) -> list[ToolCall]:
    """The refund's calls in the order the model asked for them: it asks for the first two in
    one message, and a framework that runs them concurrently (LangGraph) records them in the
    order they happened to start."""
    first_two = sorted(calls[:2], key=lambda call: call.name)
    return [*first_two, *calls[2:]]


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_every_call_is_read_once_with_its_id_usage_and_model(fixture: Fixture) -> None:
    refund, missing = fixture.refund_and_missing()
    asked = _as_asked(list(refund.tool_calls))
    assert [(c.call_id, c.name) for c in asked] == [(i, name) for i, name, _ in REFUND_CALLS]
    assert _calls(missing) == [("call_lookup_2", "lookup_order")]
    assert refund.usage is not None
    assert missing.usage is not None
    assert (refund.usage.input_tokens, refund.usage.output_tokens) == (530, 68)
    assert (missing.usage.input_tokens, missing.usage.output_tokens) == (220, 24)
    models = {span.llm.model for trace in (refund, missing) for span in trace.spans if span.llm}
    assert models == {SCENARIO.MODEL}


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if f.content], ids=lambda f: f.name)
def test_arguments_results_input_and_answer_are_the_scenarios(fixture: Fixture) -> None:
    refund, missing = fixture.refund_and_missing()
    asked = _as_asked(list(refund.tool_calls))
    assert [(c.name, c.arguments) for c in asked] == [
        (name, arguments) for _, name, arguments in REFUND_CALLS
    ]
    lookup, _, issue = asked
    assert lookup.result == LOOKUP_RESULT
    assert issue.result == REFUND_RESULT
    assert all(call.succeeded for call in refund.tool_calls)
    assert refund.input_text == SCENARIO.REFUND_INPUT
    assert refund.final_text == SCENARIO.REFUND_ANSWER
    assert missing.input_text == SCENARIO.MISSING_INPUT
    assert missing.final_text == SCENARIO.MISSING_ANSWER
    [failed] = missing.tool_calls
    assert failed.arguments == {"order_id": "B-2"}
    _assert_failure(failed, fixture.failure)


def _assert_failure(call: ToolCall, failure: Failure) -> None:
    if failure == "error":
        assert call.error is not None
        assert "order B-2 not found" in f"{call.error} {call.result}"
    elif failure == "redacted":
        assert call.error is not None
        assert "B-2" not in call.error  # the library replaced the exception's text
    else:
        assert call.error is None
        assert call.source == "message"
        assert call.result == {"error": "order B-2 not found"}


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if not f.content], ids=lambda f: f.name)
def test_without_content_no_argument_result_input_or_answer_is_invented(fixture: Fixture) -> None:
    for trace in fixture.traces():
        assert trace.input_text == ""
        assert trace.final_text == ""
        assert all(call.arguments == {} for call in trace.tool_calls)
        assert all(call.recorded_result is None for call in trace.tool_calls)


@pytest.mark.parametrize(
    "name", ["openai-v2-2.4b0-span-only-bare", "openinference-openai-0.1.66-bare"]
)
def test_a_bare_loop_gives_one_trace_per_model_call_each_with_the_calls_it_saw(name: str) -> None:
    # Without a parent span every chat call is its own trace; the calls a call's history holds
    # are read from it, each once, answered where the history answers them.
    traces = Fixture(name).traces()
    assert [_calls(trace) for trace in traces] == [
        [("call_lookup_1", "lookup_order"), ("call_verify_1", "verify_identity")],
        [(call_id, name) for call_id, name, _ in REFUND_CALLS],
        [(call_id, name) for call_id, name, _ in REFUND_CALLS],
        [("call_lookup_2", "lookup_order")],
        [("call_lookup_2", "lookup_order")],
        [("call_lookup_3", "lookup_order")],
        [("call_lookup_3", "lookup_order")],
        # two_turns' second turn: the first turn's call in its history is not read as its own
        [("call_verify_3", "verify_identity")],
        [("call_verify_3", "verify_identity"), ("call_refund_3", "issue_refund")],
        [("call_verify_3", "verify_identity"), ("call_refund_3", "issue_refund")],
    ]
    assert [trace.input_text for trace in traces] == [
        *[SCENARIO.REFUND_INPUT] * 3,
        *[SCENARIO.MISSING_INPUT] * 2,
        *[SCENARIO.STATUS_INPUT] * 2,
        *[SCENARIO.FOLLOW_UP_INPUT] * 3,
    ]
    first, second, last = [t for t in traces if t.input_text == SCENARIO.REFUND_INPUT]
    assert all(call.recorded_result is None for call in first.tool_calls)
    assert [call.result for call in second.tool_calls[:2]] == [
        LOOKUP_RESULT,
        SCENARIO.verify_identity("ana@example.com"),
    ]
    assert second.tool_calls[2].recorded_result is None  # asked for, answered in the next call
    assert last.tool_calls[2].result == REFUND_RESULT
    assert last.final_text == SCENARIO.REFUND_ANSWER


def test_a_tool_that_raises_in_adk_ends_the_run_with_the_error_on_the_call() -> None:
    _, missing = Fixture("adk-2.13.0-tool-raises").traces()
    [call] = missing.tool_calls
    assert (call.call_id, call.name) == (None, "lookup_order")  # ADK writes '<not specified>'
    assert call.error is not None
    assert "order B-2 not found" in call.error
    assert missing.final_text == ""


def test_a_langgraph_tool_error_without_the_middleware_fails_the_call() -> None:
    [missing] = Fixture("langgraph-1.2.24-openinference-0.1.80-default-tool-error").traces()
    [call] = missing.tool_calls
    # The span records the exception with a traceback dump as its status: the exception wins.
    assert call.error == "ShopToolError: order B-2 not found"
    assert call.arguments == {"order_id": "B-2"}  # from the model's request, not the bare text
    assert call.from_messages == ("arguments",)


# --- the same runs as protobuf-to-JSON tools write them: ids in base64 ------------------------

# Each recording also as MessageToJson wrote it (``*.traces.json``, ``*.logs.json``).
JSON_RECORDINGS = sorted(
    path.name.removesuffix(".traces.json") for path in REAL.glob("*.traces.json")
)


def _recording(name: str, suffix: str) -> list[Path]:
    files = [REAL / f"{name}.traces.{suffix}"]
    if (REAL / f"{name}.logs.{suffix}").exists():
        files.append(REAL / f"{name}.logs.{suffix}")
    return files


def test_every_protobuf_recording_has_its_json_twin() -> None:
    protobuf = sorted(path.name.removesuffix(".traces.pb") for path in REAL.glob("*.traces.pb"))
    assert protobuf == JSON_RECORDINGS
    assert len(JSON_RECORDINGS) >= len(FIXTURES)


@pytest.mark.parametrize("name", JSON_RECORDINGS)
def test_json_with_base64_ids_reads_as_the_protobuf_does(name: str) -> None:
    from_json: list[Trace] = []
    summary = import_traces(_recording(name, "json"), from_json.append, ids="base64")
    assert summary.rejections == []
    from_pb: list[Trace] = []
    assert import_traces(_recording(name, "pb"), from_pb.append).rejections == []
    assert [t.trace_id for t in from_json] == [t.trace_id for t in from_pb]
    for got, expected in zip(from_json, from_pb, strict=True):
        assert [s.span_id for s in got.spans] == [s.span_id for s in expected.spans]
        assert [s.parent_id for s in got.spans] == [s.parent_id for s in expected.spans]
        assert got.tool_calls == expected.tool_calls
        assert (got.input, got.final_output, got.usage) == (
            expected.input,
            expected.final_output,
            expected.usage,
        )
        assert got == expected  # and everything else: attributes, events, metadata


@pytest.mark.parametrize("name", JSON_RECORDINGS)
def test_json_with_base64_ids_is_rejected_by_default_with_the_hint_once_per_file(
    name: str,
) -> None:
    files = _recording(name, "json")
    imported: list[Trace] = []
    summary = import_traces(files, imported.append)
    assert imported == []
    assert summary.rejections
    assert all(r.field is not None and r.field.endswith("traceId") for r in summary.rejections)
    hinted = [r.source for r in summary.rejections if r.hint is not None]
    assert hinted == [str(path) for path in files]
    assert all("--ids base64" in (r.hint or "") for r in summary.rejections if r.hint)
