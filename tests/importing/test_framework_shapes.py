"""The rows of framework shapes (:mod:`trailcheck.importing.shapes.rows`), each on the shape
its corpus recording holds, and on the near-misses that must be left as recorded."""

from __future__ import annotations

import json

from trailcheck.importing.shapes.rows import (
    RunShape,
    ToolShape,
    python_literal,
    text_blocks,
    traceloop_mcp_result,
)

SMOLAGENTS = ToolShape(
    arguments_in="kwargs", envelope=frozenset({"args", "kwargs", "sanitize_inputs_outputs"})
)


def test_arguments_come_out_of_the_envelope_only_when_it_is_the_envelope() -> None:
    wrapped = {"args": [], "sanitize_inputs_outputs": True, "kwargs": {"order_id": "A-1"}}
    assert SMOLAGENTS.arguments(wrapped) == {"order_id": "A-1"}
    # A tool whose own parameter is called kwargs, beside another: read as it was called.
    own = {"kwargs": {"x": 1}, "order_id": "A-1"}
    assert SMOLAGENTS.arguments(own) == own
    # Positional arguments have no names to give them: the envelope stays.
    positional = {"args": ["A-1"], "kwargs": {}}
    assert SMOLAGENTS.arguments(positional) == positional


def test_a_name_suffix_names_the_tool_and_nothing_else() -> None:
    dspy = ToolShape(name_suffix=".__call__")
    assert dspy.name("lookup_order.__call__") == "lookup_order"
    assert dspy.name(".__call__") is None
    assert dspy.name("lookup_order") is None


def test_a_python_repr_of_a_dict_is_read_back_as_the_data() -> None:
    assert python_literal("{'order_id': 'A-1', 'total': 129.0, 'ok': True}") == {
        "order_id": "A-1",
        "total": 129.0,
        "ok": True,
    }
    for kept in ('{"order_id": "A-1"}', "not a literal {", "{'call': __import__('os')}", 42):
        assert python_literal(kept) == kept


def test_text_only_content_blocks_are_their_text() -> None:
    assert text_blocks(json.dumps([{"text": '{"a": '}, {"text": "1}"}])) == '{"a": 1}'
    mixed = json.dumps([{"text": "a"}, {"json": {"a": 1}}])
    assert text_blocks(mixed) == mixed
    assert text_blocks("[]") == "[]"


def test_openllmetry_mcp_output_is_its_result() -> None:
    assert traceloop_mcp_result('{"result": "{\\"ok\\": true}"}') == '{"ok": true}'
    assert traceloop_mcp_result({"result": "boom", "is_error": True}) == "boom"
    other = '{"result": 1, "extra": 2}'
    assert traceloop_mcp_result(other) == other


def test_a_run_shape_reads_the_answer_out_of_the_run_output() -> None:
    crew = RunShape(answer_in=("raw",))
    assert crew.answer('{"raw": "Refunded.", "pydantic": null}') == "Refunded."
    assert crew.answer('{"raw": null}') is None


def test_a_dotted_input_path_reaches_into_the_object() -> None:
    dspy = RunShape(input_in=("input_args.question",))
    assert dspy.input('{"input_args": {"question": "Where is B-2?"}}') == "Where is B-2?"
    assert dspy.input('{"input_args": {"question": 3}}') is None
