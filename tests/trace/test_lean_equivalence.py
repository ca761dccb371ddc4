"""Two holders, one meaning: a trailcheck JSONL line read as a pydantic Trace and as a LeanTrace
gives the same content, the same tool calls, the same grade from every built-in scorer and the
same findings from every kind of detection rule; and
a line one holder rejects, the other rejects, naming the same field.

Lines are every fixture, imported in whatever format it is in and written as trailcheck JSONL,
and generated traces (:mod:`tests.trace.strategies`), whole or with one mutation
(:mod:`tests.ingest.fuzz_json`). The import path's reading is ``parse_trace_line``'s: the JSON
text rules (``trailcheck/json_text.py``), ``Trace.model_validate_json(line, strict=True)`` (strict,
as the lean path reads: see ``test_the_import_path_reads_numbers_strictly``), then the
storable-integer check. The bulk reader's is ``parse_lean_line``'s, which checks the same JSON
text rules where a line may break one.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.ingest.fuzz_json import dumps, json_mutation
from tests.ingest.fuzz_mutations import fuzz_settings
from tests.trace.strategies import traces
from trailcheck.cases import Case, load_dataset
from trailcheck.errors import RecordError
from trailcheck.ingest import import_traces
from trailcheck.ingest.trailcheck_jsonl import parse_lean_line
from trailcheck.json_text import JsonValueError, loads_json
from trailcheck.loop import Rule, builtin_rules, detect, parse_rules
from trailcheck.scorers import (
    EfficiencyScorer,
    ReplayStateScorer,
    Scorer,
    TrajectoryScorer,
    default_scorers,
    grade,
    grade_lean,
)
from trailcheck.trace import LeanTrace, Trace, decode_lean_trace, summed_usage
from trailcheck.trace.content_gap import content_gap
from trailcheck.trace.error_fields import loc_field, pydantic_error_field
from trailcheck.trace.incomplete import incompleteness
from trailcheck.trace.jsonl import dump_lean_trace, dump_trace
from trailcheck.trace.limits import first_unstorable

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SAMPLES = Path(__file__).resolve().parents[2] / "src" / "trailcheck" / "samples"

# Every built-in scorer, with settings that turn on what the defaults leave off.
SCORERS: tuple[Scorer, ...] = (
    *default_scorers(),
    TrajectoryScorer(ignore_tools=("think",), errored_calls="skip"),
    EfficiencyScorer(
        max_identical_calls=1,
        loop_repeats=2,
        loop_match="tool",
        call_repeats=2,
        max_tool_calls=2,
        max_model_calls=1,
        max_latency_ms=1.0,
        max_tokens=100,
        max_cost_usd=0.01,
        errored_calls="skip",
    ),
    ReplayStateScorer(environment="tests.scorers.test_replay_state:TinyShop"),
)

# The built-in rules, and a policy rule of each kind they leave out, on tools the traces call.
RULES: tuple[Rule, ...] = (
    *builtin_rules(),
    *parse_rules(
        """
rules:
  - {name: confirm, label: unconfirmed, severity: high, kind: policy,
     policy: {name: requires_confirmation_before, tool: issue_refund}}
  - {name: once, label: repeated_lookup, severity: low, kind: policy,
     policy: {name: at_most, tool: lookup_order, count: 1}}
  - {name: never, label: forbidden_search, severity: low, kind: policy,
     policy: {name: forbidden, tool: search_orders}}
