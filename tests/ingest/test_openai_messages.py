"""The OpenAI chat-messages importer: record shapes, tool-call pairing, ids, rejections, detection,
and the recorded tau-bench trajectories."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest

from trailcheck.errors import RecordError
from trailcheck.ingest.openai_messages import (
    looks_like_openai_messages,
    read_openai_messages,
    trace_from_messages,
)
from trailcheck.ingest.records import Rejection
from trailcheck.trace import Message, MessageToolCall, Trace

TAU_BENCH_TRAJECTORIES = Path("tau-bench") / "gpt-4o-airline-trajectories.json"


def read(path: Path) -> list[Trace | Rejection]:
    with path.open("rb") as stream:
        return list(read_openai_messages(stream, path.name))


def read_bytes(data: bytes, source: str = "mem.jsonl") -> list[Trace | Rejection]:
    return list(read_openai_messages(io.BytesIO(data), source))


def traces(items: list[Trace | Rejection]) -> list[Trace]:
    assert all(isinstance(item, Trace) for item in items), [str(i) for i in items]
    return [item for item in items if isinstance(item, Trace)]


def rejections(items: list[Trace | Rejection]) -> list[Rejection]:
    return [item for item in items if isinstance(item, Rejection)]


def call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    text = arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def as_recorded(message: Message) -> dict[str, Any]:
    """A Message written back in the OpenAI shape, arguments as parsed JSON (for comparison)."""
    written: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        written["tool_calls"] = [
            {"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls
        ]
    if message.tool_call_id is not None:
        written["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        written["name"] = message.name
    return written


def source_message(raw: dict[str, Any]) -> dict[str, Any]:
    """A recorded message with its arguments parsed, in the shape ``as_recorded`` writes."""
    written: dict[str, Any] = {"role": raw["role"], "content": raw.get("content")}
    if raw.get("tool_calls"):
        written["tool_calls"] = [
            {
                "id": c["id"],
                "name": c["function"]["name"],
                "arguments": orjson.loads(c["function"]["arguments"]),
            }
            for c in raw["tool_calls"]
        ]
    for key in ("tool_call_id", "name"):
        if raw.get(key) is not None:
            written[key] = raw[key]
    return written


# --- one conversation -----------------------------------------------------------------------

REFUND = [
    {"role": "system", "content": "You are a shop's support agent."},
    {"role": "user", "content": "Refund order A-1003."},
    {"role": "assistant", "content": None, "tool_calls": [call("c1", "lookup_order", {"id": 3})]},
    {"role": "tool", "tool_call_id": "c1", "name": "lookup_order", "content": '{"paid": 25.5}'},
    {"role": "assistant", "content": None, "tool_calls": [call("c2", "refund", {"amount": 25.5})]},
    {"role": "tool", "tool_call_id": "c2", "content": "refunded"},
    {"role": "assistant", "content": "Refunded 25.50."},
]


def test_conversation_becomes_root_llm_and_tool_spans() -> None:
    trace = trace_from_messages(REFUND, trace_id="t-refund", metadata={"scenario": "refund"})
    root = trace.tree.root
    assert root is not None
    assert (root.kind, root.start_ns, root.end_ns) == ("agent", 0, len(REFUND))
    children = trace.tree.children(root.span_id)
    assert [(s.kind, s.name) for s in children] == [
        ("llm", "chat"),
        ("tool", "execute_tool lookup_order"),
        ("llm", "chat"),
        ("tool", "execute_tool refund"),
        ("llm", "chat"),
    ]
    llm_spans = [s for s in children if s.llm is not None]
    assert [s.llm.output_messages for s in llm_spans if s.llm is not None] == [
        [trace.input[i]] for i in (2, 4, 6) if isinstance(trace.input, list)
    ]
    # An llm span's start is its message's index: what the model saw is the input before it.
    assert [s.start_ns for s in llm_spans] == [2, 4, 6]
    assert all(s.llm is not None and s.llm.input_messages is None for s in llm_spans)
    assert trace.metadata == {"scenario": "refund"}
    assert trace.final_output == "Refunded 25.50."


def test_tool_spans_carry_name_id_parsed_arguments_recorded_result_and_sequence() -> None:
    trace = trace_from_messages(REFUND, trace_id="t-refund")
    tools = [s.tool for s in trace.spans if s.tool is not None]
    assert [(t.name, t.call_id, t.arguments, t.result, t.sequence) for t in tools] == [
        ("lookup_order", "c1", {"id": 3}, '{"paid": 25.5}', 0),
        ("refund", "c2", {"amount": 25.5}, "refunded", 1),
    ]
    # ToolCall parses the JSON result; the span keeps the text as recorded.
    assert [(c.name, c.result, c.error) for c in trace.tool_calls] == [
        ("lookup_order", {"paid": 25.5}, None),
        ("refund", "refunded", None),
    ]
    # A tool span runs from after its request to just past the message answering it.
    assert [(c.start_ns, c.end_ns) for c in trace.tool_calls] == [(3, 4), (5, 6)]


def test_input_is_the_whole_conversation_in_order() -> None:
    trace = trace_from_messages(REFUND, trace_id="t-refund")
    assert isinstance(trace.input, list)
    assert [as_recorded(m) for m in trace.input] == [source_message(m) for m in REFUND]
    assert trace.input_text == "Refund order A-1003."
    assert trace.input[3].name == "lookup_order"


def test_parallel_tool_calls_pair_by_id_whatever_the_answer_order() -> None:
    messages = [
        {"role": "user", "content": "Weather in Paris and Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                call("w_paris", "weather", {"city": "Paris"}),
                call("w_oslo", "weather", {"city": "Oslo"}),
                call("t_oslo", "time", {"city": "Oslo"}),
            ],
        },
        {"role": "tool", "tool_call_id": "t_oslo", "content": "14:05"},
        {"role": "tool", "tool_call_id": "w_paris", "content": "sunny"},
        {"role": "tool", "tool_call_id": "w_oslo", "content": "rain"},
        {"role": "assistant", "content": "Sunny in Paris; rain in Oslo, at 14:05."},
    ]
    trace = trace_from_messages(messages, trace_id="t-parallel")
    # Requested together, so they start together and keep the order they were requested in.
    assert [(c.call_id, c.arguments, c.result, c.start_ns, c.end_ns) for c in trace.tool_calls] == [
        ("w_paris", {"city": "Paris"}, "sunny", 2, 4),
        ("w_oslo", {"city": "Oslo"}, "rain", 2, 5),
        ("t_oslo", {"city": "Oslo"}, "14:05", 2, 3),
    ]
    assert [s.tool.sequence for s in trace.spans if s.tool is not None] == [0, 1, 2]


def test_an_id_may_be_reused_once_its_call_is_answered() -> None:
    messages = [
        {"role": "user", "content": "Stock of SKU-1, twice."},
        {"role": "assistant", "content": None, "tool_calls": [call("c", "stock", {"n": 1})]},
        {"role": "tool", "tool_call_id": "c", "content": "3"},
        {"role": "assistant", "content": None, "tool_calls": [call("c", "stock", {"n": 2})]},
        {"role": "tool", "tool_call_id": "c", "content": "2"},
    ]
    trace = trace_from_messages(messages, trace_id="t-reuse")
    assert [(c.call_id, c.arguments, c.result) for c in trace.tool_calls] == [
        ("c", {"n": 1}, 3),
        ("c", {"n": 2}, 2),
    ]
    # The last assistant message only called a tool: there is no final answer.
    assert trace.final_output is None


def test_final_output_is_the_last_assistant_text_even_beside_a_tool_call() -> None:
    messages = [
        {"role": "user", "content": "A human, please."},
        {
            "role": "assistant",
            "content": "Transferring you now.",
            "tool_calls": [call("c", "transfer", {})],
        },
        {"role": "tool", "tool_call_id": "c", "content": "Transfer successful"},
    ]
    trace = trace_from_messages(messages, trace_id="t")
    assert trace.final_output == "Transferring you now."


def test_span_ids_are_deterministic_unique_and_otel_sized() -> None:
    first = trace_from_messages(REFUND, trace_id="t-refund")
    again = trace_from_messages(REFUND, trace_id="t-refund")
    other = trace_from_messages(REFUND, trace_id="t-other")
    assert first == again
    ids = [s.span_id for s in first.spans]
    assert len(set(ids)) == len(ids) == 6
    assert all(len(i) == 16 and int(i, 16) >= 0 for i in ids)
    assert not set(ids) & {s.span_id for s in other.spans}


def test_trace_round_trips_through_json() -> None:
    trace = trace_from_messages(REFUND, trace_id="t-refund", metadata={"reward": 1.0})
    assert Trace.model_validate_json(trace.model_dump_json()) == trace


@pytest.mark.parametrize(
    ("messages", "field", "message_part"),
    [
        ([], None, "at least one message"),
        ([{"role": "user", "content": 3}], "[0].content", "content must be text"),
        (
            [{"role": "user", "content": "x", "tool_calls": [call("c", "f", {})]}],
            "[0].tool_calls",
            "only an assistant message calls tools",
        ),
        ([{"role": "tool", "content": "x"}], "[0].tool_call_id", "needs the tool_call_id"),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"a": 1}}}],
                }
            ],
            "[0].tool_calls[0].function.arguments",
            "JSON text",
        ),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"type": "function", "function": {"name": "f", "arguments": "{}"}}
                    ],
                },
                {"role": "tool", "tool_call_id": "c", "content": ""},
            ],
            "[0].tool_calls[0].id",
            "needs a non-empty id",
        ),
        (
            [{"role": "assistant", "tool_calls": [{**call("c", "f", {}), "type": "custom"}]}],
            "[0].tool_calls[0].type",
            "only function tool calls",
        ),
        (
            [{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}],
            "[0].content[0].type",
            "another format's tool call",
        ),
        (
            [{"role": "assistant", "tool_calls": [{**call("c", "f", {}), "index": 3}]}],
            "[0].tool_calls[0].index",
            "not the call's position 0",
        ),
        (
            [
                {"role": "user", "content": "x"},
                {"role": "tool", "tool_call_id": "c", "content": "early"},
                {"role": "assistant", "tool_calls": [call("c", "f", {})]},
            ],
            "[1].tool_call_id",
            "which no earlier tool call has",
        ),
        (
            [
                {"role": "assistant", "tool_calls": [call("c", "f", {})]},
                {"role": "tool", "tool_call_id": "c", "content": "1"},
                {"role": "tool", "tool_call_id": "c", "content": "2"},
            ],
            "[2].tool_call_id",
            "already answered by message 1",
        ),
    ],
)
def test_bad_conversations_raise_record_errors_naming_the_field(
    messages: list[dict[str, Any]], field: str | None, message_part: str
) -> None:
    with pytest.raises(RecordError) as raised:
        trace_from_messages(messages, trace_id="t", source="mine.json")
    assert (raised.value.source, raised.value.field) == ("mine.json", field)
    assert message_part in raised.value.message


def test_sdk_dump_fields_that_say_nothing_are_accepted(fixtures: Path) -> None:
    *_, trace = traces(read(fixtures / "openai" / "conversations.jsonl"))
    assert trace.metadata == {"task_id": 7}
    assert isinstance(trace.input, list)
    assert trace.input[1].tool_calls == [
        MessageToolCall(id="call_1", name="check_stock", arguments={"sku": "SKU-1"})
    ]
    assert [(c.call_id, c.result) for c in trace.tool_calls] == [
        ("call_1", {"in_stock": 3}),
        ("call_1", {"in_stock": 2}),
    ]


# --- files ------------------------------------------------------------------------------------


def test_jsonl_records_of_every_shape(fixtures: Path) -> None:
    refund, parallel, transfer, sdk_dump = traces(read(fixtures / "openai" / "conversations.jsonl"))
    assert refund.trace_id == "conv-refund"
    assert refund.metadata == {"id": "conv-refund", "scenario": "refund", "reward": 1.0}
    assert [c.name for c in refund.tool_calls] == ["lookup_order", "issue_refund"]
    assert refund.tool_calls[1].arguments == {"order_id": "A-1003", "amount": 25.5}
    # A bare list: no metadata, a generated id (the blank line 2 is not a record).
    assert parallel.metadata == {}
    assert parallel.trace_id.startswith("conversations:1:")
    assert [(c.call_id, c.result) for c in parallel.tool_calls] == [
        ("call_w_paris", {"sky": "sunny", "celsius": 21}),
        ("call_w_oslo", {"sky": "rain", "celsius": 9}),
        ("call_t_oslo", "14:05"),
    ]
    # An integer trace_id is its decimal text; parts content is kept as parts.
    assert transfer.trace_id == "42"
    assert isinstance(transfer.input, list)
    assert transfer.input[0] == Message(
        role="user", content=[{"type": "text", "text": "I want a human."}]
    )
    assert transfer.input_text == "I want a human."
    assert sdk_dump.trace_id.startswith("conversations:3:")


def test_json_array_of_tau_bench_shaped_records(fixtures: Path) -> None:
    first, second = traces(read(fixtures / "openai" / "conversations.json"))
    assert first.metadata == {"task_id": 0, "reward": 0.0, "trial": 0}
    (cancel,) = first.tool_calls
    assert (cancel.name, cancel.arguments, cancel.result) == (
        "cancel_reservation",
        {"reservation_id": "XYZ"},
        "Error: reservation XYZ not found",
    )
    # The source flags no tool errors; an "Error:" text is a result, not guessed into an error.
    assert cancel.error is None
    assert first.final_output == "I could not find reservation XYZ."
    assert second.tool_calls == []
    assert first.trace_id != second.trace_id


def test_a_bare_message_list_document_is_one_conversation(fixtures: Path) -> None:
    (trace,) = traces(read(fixtures / "openai" / "single_conversation.json"))
    assert [c.call_id for c in trace.tool_calls] == ["call_w_paris", "call_w_oslo", "call_t_oslo"]
    assert trace.final_output == "Paris: sunny, 21°C. Oslo: rain, 9°C, and it is 14:05 there."


def test_generated_trace_ids_are_stable_and_unique_per_record() -> None:
    record = orjson.dumps({"messages": [{"role": "user", "content": "hi"}]})
    first = traces(read_bytes(record + b"\n" + record + b"\n", "runs/day1.jsonl"))
    again = traces(read_bytes(record + b"\n" + record + b"\n", "runs/day1.jsonl"))
    assert [t.trace_id for t in first] == [t.trace_id for t in again]
    # Identical records in one file still get different ids; the stem and index say where.
    assert first[0].trace_id.startswith("day1:0:")
    assert first[1].trace_id.startswith("day1:1:")
    assert first[0].trace_id.split(":")[2] == first[1].trace_id.split(":")[2]
    changed = traces(read_bytes(record.replace(b"hi", b"ho"), "runs/day1.jsonl"))
    assert changed[0].trace_id != first[0].trace_id
    assert first == again


def test_malformed_jsonl_rejects_each_bad_record_and_imports_the_rest(fixtures: Path) -> None:
    items = read(fixtures / "openai" / "malformed.jsonl")
    assert [t.trace_id for t in items if isinstance(t, Trace)] == ["good-1", "good-2"]
    found = [(r.source, r.line, r.field) for r in rejections(items)]
    assert found == [
        ("malformed.jsonl", 2, None),
        ("malformed.jsonl", 3, "messages[1].role"),
        ("malformed.jsonl", 4, "messages[1].role"),
        ("malformed.jsonl", 5, "messages[1].tool_calls[0].function.name"),
        ("malformed.jsonl", 6, "messages[1].tool_calls[0].function.arguments"),
        ("malformed.jsonl", 7, "messages[1].tool_calls[0].function.arguments"),
        ("malformed.jsonl", 8, "messages[1].tool_calls[0]"),
        ("malformed.jsonl", 9, "messages[1].tool_call_id"),
        ("malformed.jsonl", 10, "messages[1].tool_calls[1].id"),
        ("malformed.jsonl", 11, None),
        ("malformed.jsonl", 12, None),
        ("malformed.jsonl", 14, "messages[1].refusal"),
        ("malformed.jsonl", 15, "messages[2].name"),
    ]
    messages = [r.message for r in rejections(items)]
    for line_index, expected in [
        (0, "not a number"),
        (1, "needs a role"),
        (2, "role 'function' is not one of"),
        (3, "needs a name"),
        (4, "not valid JSON"),
        (5, "must be a JSON object, not an array"),
        (6, "tool call 'c1' has no tool message answering it"),
        (7, "answers 'c9', which no earlier tool call has"),
        (8, "already awaiting an answer"),
        (9, "not valid JSON"),
        (10, "exactly one of messages, traj, conversation"),
        (11, "would drop it"),
        (12, "names tool 'cancel_order'"),
    ]:
        assert expected in messages[line_index], messages[line_index]
    # A rejection names its trace when the record's id can be read.
    assert rejections(items)[10].trace_id == "no-conversation"
    assert str(rejections(items)[4]).startswith(
        "malformed.jsonl:6: field 'messages[1].tool_calls[0].function.arguments': not valid JSON"
    )


def test_json_array_rejection_names_index_path_and_record_start_line(fixtures: Path) -> None:
    items = read(fixtures / "openai" / "malformed.json")
    assert [type(item).__name__ for item in items] == ["Trace", "Rejection", "Trace"]
    rejection = items[1]
    assert isinstance(rejection, Rejection)
    assert (rejection.line, rejection.field) == (21, "[1].traj[1].tool_calls[0].function.arguments")
    assert rejection.trace_id is not None
    assert rejection.trace_id.startswith("malformed:1:")


def test_record_start_lines_are_not_fooled_by_brackets_inside_strings() -> None:
    tricky = b'{"id": "a", "messages": [{"role": "user", "content": "x [ { \\" , ] }"}]}'
    data = b"[\n  " + tricky + b",\n\n  " + tricky.replace(b'"a"', b'"b"') + b",\n  7\n]\n"
    items = read_bytes(data, "tricky.json")
    assert [getattr(item, "trace_id", None) for item in items[:2]] == ["a", "b"]
    assert isinstance(items[0], Trace)
    assert isinstance(items[0].input, list)
    assert items[0].input[0].content == 'x [ { " , ] }'
    rejection = items[2]
    assert isinstance(rejection, Rejection)
    assert (rejection.line, rejection.field) == (5, "[2]")
    assert "not a number" in rejection.message


def test_a_broken_document_is_one_rejection_at_the_line_it_breaks(fixtures: Path) -> None:
    (rejection,) = read(fixtures / "openai" / "broken_document.json")
    assert isinstance(rejection, Rejection)
    assert rejection.line == 10
    assert rejection.message.startswith("not valid JSON")


def test_a_broken_first_line_does_not_hide_the_other_lines() -> None:
    good = orjson.dumps({"id": "g", "messages": [{"role": "user", "content": "hi"}]})
    items = read_bytes(b'{"messages": [\n' + good + b"\n")
    assert [(type(i).__name__, getattr(i, "line", None)) for i in items] == [
        ("Rejection", 1),
        ("Trace", None),
    ]


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"messages": [], "traj": []}, None),
        ({"messages": {"role": "user"}}, "messages"),
        ({"trace_id": ["x"], "messages": [{"role": "user", "content": "x"}]}, "trace_id"),
        ({"id": True, "messages": [{"role": "user", "content": "x"}]}, "id"),
    ],
)
def test_bad_record_shapes_are_rejected(record: dict[str, Any], field: str | None) -> None:
    (item,) = read_bytes(orjson.dumps(record))
    assert isinstance(item, Rejection)
    assert (item.line, item.field) == (1, field)


def test_empty_input_has_no_records() -> None:
    assert read_bytes(b"") == []
    assert read_bytes(b"  \n\n") == []
    assert read_bytes(b"[]") == []


def test_a_byte_order_mark_is_not_part_of_the_json() -> None:
    record = orjson.dumps({"id": "bom", "messages": [{"role": "user", "content": "hi"}]})
    (trace,) = traces(read_bytes(b"\xef\xbb\xbf" + record))
    assert trace.trace_id == "bom"


# --- detection --------------------------------------------------------------------------------


def test_detects_its_own_fixtures(fixtures: Path) -> None:
    for name in ("conversations.jsonl", "conversations.json", "single_conversation.json"):
        assert looks_like_openai_messages((fixtures / "openai" / name).read_bytes()), name


@pytest.mark.parametrize(
    "head",
    [
        b"",
        b"not json",
        b'{"trace_id": "t", "span_id": "s", "name": "chat", "start_ns": 1}',
        # Google ADK: a conversation of invocations with role and parts.
        b'{"eval_cases": [{"conversation": [{"user_content": {"role": "user", "parts": []}}]}]}',
        # Anthropic: content blocks, tool_use among them.
        b'{"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t"}]}]}',
        # Messages somewhere this reader does not look (tau2 task files).
        b'[{"id": "t", "initial_state": {"message_history": [{"role": "user", "content": ""}]}}]',
    ],
)
def test_does_not_claim_other_formats(head: bytes) -> None:
    assert not looks_like_openai_messages(head)


def test_detects_records_whose_messages_come_after_other_fields() -> None:
    head = b'[\n  {"task_id": 0, "info": {"x": 1}, "traj": [{"content": "hi", "role": "user"}]}'
    assert looks_like_openai_messages(head)


# --- the recorded tau-bench trajectories ----------------------------------------------------


@pytest.mark.external
def test_tau_bench_trajectories_all_import_with_every_call_paired(external: Path) -> None:
    path = external / TAU_BENCH_TRAJECTORIES
    source_records = orjson.loads(path.read_bytes())
    items = read(path)
    assert rejections(items) == []
    imported = traces(items)
    assert len(imported) == len(source_records) == 200
    assert len({t.trace_id for t in imported}) == 200
    for trace, record in zip(imported, source_records, strict=True):
        recorded_calls = [c for m in record["traj"] for c in m.get("tool_calls") or []]
        assert len(trace.tool_calls) == len(recorded_calls)
        assert all(c.result is not None for c in trace.tool_calls)
        # Each call's result is the content of the tool message right after it (as recorded).
        answers = {
            index: m["content"] for index, m in enumerate(record["traj"]) if m["role"] == "tool"
        }
        tool_spans = [s for s in trace.spans if s.tool is not None]
        assert [s.tool.result for s in tool_spans if s.tool is not None] == [
            answers[s.end_ns - 1] for s in tool_spans
        ]
        assert isinstance(trace.input, list)
        assert [as_recorded(m) for m in trace.input] == [source_message(m) for m in record["traj"]]
        assert trace.metadata == {k: v for k, v in record.items() if k != "traj"}


@pytest.mark.external
def test_tau_bench_spot_check_and_published_pass_rate(external: Path) -> None:
    imported = traces(read(external / TAU_BENCH_TRAJECTORIES))
    first = imported[0]
    assert first.metadata["task_id"] == 0
    assert first.trace_id.startswith("gpt-4o-airline-trajectories:0:")
    lookup = first.tool_calls[0]
    assert (lookup.name, lookup.call_id, lookup.arguments) == (
        "get_user_details",
        "call_oIHazX6yQrB8hUwl4cRilFKj",
        {"user_id": "mia_li_3668"},
    )
    assert lookup.result["name"] == {"first_name": "Mia", "last_name": "Li"}
    assert lookup.result["address"]["city"] == "Austin"
    # Record 13 reuses call ids once answered; each use pairs with its own answer.
    reused = [c for c in imported[13].tool_calls if c.call_id == "call_dhYivf6VRUVJfU9DItC2EQ95"]
    assert [c.name for c in reused] == ["search_direct_flight", "update_reservation_flights"]
    assert isinstance(reused[0].result, list)
    assert reused[1].result == "Error: flight HAT030 not available on date 2024-05-13"
    # Rewards survive verbatim in metadata: pass^1 is the published 0.42.
    successes = [abs(t.metadata["reward"] - 1) <= 1e-6 for t in imported]
    assert sum(successes) / len(successes) == pytest.approx(0.42)


@pytest.mark.external
def test_tau_bench_file_is_detected(external: Path) -> None:
    head = (external / TAU_BENCH_TRAJECTORIES).read_bytes()[: 1 << 20]
    assert looks_like_openai_messages(head)
