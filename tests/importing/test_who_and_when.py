"""The Who&When reader: a log as a trace of one span per step with its agent kept, its label kept
out of the trace and read beside it, rejections, detection, and the published logs when
``../shared/external/who-and-when`` holds them."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest

from trailcheck.importing.formats import detect_format
from trailcheck.importing.importer import ImportSummary, iter_import
from trailcheck.importing.records import Rejection
from trailcheck.importing.who_and_when import (
    WhoAndWhenMistake,
    looks_like_who_and_when,
    read_who_and_when,
    read_who_and_when_logs,
    who_and_when_agent,
)
from trailcheck.scorers.steps import same_agent, step_agent, trace_steps
from trailcheck.trace import Trace

GENERATED = Path("who_and_when") / "Algorithm-Generated" / "7.json"
HAND_CRAFTED = Path("who_and_when") / "Hand-Crafted" / "3.json"
PUBLISHED = Path("who-and-when")


def read(path: Path) -> list[Trace | Rejection]:
    with path.open("rb") as stream:
        return list(read_who_and_when(stream, str(path)))


def logs(data: bytes, source: str = "/data/Hand-Crafted/9.json") -> list[Any]:
    return list(read_who_and_when_logs(io.BytesIO(data), source))


def test_a_generated_team_log_is_a_step_per_message_with_its_agent(fixtures: Path) -> None:
    (trace,) = read(fixtures / GENERATED)
    assert isinstance(trace, Trace)
    assert trace.trace_id == "who-and-when:Algorithm-Generated/7"
    assert trace.input_text.startswith("How many of the three sample invoices")
    steps = trace_steps(trace)
    assert [span.name for span in steps] == [
        "Planner_Expert",
        "Data_Expert",
        "Computer_terminal",
        "Verification_Expert",
        "Planner_Expert",
    ]
    assert [step_agent(trace, span) for span in steps] == [span.name for span in steps]
    assert steps[1].attributes["output.value"].startswith("```python")
    assert steps[1].attributes["who_and_when.index"] == 1
    assert trace.metadata["ground_truth"] == "2"
    assert trace.metadata["system_prompt"]["Data_Expert"].startswith("You write Python")


def test_the_label_stays_out_of_the_trace_and_is_read_beside_it(fixtures: Path) -> None:
    path = fixtures / GENERATED
    ((trace, mistake),) = logs(path.read_bytes(), str(path))
    text = trace.model_dump_json()
    assert "mistake" not in text
    assert "a year too early" not in text
    assert mistake == WhoAndWhenMistake(
        trace_id=trace.trace_id,
        agent="Data_Expert",
        step=2,  # history entry 1, counted from 1 as Attribution counts steps
        reason="The code compares the due dates with 2023-06-01, a year too early, instead of"
        " 2024-06-01.",
        folder="Algorithm-Generated",
    )
    assert trace_steps(trace)[mistake.step - 1].name == "Data_Expert"


def test_a_hand_crafted_role_names_its_agent_without_the_remark(fixtures: Path) -> None:
    path = fixtures / HAND_CRAFTED
    ((trace, mistake),) = logs(path.read_bytes(), str(path))
    steps = trace_steps(trace)
    assert steps[2].name == "Orchestrator (-> WebSurfer)"
    assert [step_agent(trace, span) for span in steps] == [
        "human",
        "Orchestrator",
        "Orchestrator",
        "WebSurfer",
        "Orchestrator",
        "Orchestrator",
    ]
    # The published label writes "Websurfer": the same agent, ignoring case.
    assert (mistake.agent, mistake.step) == ("Websurfer", 4)
    assert same_agent(step_agent(trace, steps[mistake.step - 1]), mistake.agent)
    assert trace.metadata["is_corrected"] is False


@pytest.mark.parametrize(
    ("speaker", "agent"),
    [
        ("Orchestrator (thought)", "Orchestrator"),
        ("Orchestrator (-> WebSurfer)", "Orchestrator"),
        ("Excel_Expert", "Excel_Expert"),
        ("(thought)", "(thought)"),
    ],
)
def test_the_agent_of_a_speaker(speaker: str, agent: str) -> None:
    assert who_and_when_agent(speaker) == agent


def log(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "question": "q",
        "ground_truth": "a",
        "history": [{"content": "hi", "role": "human"}, {"content": "x", "role": "Agent"}],
        "mistake_agent": "Agent",
        "mistake_step": "1",
    }
    record.update(changes)
    return {key: value for key, value in record.items() if value is not None}


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"history": []}, "history", "non-empty JSON array"),
        ({"history": [{"content": "x"}]}, "history[0]", "'name' or 'role'"),
        ({"history": [{"content": 3, "role": "A"}]}, "history[0].content", "must be text"),
        ({"question": 5}, "question", "must be text"),
        ({"mistake_step": "2"}, "mistake_step", "past the last of the 2 history entries"),
        ({"mistake_step": "one"}, "mistake_step", "0-based index"),
        ({"mistake_step": -1}, "mistake_step", "0-based index"),
        ({"mistake_agent": ""}, "mistake_agent", "non-empty text"),
        ({"mistake_reason": 7}, "mistake_reason", "must be text"),
    ],
)
def test_a_malformed_log_is_rejected_naming_its_field(
    changes: dict[str, Any], field: str, message: str
) -> None:
    data = orjson.dumps(log(**changes))
    (rejection,) = list(read_who_and_when(io.BytesIO(data), "9.json"))
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.line) == (field, 1)
    assert message in rejection.message
    assert [type(item) for item in logs(data)] == [Rejection]


def test_an_unlabelled_log_is_a_trace_with_no_label() -> None:
    data = orjson.dumps(log(mistake_agent=None, mistake_step=None))
    ((trace, mistake),) = logs(data)
    assert (trace.trace_id, mistake) == ("who-and-when:Hand-Crafted/9", None)
    assert len(trace_steps(trace)) == 2


def test_the_logs_of_an_array_are_numbered_after_the_file() -> None:
    data = orjson.dumps([log(), log(mistake_step=0)])
    traces = [item[0] for item in logs(data)]
    assert [t.trace_id for t in traces] == [
        "who-and-when:Hand-Crafted/9",
        "who-and-when:Hand-Crafted/9#1",
    ]


def test_detection_takes_who_and_when_logs_and_nothing_else(fixtures: Path) -> None:
    assert detect_format(fixtures / GENERATED).name == "who-and-when"
    assert detect_format(fixtures / HAND_CRAFTED).name == "who-and-when"
    assert looks_like_who_and_when(orjson.dumps(log()))
    assert not looks_like_who_and_when(b'{"trace_id": "t", "history": [], "question": "q"}')
    openai = b'{"messages": [{"role": "user", "content": "hi"}]}'
    assert not looks_like_who_and_when(openai)


def test_the_import_reads_both_folders(fixtures: Path) -> None:
    summary = ImportSummary()
    paths = [fixtures / GENERATED, fixtures / HAND_CRAFTED]
    traces = list(iter_import(paths, summary=summary))
    assert summary.ok
    assert summary.rejected == 0
    assert [t.trace_id for t in traces] == [
        "who-and-when:Algorithm-Generated/7",
        "who-and-when:Hand-Crafted/3",
    ]
    assert summary.spans == 6 + 7


@pytest.mark.external
def test_every_published_log_imports_and_its_label_names_a_step(external: Path) -> None:
    folder = external / PUBLISHED
    if not folder.is_dir():
        pytest.skip(f"the Who&When logs are not at {folder}")
    paths = sorted(folder.glob("*/*.json"))
    agents_agree = 0
    for path in paths:
        ((trace, mistake),) = logs(path.read_bytes(), str(path))
        step = trace_steps(trace)[mistake.step - 1]
        agents_agree += same_agent(step_agent(trace, step), mistake.agent)
    # 184 logs (126 generated, 58 hand-crafted); in 6 the label's agent is not the one that
    # took the labelled step (the published labels disagree with themselves there).
    assert (len(paths), agents_agree) == (184, 178)
