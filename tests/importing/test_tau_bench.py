"""The tau-bench results reader: records, the task kept with each trial, rejections, detection,
and the recorded GPT-4o airline trajectories."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest

from trailcheck.importing.formats import detect_format
from trailcheck.importing.importer import ImportSummary, iter_import
from trailcheck.importing.message_logs import read_openai_messages, trace_from_messages
from trailcheck.importing.records import Rejection
from trailcheck.importing.tau_bench import looks_like_tau_bench, read_tau_bench
from trailcheck.trace import Trace
from trailcheck.trace.unread import unread_parts

TAU_BENCH_TRAJECTORIES = Path("tau-bench") / "gpt-4o-airline-trajectories.json"

ACTION = {"name": "cancel_reservation", "kwargs": {"reservation_id": "XYZ"}}


def conversation() -> list[dict[str, Any]]:
    arguments = orjson.dumps(ACTION["kwargs"]).decode()
    return [
        {"role": "system", "content": "You are an airline agent."},
        {"role": "user", "content": "Cancel reservation XYZ."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "cancel_reservation", "arguments": arguments},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "name": "cancel_reservation", "content": "ok"},
        {"role": "assistant", "content": "Your reservation XYZ is cancelled."},
    ]


def result(task_id: Any = 3, trial: Any = 1, reward: Any = 1.0, **changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "task_id": task_id,
        "reward": reward,
        "info": {
            "task": {
                "user_id": "u1",
                "actions": [ACTION],
                "instruction": "You want to cancel XYZ.",
                "outputs": ["cancelled"],
            },
            "source": "user",
        },
        "traj": conversation(),
        "trial": trial,
    }
    return {**record, **changes}


def read_bytes(data: bytes, source: str = "run.json") -> list[Trace | Rejection]:
    return list(read_tau_bench(io.BytesIO(data), source))


def read_records(*records: Any, source: str = "run.json") -> list[Trace | Rejection]:
    return read_bytes(orjson.dumps(list(records), option=orjson.OPT_INDENT_2), source)


def only_trace(items: list[Trace | Rejection]) -> Trace:
    (item,) = items
    assert isinstance(item, Trace), str(item)
    return item


# --- what a record becomes -----------------------------------------------------------------


def test_a_result_keeps_its_task_reward_trial_and_expected_actions() -> None:
    trace = only_trace(read_records(result()))
    assert trace.trace_id == "run:task-3:trial-1"
    record = result()
    assert trace.metadata == {
        "task_id": 3,
        "reward": 1.0,
        "trial": 1,
        "info": record["info"],
        "expected_actions": [
            {"name": "cancel_reservation", "arguments": {"reservation_id": "XYZ"}}
        ],
        "expected_outputs": ["cancelled"],
    }
    assert [(c.name, c.arguments, c.result) for c in trace.tool_calls] == [
        ("cancel_reservation", {"reservation_id": "XYZ"}, "ok")
    ]
    assert trace.final_output == "Your reservation XYZ is cancelled."


def test_spans_are_those_of_the_openai_reader() -> None:
    trace = only_trace(read_records(result()))
    same = trace_from_messages(conversation(), trace_id=trace.trace_id, metadata=trace.metadata)
    assert trace == same


def test_a_missing_trial_is_replaced_by_the_record_index_in_the_id() -> None:
    record = result(task_id="t-9")
    del record["trial"]
    _, second = read_records(result(), record)
    assert isinstance(second, Trace)
    assert second.trace_id == "run:task-t-9:record-1"
    assert "trial" not in second.metadata


def test_json_lines_and_a_lone_record_read_too() -> None:
    lines = b"\n".join(orjson.dumps(result(trial=trial)) for trial in range(3))
    assert [t.trace_id for t in read_bytes(lines, "r.jsonl") if isinstance(t, Trace)] == [
        "r:task-3:trial-0",
        "r:task-3:trial-1",
        "r:task-3:trial-2",
    ]
    assert only_trace(read_bytes(orjson.dumps(result()), "one.json")).trace_id == (
        "one:task-3:trial-1"
    )


def test_a_trial_the_harness_could_not_run_is_kept_without_spans() -> None:
    failed = result(traj=[], reward=0.0, info={"error": "RateLimitError", "traceback": "..."})
    trace = only_trace(read_records(failed))
    assert trace.spans == []
    assert trace.input is None
    assert trace.metadata["info"]["error"] == "RateLimitError"
    assert trace.metadata["reward"] == 0.0


# --- rejections ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "field", "message"),
    [
        (result(task_id=None), "[1].task_id", "task_id must be an integer or non-empty text"),
        (result(task_id=True), "[1].task_id", "task_id must be an integer or non-empty text"),
        (result(reward="1.0"), "[1].reward", "reward must be a number, not a string"),
        (result(trial=-1), "[1].trial", "trial must be a non-negative integer"),
        (result(info=None), "[1].info", "info must be a JSON object, not null"),
        (result(traj={}), "[1].traj", "traj must be a JSON array of messages"),
        (result(info={"source": "user"}), "[1].info.task", "the task the trial ran must be"),
        (
            result(info={"task": {"actions": [{"name": "x", "kwargs": []}]}}),
            "[1].info.task.actions[0].kwargs",
            "kwargs must be a JSON object, not an array",
        ),
        (
            result(info={"task": {"actions": [{"name": "x"}]}}),
            "[1].info.task.actions[0].kwargs",
            "an action needs its kwargs, as a JSON object ({} for none)",
        ),
        (
            result(info={"task": {"actions": [{"kwargs": {}}]}}),
            "[1].info.task.actions[0].name",
            "an action needs a name",
        ),
        (
            result(info={"task": {"actions": [], "outputs": [1]}}),
            "[1].info.task.outputs",
            "outputs must be a JSON array of text",
        ),
        (
            result(traj=[{"role": "user", "content": "hi"}, "hi"]),
            "[1].traj[1]",
            "a message must be a JSON object, not a string",
        ),
        ("not a record", "[1]", "a tau-bench result must be a JSON object, not a string"),
    ],
)
def test_a_bad_record_is_rejected_naming_file_line_and_field(
    record: Any, field: str, message: str
) -> None:
    good, bad, also_good = read_records(result(trial=0), record, result(trial=2), source="r.json")
    assert isinstance(good, Trace)
    assert isinstance(also_good, Trace)
    assert isinstance(bad, Rejection)
    assert (bad.source, bad.field) == ("r.json", field)
    assert bad.message.startswith(message), bad.message
    # The line where the second record starts in the indented array.
    assert bad.line == 2 + len(
        orjson.dumps(result(trial=0), option=orjson.OPT_INDENT_2).split(b"\n")
    )
    assert str(bad).startswith(f"r.json:{bad.line}: field '{field}': ")


def test_a_message_no_reader_knows_is_reported_at_its_place_in_the_results() -> None:
    robot = {"role": "robot", "content": "beep"}
    first, second = read_records(result(), result(trial=2, traj=[*conversation(), robot]))
    assert isinstance(first, Trace)
    assert isinstance(second, Trace)
    assert unread_parts(first.metadata) == []
    [part] = unread_parts(second.metadata)
    assert part["field"] == "[1].traj[" + str(len(conversation())) + "]"
    assert part["kept"] == robot
    assert "role 'robot'" in part["reason"]


def test_a_broken_document_is_one_rejection() -> None:
    (rejection,) = read_bytes(b'[{"task_id": 1, "reward": ')
    assert isinstance(rejection, Rejection)
    assert rejection.message.startswith("not valid JSON")


# --- detection --------------------------------------------------------------------------------


def test_detection_takes_tau_bench_results_and_leaves_plain_conversations(
    tmp_path: Path, fixtures: Path
) -> None:
    results = tmp_path / "results.json"
    results.write_bytes(orjson.dumps([result()], option=orjson.OPT_INDENT_2))
    assert detect_format(results).name == "tau-bench"
    # A scored conversation without the task beside it stays the OpenAI reader's.
    assert detect_format(fixtures / "openai" / "conversations.json").name == "openai"
    for other in ("otlp/genai_agent_run.json", "otel/genai-current.jsonl"):
        assert not looks_like_tau_bench((fixtures / other).read_bytes())


def test_an_import_reads_it_through_the_formats(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    results.write_bytes(orjson.dumps([result(trial=0), result(trial=1)]))
    summary = ImportSummary()
    traces = list(iter_import([results], summary=summary))
    assert summary.formats == {str(results): "tau-bench"}
    assert [t.trace_id for t in traces] == ["results:task-3:trial-0", "results:task-3:trial-1"]


# --- the recorded GPT-4o airline trajectories -------------------------------------------------


@pytest.mark.external
def test_every_recorded_trajectory_imports_with_its_task(external: Path) -> None:
    path = external / TAU_BENCH_TRAJECTORIES
    assert detect_format(path).name == "tau-bench"
    records = orjson.loads(path.read_bytes())
    with path.open("rb") as stream:
        items = list(read_tau_bench(stream, path.name))
    assert [str(item) for item in items if isinstance(item, Rejection)] == []
    with path.open("rb") as stream:
        as_conversations = list(read_openai_messages(stream, path.name))
    assert len(items) == len(records) == 200
    assert len({item.trace_id for item in items if isinstance(item, Trace)}) == 200
    for trace, record, plain in zip(items, records, as_conversations, strict=True):
        assert isinstance(trace, Trace)
        assert isinstance(plain, Trace)
        assert (
            trace.trace_id
            == f"gpt-4o-airline-trajectories:task-{record['task_id']}:trial-{record['trial']}"
        )
        # The same calls as the plain reader finds (span ids differ: they follow the trace id).
        assert [(c.call_id, c.name, c.arguments, c.result) for c in trace.tool_calls] == [
            (c.call_id, c.name, c.arguments, c.result) for c in plain.tool_calls
        ]
        assert (trace.metadata["task_id"], trace.metadata["trial"]) == (
            record["task_id"],
            record["trial"],
        )
        assert trace.metadata["reward"] == record["reward"]
        assert trace.metadata["expected_actions"] == [
            {"name": action["name"], "arguments": action["kwargs"]}
            for action in record["info"]["task"]["actions"]
        ]
    first = items[0]
    assert isinstance(first, Trace)
    assert first.metadata["expected_actions"][0]["name"] == "book_reservation"
    assert first.metadata["expected_actions"][0]["arguments"]["cabin"] == "economy"