"""
    ),
)


@cache
def fixture_traces() -> tuple[Trace, ...]:
    """Every trace the fixtures hold: each file on its own, a real recording with its logs."""
    groups: list[list[Path]] = [
        [path]
        for folder in ("openai", "otel", "otlp")
        for path in sorted((FIXTURES / folder).iterdir())
        if path.suffix in (".json", ".jsonl")
    ]
    for recording in sorted((FIXTURES / "real").glob("*.traces.pb")):
        logs = recording.with_name(recording.name.replace(".traces.", ".logs."))
        groups.append([recording, *([logs] if logs.exists() else [])])
    groups.append(sorted(SAMPLES.glob("*.json")))
    found: list[Trace] = []
    for group in groups:
        import_traces(group, found.append)
    return tuple(found)


@cache
def dataset_cases() -> tuple[Case, ...]:
    return tuple(load_dataset(FIXTURES / "datasets" / "support_shop.yaml").cases)


def _without_tracebacks(value: Any) -> Any:
    """A grade's dump with the failures' stacks left out: the two paths call a scorer through
    different frames, and the stack says so."""
    dumped = value.model_dump()
    for failure in dumped["failures"]:
        failure.pop("traceback")
    return dumped


def assert_same_reading(line: bytes, cases: tuple[Case, ...]) -> None:
    """Both holders of ``line`` agree on content, derived views and every grade."""
    trace = Trace.model_validate_json(line, strict=True)
    lean = decode_lean_trace(line)
    assert lean.to_trace().model_dump() == trace.model_dump()
    assert dump_lean_trace(lean) == dump_trace(trace)  # what import writes, on either path
    assert lean.tool_calls == trace.tool_calls
    assert [call.key for call in lean.tool_calls] == [call.key for call in trace.tool_calls]
    assert [call.result for call in lean.tool_calls] == [call.result for call in trace.tool_calls]
    assert (lean.input_text, lean.final_text, lean.duration_ns) == (
        trace.input_text,
        trace.final_text,
        trace.duration_ns,
    )
    assert [span.span_id for span in lean.tree] == [span.span_id for span in trace.tree]
    assert content_gap(lean) == content_gap(trace)
    assert incompleteness(lean) == incompleteness(trace)
    assert summed_usage(lean.spans) == summed_usage(trace.spans)
    assert list(detect([lean], RULES)) == list(detect([trace], RULES))
    for case in cases:
        expected = grade(trace, case, SCORERS)
        graded = grade_lean(lean, case, SCORERS)
        assert graded.passed == expected.passed
        assert _without_tracebacks(graded.to_grade()) == _without_tracebacks(expected)
        for scorer in SCORERS:
            on_trace, on_lean = _score(scorer, trace, case), _score(scorer, lean, case)
            assert on_lean == on_trace, scorer


def _score(scorer: Scorer, trace: Trace | LeanTrace, case: Case) -> Any:
    lean_score = getattr(scorer, "lean_score", None)
    try:
        if lean_score is None:
            full = trace if isinstance(trace, Trace) else trace.to_trace()
            return scorer.score(full, case)
        found = lean_score(trace, case)
        return None if found is None else found.to_score()
    # A scorer that raises must raise the same on both.
    except Exception as error:  # noqa: BLE001
        return (type(error), str(error))


@st.composite
def comparators(draw: st.DrawFn, value: Any) -> Any:
    """A comparator for a field whose value in some call was ``value``."""
    options: list[Any] = [
        {"$compare": "exact", "value": value},
        {"$compare": "present"},
        {"$compare": "absent"},
        {"$compare": "one_of", "values": [value, "other"]},
        "other",
    ]
    if isinstance(value, str):
        options += [
            {"$compare": "text", "value": value.upper()},
            {"$compare": "regex", "pattern": re.escape(value[:3]), "full_match": False},
        ]
    if isinstance(value, int | float) and not isinstance(value, bool):
        options.append({"$compare": "number", "value": value + 0.5, "abs_tol": 1})
    if isinstance(value, dict | list):
        options.append({"$compare": "subset", "value": value})
    return draw(st.sampled_from(options))


@st.composite
def cases_for(draw: st.DrawFn, trace: Trace) -> Case:
    """A case that asks about ``trace``'s own calls, state and answer, right or wrong."""
    calls = trace.tool_calls
    names = [*sorted({call.name for call in calls}), "think", "other_tool"]
    expected_arguments = []
    for call in draw(st.lists(st.sampled_from(calls), max_size=3)) if calls else []:
        keys = [*call.arguments, "missing"]
        chosen = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=3, unique=True))
        fields = {key: draw(comparators(call.arguments.get(key))) for key in chosen if key}
        if fields:
            expected_arguments.append({"tool": call.name, "arguments": fields})
    state = trace.state_after or {"k": 1}
    spec: dict[str, Any] = {
        "id": "c",
        "input": "the task",
        "expected_tools": draw(st.none() | st.lists(st.sampled_from(names), max_size=5)),
        "tool_match": draw(st.sampled_from(["exact", "in_order", "any_order"])),
        "tool_threshold": draw(st.sampled_from([0.0, 0.5, 1.0])),
        "expected_arguments": expected_arguments,
        "expected_state": draw(st.none() | st.just(dict(list(state.items())[:2]) or {"k": 1})),
        "reference_response": draw(st.none() | st.sampled_from(["refund", trace.final_text])),
    }
    if draw(st.booleans()):
        spec["policies"] = [
            {"name": "must_precede", "tool": draw(st.sampled_from(names)), "before": names[0]},
            {"name": "at_most", "tool": draw(st.sampled_from(names)), "count": 1},
        ]
    try:
        return Case.model_validate(spec)
    except ValidationError:  # a value no case file can hold (a key a comparator reserves)
        spec.pop("expected_arguments")
        spec.pop("reference_response")
        return Case.model_validate(spec)


