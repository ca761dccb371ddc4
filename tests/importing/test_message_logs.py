"""The OpenAI chat-messages importer: record shapes, tool-call pairing, ids, what is read around
(left out and named in the reading report), rejections, detection, and the recorded tau-bench
trajectories."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest

from trailcheck.errors import RecordError
from trailcheck.importing.conventions.chat_messages import parse_message
from trailcheck.importing.importer import ImportSummary, capture_warnings, iter_import
from trailcheck.importing.message_logs import (
    looks_like_openai_messages,
    read_openai_messages,
    trace_from_messages,
)
from trailcheck.importing.records import Rejection
from trailcheck.trace import Message, MessageToolCall, Trace
from trailcheck.trace.unread import unread_parts

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
        ({"role": "user", "content": "x"}, None, "messages must be a JSON array"),
        ([{"role": "user", "content": "x"}, 5], "[1]", "a message must be a JSON object"),
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
            [
                {"role": "user", "content": "x"},
                {"role": "assistant", "tool_calls": [call("c", "f", {})]},
            ],
            "[1].tool_calls[0]",
            "tool call 'c' has no tool message answering it",
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
        (
            [
                {"role": "assistant", "tool_calls": [call("c", "f", {})]},
                {"role": "tool", "tool_call_id": "c", "name": "g", "content": "1"},
            ],
            "[1].name",
            "names tool 'g', but the call it answers (tool call 0 of message 0) is to 'f'",
        ),
    ],
)
def test_broken_conversations_raise_record_errors_naming_the_field(
    messages: Any, field: str | None, message_part: str
) -> None:
    # Broken structure: no array of messages, a message that is not an object, and (in a
    # conversation read whole) tool calls that do not pair up.
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


# --- what is read around: left out, named in the reading report ------------------------------

UNKNOWN_ROLE_REASON = (
    "role: role 'ipython' is not one of system, developer, user, assistant, tool,"
    " nor an alias of one (function, tool-call, tool-response, model, human, ai)"
)


def with_message_at(messages: list[dict[str, Any]], index: int, extra: Any) -> list[Any]:
    return [*messages[:index], extra, *messages[index:]]


def test_an_unknown_role_message_is_left_out_and_named_verbatim_in_the_reading_report() -> None:
    ipython = {"role": "ipython", "content": "print(lookup('A-1003'))"}
    trace = trace_from_messages(with_message_at(REFUND, 2, ipython), trace_id="t")
    # The other messages, their tool calls and the final answer are read as without it.
    assert isinstance(trace.input, list)
    assert [as_recorded(m) for m in trace.input] == [source_message(m) for m in REFUND]
    assert [(c.name, c.call_id, c.arguments, c.result) for c in trace.tool_calls] == [
        ("lookup_order", "c1", {"id": 3}, {"paid": 25.5}),
        ("refund", "c2", {"amount": 25.5}, "refunded"),
    ]
    # Times are positions in the input, the messages read.
    assert [(c.start_ns, c.end_ns) for c in trace.tool_calls] == [(3, 4), (5, 6)]
    assert trace.final_output == "Refunded 25.50."
    assert trace.metadata == {
        "trailcheck.unread": [
            {"span_id": None, "field": "[2]", "reason": UNKNOWN_ROLE_REASON, "kept": ipython}
        ]
    }
    assert Trace.model_validate_json(trace.model_dump_json()) == trace


def test_the_report_names_the_message_by_its_path_in_the_file() -> None:
    ipython = {"role": "ipython", "content": "x"}
    record = {"id": "r", "task_id": 4, "traj": with_message_at(REFUND, 5, ipython)}
    (trace,) = traces(read_bytes(orjson.dumps(record)))
    assert [(p["field"], p["kept"]) for p in unread_parts(trace.metadata)] == [("traj[5]", ipython)]
    # The record's own fields stay beside the report.
    assert trace.metadata["task_id"] == 4
    first, second = traces(read_bytes(orjson.dumps([{**record, "id": "a"}, record]), "two.json"))
    assert [p["field"] for t in (first, second) for p in unread_parts(t.metadata)] == [
        "[0].traj[5]",
        "[1].traj[5]",
    ]


def test_the_import_summary_counts_a_partly_read_conversation(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    ipython = {"role": "ipython", "content": "x"}
    records = [
        {"id": "whole", "messages": REFUND},
        {"id": "partly", "messages": with_message_at(REFUND, 2, ipython)},
    ]
    path.write_bytes(b"\n".join(orjson.dumps(record) for record in records))
    summary = ImportSummary()
    imported = list(iter_import([path], summary=summary))  # the format detected
    assert summary.formats == {str(path): "openai"}
    assert [t.trace_id for t in imported] == ["whole", "partly"]
    assert (summary.imported, summary.rejected, summary.partly_read) == (2, 0, 1)
    assert summary.rejections == []
    assert summary.ok
    (note,) = [line for line in capture_warnings(summary) if "verbatim" in line]
    assert note.startswith("note: 1 trace(s) hold parts trailcheck kept verbatim")


def test_alias_roles_read_as_the_roles_they_are() -> None:
    messages = [
        {"role": "human", "content": "Stock of SKU-1?"},
        {"role": "ai", "content": None, "tool_calls": [call("c1", "check_stock", {"sku": 1})]},
        {"role": "function", "tool_call_id": "c1", "name": "check_stock", "content": "3"},
        {"role": "ai", "content": "3 in stock."},
    ]
    trace = trace_from_messages(messages, trace_id="t-alias")
    assert isinstance(trace.input, list)
    assert [m.role for m in trace.input] == ["user", "assistant", "tool", "assistant"]
    assert trace.input_text == "Stock of SKU-1?"
    assert [(c.name, c.call_id, c.arguments, c.result) for c in trace.tool_calls] == [
        ("check_stock", "c1", {"sku": 1}, 3)
    ]
    assert trace.final_output == "3 in stock."
    assert unread_parts(trace.metadata) == []


def test_the_strict_reading_other_importers_use_knows_no_alias() -> None:
    # logfire's OpenAI Agents spans read their messages strictly, and note what fails.
    with pytest.raises(RecordError, match="role 'function' is not one of"):
        parse_message({"role": "function", "tool_call_id": "c", "content": "x"}, "[0]")
    with pytest.raises(RecordError, match="would drop it"):
        parse_message({"role": "assistant", "content": None, "refusal": "No."}, "[0]")


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ({"role": "robot", "content": "hi"}, "role: role 'robot' is not one of system"),
        ({"role": ["user"], "content": "hi"}, "role: role ['user'] is not one of system"),
        ({"content": "no role here"}, "role: a message needs a role"),
        ({"role": "user", "content": 3}, "content: content must be text"),
        (
            {"role": "user", "content": [{"type": "tool_result", "content": "x"}]},
            "content[0].type: a 'tool_result' part is another format's tool call",
        ),
        (
            {"role": "user", "content": "x", "tool_calls": [call("c", "f", {})]},
            "tool_calls: only an assistant message calls tools",
        ),
        (
            {"role": "function", "name": "lookup_order", "content": "legacy"},
            "tool_call_id: a tool message needs the tool_call_id",
        ),
        (
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"a": 1}}}],
            },
            "tool_calls[0].function.arguments: arguments must be the JSON text of an object",
        ),
        (
            {"role": "assistant", "tool_calls": [{**call("c", "f", {}), "type": "custom"}]},
            "tool_calls[0].type: type 'custom' is not 'function'",
        ),
        (
            {"role": "assistant", "tool_calls": [{**call("c", "f", {}), "index": 3}]},
            "tool_calls[0].index: index 3 is not the call's position 0",
        ),
    ],
)
def test_a_message_that_cannot_be_read_is_left_out_and_reported(
    message: dict[str, Any], reason: str
) -> None:
    question = {"role": "user", "content": "Look up order A-1."}
    answer = {"role": "assistant", "content": "Done."}
    trace = trace_from_messages([question, message, answer], trace_id="t")
    assert isinstance(trace.input, list)
    assert [as_recorded(m) for m in trace.input] == [
        source_message(question),
        source_message(answer),
    ]
    assert trace.final_output == "Done."
    assert trace.tool_calls == []
    (part,) = unread_parts(trace.metadata)
    assert (part["span_id"], part["field"], part["kept"]) == (None, "[1]", message)
    assert part["reason"].startswith(reason), part["reason"]


def test_a_conversation_of_unreadable_messages_imports_empty_and_says_so() -> None:
    robot = {"role": "robot", "content": "beep"}
    trace = trace_from_messages([robot], trace_id="t")
    assert (trace.input, trace.final_output, trace.tool_calls) == ([], None, [])
    assert [(p["field"], p["kept"]) for p in unread_parts(trace.metadata)] == [("[0]", robot)]


def test_a_field_with_no_place_is_reported_and_its_message_read_without_it() -> None:
    extra = {"google": {"thought_signature": "c2ln"}}
    messages = [
        {"role": "user", "content": "Stock of SKU-1?"},
        {
            "role": "assistant",
            "content": "Checking.",
            "refusal": "Not that.",
            "tool_calls": [{**call("c1", "check_stock", {}), "extra_content": extra}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "3"},
    ]
    trace = trace_from_messages(messages, trace_id="t")
    assert isinstance(trace.input, list)
    assert trace.input[1] == Message(
        role="assistant",
        content="Checking.",
        tool_calls=[MessageToolCall(id="c1", name="check_stock", arguments={})],
    )
    assert [(c.call_id, c.result) for c in trace.tool_calls] == [("c1", 3)]
    reason = "the trace model has no place for this field; the message is read without it"
    assert unread_parts(trace.metadata) == [
        {"span_id": None, "field": "[1].refusal", "reason": reason, "kept": "Not that."},
        {
            "span_id": None,
            "field": "[1].tool_calls[0].extra_content",
            "reason": reason,
            "kept": extra,
        },
    ]


def test_a_call_whose_answer_was_left_out_is_a_call_without_a_result() -> None:
    messages = [
        {"role": "user", "content": "Stock of SKU-1?"},
        {"role": "assistant", "content": None, "tool_calls": [call("c1", "check_stock", {})]},
        {"role": "tool", "tool_call_id": "c1", "content": 3},
        {"role": "assistant", "content": "Unknown."},
    ]
    trace = trace_from_messages(messages, trace_id="t")
    assert [(c.name, c.call_id, c.result, c.start_ns, c.end_ns) for c in trace.tool_calls] == [
        ("check_stock", "c1", None, 2, 3)  # it lasts to the last message read
    ]
    assert trace.final_output == "Unknown."
    assert [(p["field"], p["reason"]) for p in unread_parts(trace.metadata)] == [
        ("[2]", "content: content must be text, an array of parts or null, not a number"),
        ("[1].tool_calls[0]", "tool call 'c1' has no tool message answering it"),
    ]


def test_an_answer_whose_call_was_left_out_stays_in_the_input_and_answers_nothing() -> None:
    messages = [
        {"role": "user", "content": "Stock of SKU-1?"},
        {"role": "assistant", "content": None, "tool_calls": [call("c1", "check_stock", "{")]},
        {"role": "tool", "tool_call_id": "c1", "content": "error: bad arguments"},
        {"role": "assistant", "content": "Sorry."},
    ]
    trace = trace_from_messages(messages, trace_id="t")
    assert isinstance(trace.input, list)
    assert [(m.role, m.content) for m in trace.input] == [
        ("user", "Stock of SKU-1?"),
        ("tool", "error: bad arguments"),
        ("assistant", "Sorry."),
    ]
    assert trace.tool_calls == []
    assert [s.kind for s in trace.spans] == ["agent", "llm"]
    assert [(p["field"], p.get("kept") is not None) for p in unread_parts(trace.metadata)] == [
        ("[1]", True),
        ("[2].tool_call_id", False),
    ]


def test_an_id_reused_after_a_lost_answer_pairs_with_the_later_call() -> None:
    messages = [
        {"role": "user", "content": "Stock, then price."},
        {"role": "assistant", "content": None, "tool_calls": [call("c", "stock", {})]},
        {"role": "tool", "tool_call_id": "c", "content": {"n": 3}},
        {"role": "assistant", "content": None, "tool_calls": [call("c", "price", {})]},
        {"role": "tool", "tool_call_id": "c", "content": "9.99"},
        {"role": "assistant", "content": "3 at 9.99."},
    ]
    trace = trace_from_messages(messages, trace_id="t")
    assert [(c.name, c.result) for c in trace.tool_calls] == [("stock", None), ("price", 9.99)]
    assert [p["field"] for p in unread_parts(trace.metadata)] == ["[2]", "[3].tool_calls[0].id"]
    assert "already awaiting an answer for tool call 0 of message 1" in str(
        unread_parts(trace.metadata)[1]["reason"]
    )


def test_when_the_last_assistant_message_is_left_out_there_is_no_final_output() -> None:
    question = {"role": "user", "content": "Refund A-1."}
    first = {"role": "assistant", "content": "Let me check."}
    lost = {"role": "ai", "content": 42}
    robot = {"role": "robot", "content": "beep"}
    # An earlier answer is not the last model call's answer.
    assert trace_from_messages([question, first, lost], trace_id="t").final_output is None
    # A message of unknown role says nothing about it.
    assert trace_from_messages([question, first, robot], trace_id="t").final_output == (
        "Let me check."
    )


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


def test_malformed_jsonl_rejects_each_broken_record_and_imports_the_rest(fixtures: Path) -> None:
    items = read(fixtures / "openai" / "malformed.jsonl")
    found = [(r.source, r.line, r.field) for r in rejections(items)]
    assert found == [
        ("malformed.jsonl", 2, None),
        ("malformed.jsonl", 8, "messages[1].tool_calls[0]"),
        ("malformed.jsonl", 9, "messages[1].tool_call_id"),
        ("malformed.jsonl", 10, "messages[1].tool_calls[1].id"),
        ("malformed.jsonl", 11, None),
        ("malformed.jsonl", 12, None),
        ("malformed.jsonl", 15, "messages[2].name"),
    ]
    messages = [r.message for r in rejections(items)]
    for line_index, expected in [
        (0, "not a number"),
        (1, "tool call 'c1' has no tool message answering it"),
        (2, "answers 'c9', which no earlier tool call has"),
        (3, "already awaiting an answer"),
        (4, "not valid JSON"),
        (5, "exactly one of messages, traj, conversation"),
        (6, "names tool 'cancel_order'"),
    ]:
        assert expected in messages[line_index], messages[line_index]
    # A rejection names its trace when the record's id can be read.
    assert rejections(items)[5].trace_id == "no-conversation"
    assert str(rejections(items)[1]).startswith(
        "malformed.jsonl:8: field 'messages[1].tool_calls[0]': tool call 'c1' has no tool message"
    )
    # The records whose messages could not all be read are imported, and say what was not.
    imported = [item for item in items if isinstance(item, Trace)]
    assert [t.trace_id for t in imported if not unread_parts(t.metadata)] == ["good-1", "good-2"]
    reports = [
        [(part["field"], part["reason"]) for part in unread_parts(t.metadata)]
        for t in imported
        if unread_parts(t.metadata)
    ]
    assert [[field for field, _ in report] for report in reports] == [
        ["messages[1]"],
        ["messages[1]"],
        ["messages[1]", "messages[2].tool_call_id"],
        ["messages[1]", "messages[2].tool_call_id"],
        ["messages[1]", "messages[2].tool_call_id"],
        ["messages[1].refusal"],
    ]
    assert reports[0][0][1] == "role: a message needs a role"
    # A legacy function message is a tool message, but without a tool_call_id it answers none.
    assert reports[1][0][1].startswith("tool_call_id: a tool message needs the tool_call_id")
    assert (
        reports[2][0][1]
        == "tool_calls[0].function.name: a tool call needs a name, as non-empty text"
    )
    assert reports[2][1][1] == "this tool message answers 'c1', which no earlier tool call has"


def test_json_array_report_and_rejection_name_the_record_path(fixtures: Path) -> None:
    items = read(fixtures / "openai" / "malformed.json")
    first, partly_read, last = traces(items)
    assert unread_parts(first.metadata) == unread_parts(last.metadata) == []
    assert [
        (p["field"], p.get("kept", {}).get("role")) for p in unread_parts(partly_read.metadata)
    ] == [
        ("[1].traj[1]", "assistant"),
        ("[1].traj[2].tool_call_id", None),
    ]
    assert partly_read.trace_id.startswith("malformed:1:")
    # Broken structure in an array of records: the record's start line and its path.
    good = {"id": "a", "traj": [{"role": "user", "content": "x"}]}
    broken = {"id": "b", "traj": [{"role": "user", "content": "x"}, ["not", "a", "message"]]}
    data = orjson.dumps([good, broken], option=orjson.OPT_INDENT_2)
    trace, rejection = read_bytes(data, "runs.json")
    assert isinstance(trace, Trace)
    assert isinstance(rejection, Rejection)
    # The record starts on the line before its first field.
    start_line = data[: data.index(b'"id": "b"')].count(b"\n")
    assert (rejection.line, rejection.field, rejection.trace_id) == (start_line, "[1].traj[1]", "b")
    assert rejection.message == "a message must be a JSON object, not an array"


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