@pytest.mark.parametrize("index", range(len(fixture_traces())))
def test_every_fixture_reads_and_grades_the_same(index: int) -> None:
    trace = fixture_traces()[index]
    assert_same_reading(dump_trace(trace), dataset_cases())


def test_the_fixtures_hold_what_the_comparison_needs() -> None:
    found = fixture_traces()
    assert len(found) >= 50
    assert any(call.source == "message" for trace in found for call in trace.tool_calls)
    assert any(call.from_messages for trace in found for call in trace.tool_calls)
    assert any(content_gap(trace) is not None for trace in found)
    labels = {finding.label for finding in detect(found, RULES)}
    assert len(labels) >= 4, labels


@fuzz_settings(200)
@given(st.data())
def test_generated_traces_read_and_grade_the_same(data: st.DataObject) -> None:
    trace = data.draw(traces())
    cases = tuple(data.draw(st.lists(cases_for(trace), min_size=1, max_size=2)))
    assert_same_reading(dump_trace(trace), cases)


# Mutations of one value, whose rejection names where it is.
KINDS = ("wrong_type", "missing", "nan", "huge_int", "bad_id", "duplicate_key", "embedded", "deep")


def _import_path(line: bytes) -> tuple[Trace | None, set[str | None], JsonValueError | None]:
    """The import path's reading of ``line``: the trace, or the fields its problems name
    (every problem, a union's members' folded into the deepest one), and the JSON text rule
    it breaks, if any."""
    broken = None
    try:
        loads_json(line)
    except orjson.JSONDecodeError:
        return None, {None}, None
    except JsonValueError as error:
        broken = error
    try:
        trace = Trace.model_validate_json(line, strict=True)
    except ValidationError as error:
        problems = error.errors(include_url=False)
        fields = {
            pydantic_error_field(error, Trace),
            *(loc_field(p["loc"], Trace) for p in problems),
        }
        return None, fields, broken
    unstorable = first_unstorable(trace)
    if unstorable is not None:
        return None, {unstorable.field}, broken
    return (trace, set(), None) if broken is None else (None, set(), broken)


def _lean_path(line: bytes) -> LeanTrace | RecordError:
    read = parse_lean_line(line, source="t.jsonl", line_number=1)
    if isinstance(read, LeanTrace):
        return read
    return RecordError(read.message, field=None if read.field == "<record>" else read.field)


@fuzz_settings(400)
@given(st.data())
def test_a_line_one_path_rejects_the_other_rejects_naming_the_same_field(
    data: st.DataObject,
) -> None:
    record = orjson.loads(dump_trace(data.draw(traces(max_spans=4))))
    mutated = data.draw(json_mutation(record, data.draw(st.sampled_from(KINDS))))
    line = dumps(record if mutated is None else mutated[0])
    imported, fields, broken = _import_path(line)
    lean = _lean_path(line)
    if imported is not None:
        assert isinstance(lean, LeanTrace), (lean, line[:300])
        assert lean.to_trace().model_dump() == imported.model_dump()
    else:
        assert not isinstance(lean, LeanTrace), (fields, broken, line[:300])
        # One problem: its field. A value with several (an object of the wrong shape): one
        # of theirs, the first in the line rather than the first the model declares.
        named = fields | ({broken.field or None} if broken is not None else set())
        assert lean.field in named, (lean, named, line[:300])
